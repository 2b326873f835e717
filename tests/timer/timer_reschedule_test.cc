// Copyright 2026 The timingwheel Authors.
//
// The one-shot entry points beyond Schedule/Add/Cancel, driven
// deterministically by MockTimer: TimerHandle::Reschedule()/RescheduleAt()
// (moved, re-armed, refused), absolute deadlines (Timer::Now(), ScheduleAt(),
// AddAt(), TimeRemaining(), TimePoint's rounding), ScopedTimerHandle and
// AddBatch(). Every test checks never-early (nothing runs a nanosecond before
// its due time) and exactly-once (the metrics balance).

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/manual_timer.h"
#include "timer/scoped_timer_handle.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/testing/mock_timer.h"
#include "timer/time_point.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MakeManualTimer;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::ManualExecutor;
using ::timingwheel::testing::MockTimer;

// Every add ends as exactly one of expired, cancelled or pending; `moves`
// (adds of a task that was waiting already) count as adds too.
void ExpectBalanced(const Timer& timer, int64_t moves = 0) {
  const TimerMetrics m = timer.Metrics();
  EXPECT_EQ(m.added - moves, m.expired + m.cancelled + m.pending)
      << "added " << m.added << " expired " << m.expired << " cancelled "
      << m.cancelled << " pending " << m.pending;
}

class Noop final : public TimerTask {
 public:
  void Run() override { ++runs; }
  int runs = 0;
};

// --- TimePoint --------------------------------------------------------------

