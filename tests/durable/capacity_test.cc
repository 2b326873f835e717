// Copyright 2026 The timingwheel Authors.
//
// A scheduler's capacity never holds due work back, on both stores
// (two_store_fixture.h):
//   * A free handler place takes a due task at once, the highest priority
//     of a kind with room, while the other places run long handlers
//     (held on a gate): it does not wait for room for a bigger batch.
//   * A wheel bounded by TimerOptions::max_pending holds the earliest rows:
//     a task due soon takes the place of the latest claimed one, which goes
//     back to PENDING and still fires at its own due time.
//   * A bounded wheel's load of rows already due that leaves rows over
//     (a slot's share) loads them at once (PostgreSQL only).

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace durable_test {
namespace {

// The ids whose handlers started, in order. Thread-safe.
class StartLog {
 public:
  void Add(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    ids_.push_back(id);
  }
  std::vector<std::string> ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_;
  }
  // The position of `id`'s first start; -1 if it did not start.
  int IndexOf(const std::string& id) {
    std::vector<std::string> all = ids();
    auto it = std::find(all.begin(), all.end(), id);
    return it == all.end() ? -1 : static_cast<int>(it - all.begin());
  }

 private:
  std::mutex mu_;
  std::vector<std::string> ids_;
};

ScheduleRequest Due(const std::string& id, const std::string& kind,
                    int priority, absl::Duration delay) {
  ScheduleRequest r;
  r.id = id;
  r.payload = "p";
  r.kind = kind;
  r.priority = priority;
  r.delay = delay;
  return r;
}

class CapacityTest : public TwoStoreFixture {};

// 8 places: 7 held by long handlers (one of them of kind "one", limited to
// 1) and the 8th by "freed". Three tasks come due while all 8 are busy:
// "one-2" (priority 9, its kind at its limit), "high" (5) and "low" (0).
// Once "freed" returns, its place takes "high" at once, then "low", while
// the 7 long handlers still run; "one-2" keeps its place until its kind
// has room.
TEST_P(CapacityTest, AFreePlaceStartsADueTaskWhileTheOthersAreBusy) {
  testing::PoolExecutor executor(10);
  Gate freed, rest;
  StartLog log;
  DurableHandler handler = [&](const DurableTask& task) {
    log.Add(task.id);
    if (task.id == "freed") freed.Wait();
    if (absl::StartsWith(task.id, "long")) rest.Wait();
    return absl::OkStatus();
  };
  DurableOptions options = Options("a");
  options.handler = handler;
  options.max_in_flight = 8;
  options.executor = &executor;
  options.kinds = {TaskKind{"one", handler, 1}};
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  std::vector<ScheduleRequest> busy;
  for (int i = 0; i < 6; ++i) {
    busy.push_back(Due(absl::StrCat("long", i), "", 0, absl::ZeroDuration()));
  }
  busy.push_back(Due("long-one", "one", 0, absl::ZeroDuration()));
  busy.push_back(Due("freed", "", 0, absl::ZeroDuration()));
  ASSERT_TRUE(s->ScheduleBatch(busy).ok());
  const bool all_busy = WaitFor([&] { return log.ids().size() == 8; });
  ASSERT_TRUE(all_busy) << log.ids().size() << " of 8 started";
  ASSERT_TRUE(s->ScheduleBatch({Due("one-2", "one", 9, absl::ZeroDuration()),
                                Due("low", "", 0, absl::ZeroDuration()),
                                Due("high", "", 5, absl::ZeroDuration())})
                  .ok());
  const bool queued = WaitFor([&] { return s->Metrics().waiting == 3; });
  EXPECT_TRUE(queued) << s->Metrics().waiting << " waiting";
  freed.Open();
  // Bounded: the due tasks need the one free place, not the long handlers.
  const bool ran = WaitFor(
      [&] { return log.IndexOf("high") >= 0 && log.IndexOf("low") >= 0; },
      absl::Seconds(10));
  const int64_t in_flight = s->Metrics().in_flight;
  const int64_t waiting = s->Metrics().waiting;
  const int one_2 = log.IndexOf("one-2");
  rest.Open();
  ASSERT_TRUE(ran) << "the free place stayed idle with due tasks waiting";
  EXPECT_LT(log.IndexOf("high"), log.IndexOf("low"));
  EXPECT_EQ(one_2, -1) << "a kind at its limit took the free place";
  EXPECT_EQ(waiting, 1);    // "one-2", in its place.
  EXPECT_EQ(in_flight, 7);  // The long handlers still ran.
  EXPECT_TRUE(WaitFor([&] { return CountInState(TaskState::kSuccess) == 11; }))
      << CountInState(TaskState::kSuccess) << " of 11 succeeded";
  std::vector<std::string> ids = log.ids();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end())
      << "a task ran twice";
  s->Shutdown();
}

