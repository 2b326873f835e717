// Copyright 2026 The timingwheel Authors.
//
// Recurring schedules on a real PostgreSQL (bash .ci/with-postgres starts
// one), in the windows only a real server has: a process stopped between
// a completion and the next occurrence's write, an advance whose commit
// reply is lost; and schedules a DurableClient manages, with hostile
// names and payloads. What holds on any store is tested on both in
// recurring_logic_test.cc; catch-up after an outage and concurrent
// advances on the store (recurring_store_test.cc); the calendar across DST
// nights on the pure plan (schedule_plan_test.cc).

#include "durable/recurring.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/testing/pause_points.h"
#include "durable/testing/pg_proxy.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/recurring_test_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

class RecurringTest : public DurableFixture {
 protected:
  DurableOptions ShortHorizon(const std::string& node) {
    DurableOptions options = Options(node);
    options.horizon = absl::Seconds(2);  // Loads (and the duty) every 1 s.
    return options;
  }
};

TEST_F(RecurringTest, OwnerStalledBeforeACompletionWritesNothingTwice) {
  auto a = Start(ShortHorizon("a"));
  ASSERT_NE(a, nullptr);
  durable_testing::PausePoint held("schedule.completing");
  ASSERT_TRUE(a->CreateSchedule(Every("stalled", Overlap::kSkipWhileRunning,
                                      CatchUp::kRunOnce))
                  .ok());
  // a's maintenance thread stops before the transaction that records the
  // first outcome and writes the next occurrence.
  ASSERT_TRUE(held.WaitReached(absl::Seconds(20)));
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kRunning)), 1);
  // Its lease runs out; b takes the slot, runs that occurrence again (the
  // at-least-once window) and goes on.
  auto b = Start(ShortHorizon("b"));
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 4; }));
  held.Resume();  // a's stale outcome and advance change nothing.
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 2; }));
  a->Shutdown();
  b->Shutdown();
  std::map<absl::Time, int> runs;
  const std::vector<absl::Time> seen = Occurrences(recorder_);
  for (absl::Time t : seen) ++runs[t];
  for (const auto& [t, n] : runs) {
    EXPECT_LE(n, t == seen[0] ? 2 : 1) << t << " ran " << n << " times";
  }
  // kSkipWhileRunning: never more than one unfinished occurrence.
  EXPECT_LE(Count(TaskMatch().StateBefore(TaskState::kSuccess)), 1);
}

TEST_F(RecurringTest, AdvanceWhoseCommitReplyIsLostWritesNothingTwice) {
  auto proxy = durable_testing::PgProxy::Start(db_->conninfo());
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  DurableOptions options = ShortHorizon("a");
  options.conninfo = (*proxy)->conninfo();
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(
      scheduler
          ->CreateSchedule(Every("lost-reply", Overlap::kSkipWhileRunning,
                                 CatchUp::kRunEachMissed))
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 1; }));
  // The next transaction to commit is an advance (after a completion, or
  // the duty's): it commits, its reply is lost, the connection dies.
  (*proxy)->DropReplyTo("COMMIT");
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 4; }));
  EXPECT_GE(scheduler->Metrics().reconnects, 1);
  scheduler->Shutdown();
  ExpectEachOnceOnTime(recorder_, "lost-reply");
  ExpectContiguous(recorder_);
}

TEST_F(RecurringTest, ClientManagesSchedulesThatSchedulersRun) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 1;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(
      (*client)
          ->CreateSchedule(Every("from-client", Overlap::kSkipWhileRunning,
                                 CatchUp::kRunOnce))
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 3; }));
  auto list = (*client)->ListSchedules();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  ASSERT_TRUE((*client)->PauseSchedule("from-client").ok());
  EXPECT_TRUE((*client)->GetSchedule("from-client").value().paused);
  ASSERT_TRUE((*client)->ResumeSchedule("from-client").ok());
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 2; }));
  EXPECT_TRUE((*client)->DeleteSchedule("from-client").value());
  scheduler->Shutdown();
  ExpectEachOnceOnTime(recorder_, "from-client");
}

TEST_F(RecurringTest, HostileNamesAndPayloadsRoundTripByteExact) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  static constexpr char kName[] = "it's a \\ '; DROP TABLE x; --\0@1";
  static constexpr char kPayload[] = "\0\0'\"\\";
  const std::string name(kName, sizeof(kName) - 1);
  const std::string payload =
      std::string(kPayload, sizeof(kPayload) - 1) + std::string(1 << 20, 'x');
  RecurringSchedule s =
      Every(name, Overlap::kSkipWhileRunning, CatchUp::kRunOnce);
  s.payload = payload;
  ASSERT_TRUE(scheduler->CreateSchedule(s).ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
  for (const Recorder::Call& c : recorder_.calls()) {
    EXPECT_EQ(c.task.schedule, name);
    EXPECT_EQ(c.task.payload, payload);
  }
  auto info = scheduler->GetSchedule(name);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->definition.name, name);
  ASSERT_TRUE(scheduler->PauseSchedule(name).ok());
  EXPECT_TRUE(scheduler->DeleteSchedule(name).value());
  EXPECT_EQ(Value(Store().CountSchedules()), 0);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