TEST(TimePointTest, ArithmeticRoundsTowardTheFutureAndSaturates) {
  const TimePoint t = TimePoint::FromNanos(100);
  EXPECT_EQ((t + absl::Nanoseconds(5)).nanos(), 105);
  EXPECT_EQ((t + absl::Nanoseconds(0.25)).nanos(), 101);  // Up, not down.
  EXPECT_EQ((t - absl::Nanoseconds(0.25)).nanos(), 100);  // Up: toward t.
  EXPECT_EQ((t - absl::Nanoseconds(7.5)).nanos(), 93);
  EXPECT_EQ(t + absl::InfiniteDuration(), TimePoint::Max());
  EXPECT_EQ(TimePoint::FromNanos(std::numeric_limits<int64_t>::max() - 1) +
                absl::Hours(1),
            TimePoint::Max());
  EXPECT_EQ((TimePoint::FromNanos(std::numeric_limits<int64_t>::min() + 1) -
             absl::Hours(1))
                .nanos(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(TimePoint::FromNanos(250) - t, absl::Nanoseconds(150));
  EXPECT_EQ(t - TimePoint::FromNanos(250), absl::Nanoseconds(-150));
  EXPECT_LT(t, TimePoint::FromNanos(101));
}

// --- Absolute deadlines -----------------------------------------------------

TEST(DeadlineTest, NowIsTheClockReading) {
  MockTimer mock;
  EXPECT_EQ(mock.timer().Now().nanos(), mock.clock().NowNanos());
  mock.AdvanceBy(absl::Milliseconds(7));
  EXPECT_EQ(mock.timer().Now().nanos(), mock.clock().NowNanos());
}

TEST(DeadlineTest, ScheduleAtRunsAtTheDeadlineNeverEarly) {
  MockTimer mock;
  mock.AdvanceBy(absl::Milliseconds(3));
  const TimePoint deadline = mock.timer().Now() + absl::Microseconds(1500);
  int runs = 0;
  TimerHandle handle =
      mock.timer().ScheduleAt(deadline, [&] { ++runs; }).value();
  EXPECT_EQ(handle.TimeRemaining(), absl::Microseconds(1500));
  mock.AdvanceBy(absl::Microseconds(1500) - absl::Nanoseconds(1));
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(handle.TimeRemaining(), absl::Nanoseconds(1));
  mock.AdvanceBy(absl::Nanoseconds(1));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(handle.TimeRemaining(), absl::InfiniteDuration());  // Ran.
  mock.AdvanceBy(absl::Seconds(10));
  EXPECT_EQ(runs, 1);  // Exactly once.
  ExpectBalanced(mock.timer());
}

TEST(DeadlineTest, PassedDeadlineRunsOnTheNextAdvanceNotInline) {
  MockTimer mock;
  mock.AdvanceBy(absl::Seconds(1));
  int runs = 0;
  TimerHandle handle =
      mock.timer()
          .ScheduleAt(mock.timer().Now() - absl::Milliseconds(500),
                      [&] { ++runs; })
          .value();
  EXPECT_EQ(runs, 0);  // Not on the caller's thread.
  EXPECT_EQ(handle.TimeRemaining(), absl::ZeroDuration());
  mock.RunDue();
  EXPECT_EQ(runs, 1);
}

TEST(DeadlineTest, MaxDeadlineNeverRuns) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().ScheduleAt(TimePoint::Max(), [&] { ++runs; }).value();
  EXPECT_EQ(handle.TimeRemaining(), absl::InfiniteDuration());
  EXPECT_TRUE(handle.pending());
  mock.AdvanceBy(absl::Hours(24 * 365 * 100));
  EXPECT_EQ(runs, 0);
  EXPECT_TRUE(handle.Cancel());
}

TEST(DeadlineTest, DeadlinesOnAClockWithANonZeroOrigin) {
  // A clock that starts far from 0 (negative readings are allowed): the
  // deadline is on the clock, not relative to the timer's creation.
  ManualClock clock(-5'000'000'000);
  ManualExecutor executor;
  auto timer = MakeManualTimer(clock, executor);
  EXPECT_EQ(timer->Now().nanos(), -5'000'000'000);
  int runs = 0;
  TimerHandle handle =
      timer->ScheduleAt(TimePoint::FromNanos(-4'000'000'000), [&] { ++runs; })
          .value();
  // A deadline before the timer's origin is due at once.
  TimerHandle early =
      timer->ScheduleAt(TimePoint::FromNanos(-9'000'000'000), [&] { ++runs; })
          .value();
  EXPECT_EQ(handle.TimeRemaining(), absl::Seconds(1));
  EXPECT_EQ(early.TimeRemaining(), absl::ZeroDuration());
  timer->AdvanceClock(absl::ZeroDuration());
  executor.RunAll();
  EXPECT_EQ(runs, 1);
  clock.SetNanos(-4'000'000'001);
  timer->AdvanceClock(absl::ZeroDuration());
  executor.RunAll();
  EXPECT_EQ(runs, 1);  // Never early.
  clock.SetNanos(-4'000'000'000);
  timer->AdvanceClock(absl::ZeroDuration());
  executor.RunAll();
  EXPECT_EQ(runs, 2);
  ExpectBalanced(*timer);
}

TEST(DeadlineTest, AddAtMovesAPendingTaskAndRefusesBadTasks) {
  MockTimer mock;
  TaskPtr<Noop> task = MakeTask<Noop>();
  ASSERT_TRUE(
      mock.timer().AddAt(task, TimePoint::FromNanos(1'000'000'000)).ok());
  ASSERT_TRUE(mock.timer().AddAt(task, TimePoint::FromNanos(2'000'000)).ok());
  EXPECT_EQ(mock.timer().NumPending(), 1);
  mock.AdvanceBy(absl::Milliseconds(2));
  EXPECT_EQ(task->runs, 1);
  mock.AdvanceBy(absl::Seconds(2));
  EXPECT_EQ(task->runs, 1);  // Moved, not added twice.
  EXPECT_EQ(mock.timer().AddAt(nullptr, TimePoint()).code(),
            absl::StatusCode::kInvalidArgument);
  mock.timer().Shutdown();
  EXPECT_EQ(mock.timer().AddAt(task, TimePoint()).code(),
            absl::StatusCode::kFailedPrecondition);
}

// --- Reschedule -------------------------------------------------------------

TEST(RescheduleTest, MovesAPendingCallbackWithoutAddingARun) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Seconds(1), [&] { ++runs; }).value();
  mock.AdvanceBy(absl::Milliseconds(900));
  EXPECT_EQ(handle.Reschedule(absl::Seconds(1)), RescheduleResult::kMoved);
  EXPECT_EQ(handle.TimeRemaining(), absl::Seconds(1));
  mock.AdvanceBy(absl::Milliseconds(999));  // 1.899 s: past the old time.
  EXPECT_EQ(runs, 0);
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 1);
  mock.AdvanceBy(absl::Seconds(5));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  ExpectBalanced(mock.timer(), /*moves=*/1);
}

TEST(RescheduleTest, MovesEarlierToo) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Hours(1), [&] { ++runs; }).value();
  EXPECT_EQ(handle.Reschedule(absl::Milliseconds(3)), RescheduleResult::kMoved);
  mock.AdvanceBy(absl::Milliseconds(3));
  EXPECT_EQ(runs, 1);
  mock.AdvanceBy(absl::Hours(2));
  EXPECT_EQ(runs, 1);
}

TEST(RescheduleTest, RearmsACallbackThatRanOrWasCancelled) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Milliseconds(1), [&] { ++runs; }).value();
  mock.AdvanceBy(absl::Milliseconds(1));
  ASSERT_EQ(runs, 1);
  EXPECT_EQ(handle.Reschedule(absl::Milliseconds(2)),
            RescheduleResult::kRearmed);
  EXPECT_TRUE(handle.pending());
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 1);
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 2);

  ASSERT_TRUE(handle.Reschedule(absl::Milliseconds(5)) ==
              RescheduleResult::kRearmed);
  ASSERT_TRUE(handle.Cancel());
  EXPECT_EQ(handle.RescheduleAt(mock.timer().Now() + absl::Milliseconds(4)),
            RescheduleResult::kRearmed);
  mock.AdvanceBy(absl::Milliseconds(4));
  EXPECT_EQ(runs, 3);
  mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(runs, 3);
  ExpectBalanced(mock.timer());
}

TEST(RescheduleTest, MovesACallbackHandedToTheExecutorButNotStarted) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Milliseconds(1), [&] { ++runs; }).value();
  // Flush without running the executor: the callback is queued.
  mock.clock().AdvanceBy(absl::Milliseconds(1));
  ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));
  ASSERT_EQ(mock.executor().size(), 1u);
  EXPECT_EQ(handle.TimeRemaining(), absl::ZeroDuration());
  EXPECT_EQ(handle.Reschedule(absl::Milliseconds(5)), RescheduleResult::kMoved);
  mock.executor().RunAll();  // The batch skips it.
  EXPECT_EQ(runs, 0);
  mock.AdvanceBy(absl::Milliseconds(5));
  EXPECT_EQ(runs, 1);
  ExpectBalanced(mock.timer(), /*moves=*/1);
}

