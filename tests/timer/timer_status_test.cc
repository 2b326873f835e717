// Copyright 2026 The timingwheel Authors.
//
// TimerHandle::status() / Deadline() and EmbeddedTimer::status() /
// Deadline(): why a callback is no longer pending (ran, running, cancelled)
// and when it is due, on the manual clock.

#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/manual_timer.h"
#include "timer/embedded_timer.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MakeManualTimer;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::ManualExecutor;
using ::timingwheel::testing::MockTimer;

TEST(TaskStatusTest, AnEmptyHandleHasNone) {
  TimerHandle handle;
  EXPECT_EQ(handle.status(), TaskStatus::kNone);
  EXPECT_EQ(handle.Deadline(), TimePoint::Max());
  CallbackTimer embedded([] {});
  EXPECT_EQ(embedded.status(), TaskStatus::kNone);
  EXPECT_EQ(embedded.Deadline(), TimePoint::Max());
}

TEST(TaskStatusTest, PendingThenRanWithItsDeadline) {
  MockTimer mock;
  const TimePoint start = mock.timer().Now();
  TimerHandle handle = mock.timer().Schedule(absl::Seconds(3), [] {}).value();
  EXPECT_EQ(handle.status(), TaskStatus::kPending);
  EXPECT_EQ(handle.Deadline(), start + absl::Seconds(3));
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(3)), 1u);
  EXPECT_EQ(handle.status(), TaskStatus::kRan);
  EXPECT_EQ(handle.Deadline(), TimePoint::Max());
  // Rescheduled: pending again, at the new instant.
  EXPECT_EQ(handle.Reschedule(absl::Seconds(2)), RescheduleResult::kRearmed);
  EXPECT_EQ(handle.status(), TaskStatus::kPending);
  EXPECT_EQ(handle.Deadline(), start + absl::Seconds(5));
}

TEST(TaskStatusTest, CancelledIsNotRan) {
  MockTimer mock;
  TimerHandle handle = mock.timer().Schedule(absl::Seconds(3), [] {}).value();
  EXPECT_TRUE(handle.Cancel());
  EXPECT_EQ(handle.status(), TaskStatus::kCancelled);
  EXPECT_EQ(handle.Deadline(), TimePoint::Max());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5)), 0u);
  EXPECT_EQ(handle.status(), TaskStatus::kCancelled);
  // A task that ran and is then cancelled (nothing to cancel) still ran.
  TimerHandle ran = mock.timer().Schedule(absl::Seconds(1), [] {}).value();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_FALSE(ran.Cancel());
  EXPECT_EQ(ran.status(), TaskStatus::kRan);
}

TEST(TaskStatusTest, RunningWhileItsRunIsInProgress) {
  MockTimer mock;
  TimerHandle handle;
  TaskStatus inside = TaskStatus::kNone;
  TaskStatus inside_after_reschedule = TaskStatus::kNone;
  TimePoint deadline_inside;
  const TimePoint start = mock.timer().Now();
  handle = mock.timer()
               .Schedule(absl::Seconds(1),
                         [&] {
                           inside = handle.status();
                           deadline_inside = handle.Deadline();
                           if (inside_after_reschedule == TaskStatus::kNone) {
                             handle.Reschedule(absl::Seconds(1));
                             inside_after_reschedule = handle.status();
                           }
                         })
               .value();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(inside, TaskStatus::kRunning);
  EXPECT_EQ(deadline_inside, start + absl::Seconds(1));
  EXPECT_EQ(inside_after_reschedule, TaskStatus::kPending);
  EXPECT_EQ(handle.status(), TaskStatus::kPending);
}

TEST(TaskStatusTest, HandedToTheExecutorIsPending) {
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer = MakeManualTimer(clock, executor);
  TimerHandle handle = timer->Schedule(absl::Seconds(1), [] {}).value();
  clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(handle.status(), TaskStatus::kPending);
  EXPECT_EQ(handle.TimeRemaining(), absl::ZeroDuration());
  executor.RunAll();
  EXPECT_EQ(handle.status(), TaskStatus::kRan);
}

TEST(TaskStatusTest, ShutdownAndDestructionCancelWhatIsPending) {
  std::vector<TimerHandle> handles;
  TimerHandle ran;
  {
    MockTimer mock;
    ran = mock.timer().Schedule(absl::Seconds(1), [] {}).value();
    EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
    for (int i = 0; i < 3; ++i) {
      handles.push_back(
          mock.timer().Schedule(absl::Seconds(10 + i), [] {}).value());
    }
    mock.timer().Shutdown();
    EXPECT_EQ(handles[0].status(), TaskStatus::kCancelled);
    handles.push_back(
        mock.timer().Schedule(absl::Seconds(1), [] {}).value_or(TimerHandle()));
  }
  // The timer is gone; the handles still tell.
  EXPECT_EQ(handles[1].status(), TaskStatus::kCancelled);
  EXPECT_EQ(handles[2].status(), TaskStatus::kCancelled);
  EXPECT_EQ(handles[3].status(), TaskStatus::kNone);  // Refused: empty.
  EXPECT_EQ(ran.status(), TaskStatus::kRan);
  EXPECT_EQ(ran.Deadline(), TimePoint::Max());
}

TEST(TaskStatusTest, ACallbackThatNeverComesDueHasNoDeadline) {
  MockTimer mock;
  TimerHandle handle = mock.timer().ScheduleAt(TimePoint::Max(), [] {}).value();
  EXPECT_EQ(handle.status(), TaskStatus::kPending);
  EXPECT_EQ(handle.Deadline(), TimePoint::Max());
}

TEST(TaskStatusTest, EmbeddedTimerPendingRanCancelled) {
  MockTimer mock;
  int runs = 0;
  CallbackTimer embedded([&runs] { ++runs; });
  const TimePoint start = mock.timer().Now();
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(2)).ok());
  EXPECT_EQ(embedded.status(), TaskStatus::kPending);
  EXPECT_EQ(embedded.Deadline(), start + absl::Seconds(2));
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 1u);
  EXPECT_EQ(embedded.status(), TaskStatus::kRan);
  EXPECT_EQ(embedded.Deadline(), TimePoint::Max());
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(2)).ok());
  EXPECT_TRUE(embedded.Cancel());
  EXPECT_EQ(embedded.status(), TaskStatus::kCancelled);
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(2)).ok());
  mock.timer().Shutdown();
  EXPECT_EQ(embedded.status(), TaskStatus::kCancelled);
  EXPECT_EQ(runs, 1);
}

TEST(TaskStatusTest, PeriodicHandle) {
  MockTimer mock;
  PeriodicHandle empty;
  EXPECT_EQ(empty.status(), TaskStatus::kNone);
  PeriodicHandle periodic;
  TaskStatus inside = TaskStatus::kNone;
  periodic = mock.timer()
                 .SchedulePeriodic(absl::Seconds(1),
                                   [&] { inside = periodic.status(); })
                 .value();
  EXPECT_EQ(periodic.status(), TaskStatus::kPending);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(inside, TaskStatus::kRunning);
  EXPECT_EQ(periodic.status(), TaskStatus::kPending);  // Re-armed.
  periodic.Cancel();
  EXPECT_EQ(periodic.status(), TaskStatus::kCancelled);
}

}  // namespace
}  // namespace timingwheel