// A wheel with room for 3 holds 3 tasks due in 30 minutes; a task due in
// 300 ms takes the place of the latest of them and fires within a bounded
// time, none early; the displaced task went back to the table.
TEST_P(CapacityTest, AFullWheelTakesATaskDueSoonInPlaceOfLaterOnes) {
  DurableOptions options = Options("a");
  options.timer_options.max_pending = 3;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->ScheduleBatch({Due("late1", "", 0, absl::Minutes(30)),
                                Due("late2", "", 0, absl::Minutes(30)),
                                Due("late3", "", 0, absl::Minutes(31))})
                  .ok());
  ASSERT_TRUE(WaitFor([&] {
    return s->Metrics().wheel_pending == 3 &&
           CountInState(TaskState::kScheduled) == 3;
  }));
  ASSERT_TRUE(s->Schedule("soon", absl::Milliseconds(300), "p").ok());
  absl::StatusOr<TaskInfo> soon = s->Get("soon");
  ASSERT_TRUE(soon.ok()) << soon.status();
  const bool fired =
      WaitFor([&] { return recorder_.size() >= 1; }, absl::Seconds(10));
  ASSERT_TRUE(fired) << "a task due now waited behind later ones";
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.id, "soon");
  EXPECT_GE(calls[0].at, soon->due);
  // The displaced task went back to PENDING (and, once "soon" made room,
  // was claimed again): the three are still waiting, none ran.
  EXPECT_GE(s->Metrics().requeued, 1);
  EXPECT_TRUE(WaitFor([&] {
    return CountInState(TaskState::kSuccess) == 1 && CountWaiting() == 3;
  })) << CountWaiting()
      << " of 3 waiting";
  EXPECT_EQ(recorder_.size(), 1u);
  s->Shutdown();
}

// The displaced rows still fire, each once and none early: 3 tasks due in
// 2 s fill the wheel, 2 tasks due in 300 ms take their places; all 5 run,
// the early ones first.
TEST_P(CapacityTest, DisplacedTasksStillFireOnceAtTheirDueTime) {
  DurableOptions options = Options("a");
  options.timer_options.max_pending = 3;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->ScheduleBatch({Due("late1", "", 0, absl::Seconds(2)),
                                Due("late2", "", 0, absl::Seconds(2)),
                                Due("late3", "", 0, absl::Seconds(2))})
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().wheel_pending == 3; }));
  ASSERT_TRUE(s->ScheduleBatch({Due("soon1", "", 0, absl::Milliseconds(300)),
                                Due("soon2", "", 0, absl::Milliseconds(300))})
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return CountInState(TaskState::kSuccess) == 5; }))
      << CountInState(TaskState::kSuccess) << " of 5 succeeded";
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 5u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(absl::StartsWith(calls[i].task.id, "soon"))
        << calls[i].task.id << " ran before the tasks due earlier";
  }
  for (const Recorder::Call& call : calls) {
    absl::StatusOr<TaskInfo> info = s->Get(call.task.id);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_GE(call.at, info->due) << call.task.id << " ran early";
  }
  EXPECT_EQ(recorder_.CountById().size(), 5u);
  s->Shutdown();
}

// A bounded wheel's load of rows already due, cut short by one slot's
// share (PostgreSQL: a load reads at most twice a slot's even share of
// its limit from each slot, and says `more`): the rows left over are
// loaded at once, not at the next half-horizon round. 30 rows due now, all
// in slot 0 of 4; a wheel with room for 48 loads at most 48 rows at once,
// at most 24 of them from one slot. The first 24 go to the fire at once
// (due already: not through the wheel's thread); the 6 left must follow.
TEST_P(CapacityTest, RowsLeftOverByASlotsShareOfALoadOfDueRowsFollowAtOnce) {
  if (fake()) GTEST_SKIP() << "the fake store's load reads no per-slot share";
  constexpr int kSlots = 4;
  DurableOptions options = Options("a", kSlots);
  options.timer_options.max_pending = 48;
  options.max_in_flight = 64;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == kSlots; }))
      << s->Metrics().slots_owned << " of " << kSlots << " slots owned";
  std::vector<ScheduleRequest> due;
  for (int i = 0; due.size() < 30; ++i) {
    const std::string id = absl::StrCat("due-", i);
    if (durable_internal::SlotFor(id, kSlots) != 0) continue;
    due.push_back(Due(id, "", 0, absl::ZeroDuration()));
  }
  ASSERT_TRUE(s->ScheduleBatch(due).ok());
  // Bounded well below the half-horizon round (30 minutes).
  const bool all =
      WaitFor([&] { return CountInState(TaskState::kSuccess) == 30; },
              absl::Seconds(10));
  EXPECT_TRUE(all) << CountInState(TaskState::kSuccess)
                   << " of 30 due tasks ran; " << s->Metrics().loads
                   << " loads";
  EXPECT_EQ(recorder_.CountById().size(), 30u);
  s->Shutdown();
}

TW_TWO_STORE_SUITE(CapacityTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