TEST(RescheduleTest, FromInsideTheCallbackRunsAgainAfterIt) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle;
  RescheduleResult inside = RescheduleResult::kTimerGone;
  handle = mock.timer()
               .Schedule(absl::Milliseconds(1),
                         [&] {
                           if (++runs == 1) {
                             inside = handle.Reschedule(absl::Milliseconds(1));
                           }
                         })
               .value();
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(inside, RescheduleResult::kRearmed);
  EXPECT_EQ(runs, 1);
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 2);
  handle = TimerHandle();  // The callback captured a reference to it.
}

TEST(RescheduleTest, RefusedWhileStoppedByCancelInsideItsRun) {
  MockTimer mock;
  TimerHandle handle;
  RescheduleResult inside = RescheduleResult::kMoved;
  handle = mock.timer()
               .Schedule(absl::Milliseconds(1),
                         [&] {
                           handle.Cancel();  // Stops it until Run() returns.
                           inside = handle.Reschedule(absl::Milliseconds(1));
                         })
               .value();
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(inside, RescheduleResult::kStopped);
  EXPECT_FALSE(handle.pending());
  // After Run() returned, it may be re-armed.
  EXPECT_EQ(handle.Reschedule(absl::Milliseconds(1)),
            RescheduleResult::kRearmed);
  EXPECT_TRUE(handle.Cancel());
  handle = TimerHandle();
}

TEST(RescheduleTest, RefusedPastMaxPendingAndAfterShutdownAndDestruction) {
  TimerOptions options;
  options.max_pending = 1;
  auto mock = std::make_unique<MockTimer>(options);
  TimerHandle first = mock->timer().Schedule(absl::Seconds(1), [] {}).value();
  EXPECT_EQ(mock->timer().Schedule(absl::Seconds(1), [] {}).status().code(),
            absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(first.Cancel());
  TimerHandle other = mock->timer().Schedule(absl::Seconds(1), [] {}).value();
  // `first` is idle, the timer full: re-arming would exceed the limit...
  EXPECT_EQ(first.Reschedule(absl::Seconds(1)), RescheduleResult::kOverLimit);
  EXPECT_FALSE(first.pending());
  // ...but moving a pending one does not add.
  EXPECT_EQ(other.Reschedule(absl::Seconds(2)), RescheduleResult::kMoved);
  EXPECT_EQ(TimerHandle().Reschedule(absl::Seconds(1)),
            RescheduleResult::kTimerGone);
  mock->timer().Shutdown();
  EXPECT_EQ(other.Reschedule(absl::Seconds(1)), RescheduleResult::kTimerGone);
  mock.reset();  // The timer is destroyed; the handles stay safe.
  EXPECT_EQ(other.Reschedule(absl::Seconds(1)), RescheduleResult::kTimerGone);
  EXPECT_EQ(other.RescheduleAt(TimePoint()), RescheduleResult::kTimerGone);
  EXPECT_EQ(other.TimeRemaining(), absl::InfiniteDuration());
}

TEST(RescheduleTest, CountsAsOneAdd) {
  MockTimer mock;
  TimerHandle handle = mock.timer().Schedule(absl::Seconds(1), [] {}).value();
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(handle.Reschedule(absl::Seconds(1)), RescheduleResult::kMoved);
  }
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.added, 11);
  EXPECT_EQ(m.pending, 1);
  ExpectBalanced(mock.timer(), /*moves=*/10);
}

// --- ScopedTimerHandle -------------------------------------------------------

