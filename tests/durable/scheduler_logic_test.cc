// Copyright 2026 The timingwheel Authors.
//
// The scheduler's logic, one suite over two stores (two_store_fixture.h):
// PostgreSQL and the in-memory fake.

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

class SchedulerLogicTest : public TwoStoreFixture {
 protected:
  // Starts schedulers "a" and "b" over 8 slots and waits until each holds
  // its fair share (4); false (with a failure) if they do not.
  bool StartTwo(std::unique_ptr<DurableScheduler>* a,
                std::unique_ptr<DurableScheduler>* b) {
    *a = Start(Options("a", 8));
    *b = Start(Options("b", 8));
    if (*a == nullptr || *b == nullptr) return false;
    const bool split = WaitFor([&] {
      return (*a)->Metrics().slots_owned == 4 &&
             (*b)->Metrics().slots_owned == 4;
    });
    EXPECT_TRUE(split) << (*a)->Metrics().slots_owned << " "
                       << (*b)->Metrics().slots_owned;
    return split;
  }

  static bool StateIs(DurableScheduler& s, const std::string& id,
                      TaskState state) {
    absl::StatusOr<TaskInfo> info = s.Get(id);
    return info.ok() && info->state == state;
  }
};

TEST_P(SchedulerLogicTest, FiresOnceAtItsDueTimeAndNotBefore) {
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("t", absl::Milliseconds(300), "p").ok());
  absl::StatusOr<TaskInfo> info = s->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kSuccess); }));
  ASSERT_EQ(recorder_.size(), 1u);
  EXPECT_GE(recorder_.calls()[0].at, info->due);
  EXPECT_EQ(recorder_.calls()[0].task.payload, "p");
  EXPECT_EQ(recorder_.calls()[0].task.attempt, 1);
}

TEST_P(SchedulerLogicTest, CancelledBeforeItsDueTimeNeverFires) {
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("cancelled", absl::Milliseconds(200), "p").ok());
  absl::StatusOr<bool> cancelled = s->Cancel("cancelled");
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_TRUE(*cancelled);
  // A later task fires: by then the cancelled one would have.
  ASSERT_TRUE(s->Schedule("later", absl::Milliseconds(400), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  EXPECT_EQ(recorder_.CountById(), (std::map<std::string, int>{{"later", 1}}));
  EXPECT_TRUE(absl::IsNotFound(s->Get("cancelled").status()));
}

TEST_P(SchedulerLogicTest, IdenticalRetryIsOkAndAnotherPayloadAlreadyExists) {
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  const absl::Time due =
      absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now() + absl::Hours(2)));
  ASSERT_TRUE(s->ScheduleAt("t", due, "p").ok());
  EXPECT_TRUE(s->ScheduleAt("t", due, "p").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(s->ScheduleAt("t", due, "other")));
  EXPECT_TRUE(
      absl::IsAlreadyExists(s->ScheduleAt("t", due + absl::Seconds(1), "p")));
  absl::StatusOr<TaskInfo> info = s->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->due, due);
}

TEST_P(SchedulerLogicTest, RescheduleMovesTheDueTime) {
  DurableOptions options = Options("a");
  options.horizon = absl::Hours(2);  // The task is in the wheel when moved.
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("t", absl::Hours(1), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kScheduled); }));
  absl::StatusOr<ScheduleOutcome> moved =
      s->RescheduleAfter("t", absl::Milliseconds(200));
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(*moved, ScheduleOutcome::kReplaced);
  absl::StatusOr<TaskInfo> info = s->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_LT(info->due, absl::Now() + absl::Minutes(1));
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kSuccess); }));
  ASSERT_EQ(recorder_.size(), 1u);
  EXPECT_GE(recorder_.calls()[0].at, info->due);
}

TEST_P(SchedulerLogicTest, RetryRunsAgainWithTheNextAttempt) {
  recorder_.SetResult([](const DurableTask& task) {
    return task.attempt == 1 ? absl::InternalError("not yet")
                             : absl::OkStatus();
  });
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kSuccess); }));
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].task.attempt, 1);
  EXPECT_EQ(calls[1].task.attempt, 2);
  EXPECT_GE(calls[1].at - calls[0].at, absl::Milliseconds(50));
  absl::StatusOr<TaskInfo> info = s->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->attempt, 2);
}

TEST_P(SchedulerLogicTest, FailedTaskEndsFailedWithItsError) {
  recorder_.SetResult(
      [](const DurableTask&) { return absl::InternalError("disk on fire"); });
  DurableOptions options = Options("a");
  options.retry.max_attempts = 2;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kFailed); }));
  absl::StatusOr<TaskInfo> info = s->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->attempt, 2);
  EXPECT_NE(info->last_error.find("disk on fire"), std::string::npos)
      << info->last_error;
  EXPECT_EQ(recorder_.size(), 2u);
}

TEST_P(SchedulerLogicTest, GetReportsTheState) {
  Gate gate;
  recorder_.SetResult([&](const DurableTask&) {
    gate.Wait();
    return absl::OkStatus();
  });
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(absl::IsNotFound(s->Get("t").status()));
  ASSERT_TRUE(s->Schedule("far", absl::Hours(48), "p").ok());
  EXPECT_TRUE(StateIs(*s, "far", TaskState::kPending));
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kRunning); }));
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return StateIs(*s, "t", TaskState::kSuccess); }));
  absl::StatusOr<TaskInfo> info = s->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->attempt, 1);
  EXPECT_EQ(info->slot, 0);
}

TEST_P(SchedulerLogicTest, TwoSchedulersSplitTheSlotsAndEachTaskFiresOnce) {
  std::unique_ptr<DurableScheduler> a, b;
  ASSERT_TRUE(StartTwo(&a, &b));
  for (int i = 0; i < 40; ++i) {
    DurableScheduler& via = i % 2 == 0 ? *a : *b;
    ASSERT_TRUE(
        via.Schedule(absl::StrCat("t", i), absl::Milliseconds(100), "p").ok());
  }
  ASSERT_TRUE(WaitFor([&] { return recorder_.CountById().size() == 40; }));
  for (const auto& [id, count] : recorder_.CountById()) {
    EXPECT_EQ(count, 1) << id;
  }
  // An outcome is counted once its completion is written, after the
  // handler returned: wait for all 40, then each owner ran some.
  ASSERT_TRUE(WaitFor([&] {
    return a->Metrics().succeeded + b->Metrics().succeeded == 40;
  })) << a->Metrics().succeeded
      << " + " << b->Metrics().succeeded;
  EXPECT_GT(a->Metrics().succeeded, 0);
  EXPECT_GT(b->Metrics().succeeded, 0);
}

TEST_P(SchedulerLogicTest, AfterOneShutsDownTheOtherTakesItsSlots) {
  std::unique_ptr<DurableScheduler> a, b;
  ASSERT_TRUE(StartTwo(&a, &b));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(b->Schedule(absl::StrCat("t", i), absl::Seconds(2), "p").ok());
  }
  a->Shutdown();
  ASSERT_TRUE(WaitFor([&] { return b->Metrics().slots_owned == 8; }));
  ASSERT_TRUE(WaitFor([&] { return recorder_.CountById().size() == 20; }));
  for (const auto& [id, count] : recorder_.CountById()) {
    EXPECT_EQ(count, 1) << id;
  }
  // Every outcome is recorded by b, the only owner left.
  EXPECT_TRUE(WaitFor([&] { return b->Metrics().succeeded == 20; }))
      << b->Metrics().succeeded;
}

TW_TWO_STORE_SUITE(SchedulerLogicTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