TEST(ScopedTimerHandleTest, CancelsOnDestructionAndOnMoveAssignment) {
  MockTimer mock;
  int a = 0;
  int b = 0;
  {
    ScopedTimerHandle scoped(
        mock.timer().Schedule(absl::Seconds(1), [&] { ++a; }).value());
    EXPECT_TRUE(scoped.pending());
    ScopedTimerHandle moved = std::move(scoped);
    EXPECT_FALSE(scoped.valid());  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(moved.pending());
    moved = ScopedTimerHandle(
        mock.timer().Schedule(absl::Seconds(1), [&] { ++b; }).value());
    // The first callback was cancelled by the assignment.
    EXPECT_EQ(mock.timer().NumPending(), 1);
  }
  EXPECT_EQ(mock.timer().NumPending(), 0);
  mock.AdvanceBy(absl::Seconds(2));
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 0);
  ExpectBalanced(mock.timer());
}

TEST(ScopedTimerHandleTest, ReleaseKeepsTheCallbackAndResetCancels) {
  MockTimer mock;
  int runs = 0;
  TimerHandle kept;
  {
    ScopedTimerHandle scoped(
        mock.timer().Schedule(absl::Seconds(1), [&] { ++runs; }).value());
    EXPECT_EQ(scoped.Reschedule(absl::Seconds(2)), RescheduleResult::kMoved);
    kept = scoped.release();
    EXPECT_FALSE(scoped.valid());
  }
  EXPECT_TRUE(kept.pending());
  ScopedTimerHandle other(
      mock.timer().Schedule(absl::Seconds(1), [&] { runs += 10; }).value());
  other.reset();
  EXPECT_FALSE(other.valid());
  mock.AdvanceBy(absl::Seconds(2));
  EXPECT_EQ(runs, 1);
}

TEST(ScopedTimerHandleTest, SafeAfterTheTimerIsGone) {
  auto mock = std::make_unique<MockTimer>();
  ScopedTimerHandle scoped(
      mock->timer().Schedule(absl::Seconds(1), [] {}).value());
  mock.reset();
  EXPECT_FALSE(scoped.pending());
  EXPECT_FALSE(scoped.Cancel());
  // The destructor cancels through the dead timer's control block.
}

// --- AddBatch ---------------------------------------------------------------

TEST(AddBatchTest, AddsEveryTaskWithOneClockReading) {
  MockTimer mock;
  std::vector<TaskPtr<Noop>> tasks;
  std::vector<TimerBatchEntry> entries;
  for (int i = 0; i < 100; ++i) {
    tasks.push_back(MakeTask<Noop>());
    entries.push_back({tasks.back(), absl::Milliseconds(i + 1)});
  }
  size_t added = 0;
  ASSERT_TRUE(mock.timer().AddBatch(entries, &added).ok());
  EXPECT_EQ(added, 100u);
  EXPECT_EQ(mock.timer().NumPending(), 100);
  for (int i = 0; i < 100; ++i) {
    mock.AdvanceBy(absl::Milliseconds(1) - absl::Nanoseconds(1));
    EXPECT_EQ(tasks[i]->runs, 0) << i;  // Never early.
    mock.AdvanceBy(absl::Nanoseconds(1));
    EXPECT_EQ(tasks[i]->runs, 1) << i;
  }
  mock.AdvanceBy(absl::Seconds(1));
  for (const auto& task : tasks) EXPECT_EQ(task->runs, 1);
  ExpectBalanced(mock.timer());
}

TEST(AddBatchTest, StopsAtTheFirstRefusedEntry) {
  TimerOptions options;
  options.max_pending = 3;
  MockTimer mock(options);
  std::vector<TaskPtr<Noop>> tasks;
  std::vector<TimerBatchEntry> entries;
  for (int i = 0; i < 5; ++i) {
    tasks.push_back(MakeTask<Noop>());
    entries.push_back({tasks.back(), absl::Seconds(1)});
  }
  entries.insert(entries.begin() + 1, {tasks[0], absl::Seconds(2)});  // Move.
  size_t added = 0;
  EXPECT_EQ(mock.timer().AddBatch(entries, &added).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(added, 4u);  // tasks 0, 0 (moved), 1, 2; task 3 refused.
  EXPECT_EQ(mock.timer().NumPending(), 3);

  std::vector<TimerBatchEntry> with_null = {{nullptr, absl::Seconds(1)}};
  EXPECT_EQ(mock.timer().AddBatch(with_null, &added).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(added, 0u);
  EXPECT_TRUE(mock.timer().AddBatch({}, &added).ok());
  mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(tasks[0]->runs, 0);  // Moved to 2 s.
  EXPECT_EQ(tasks[1]->runs + tasks[2]->runs, 2);
  mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(tasks[0]->runs, 1);
  EXPECT_EQ(tasks[3]->runs + tasks[4]->runs, 0);
  ExpectBalanced(mock.timer(), /*moves=*/1);
}

}  // namespace
}  // namespace timingwheel
