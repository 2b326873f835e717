// Copyright 2026 The timingwheel Authors.
//
// Timer::CancelAll() (cancel every pending task, keep the timer) and
// TimerTask::OnCancelled() (every scheduling ends in exactly one Run() or
// one OnCancelled()), on the manual clock.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/manual_timer.h"
#include "tests/timer/probe_task.h"
#include "timer/embedded_timer.h"
#include "timer/executor.h"
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
using ::timingwheel::testing::ProbeTask;

// A timer driven by hand whose callbacks wait in `executor` until run.
struct QueuedTimer {
  QueuedTimer() { timer = MakeManualTimer(clock, executor); }
  ~QueuedTimer() {
    executor.RunAll();
    timer.reset();
  }
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer;
};

TEST(TimerCancelAllTest, CancelsEveryPendingTaskAndTheTimerGoesOn) {
  MockTimer mock;
  int ran = 0;
  std::vector<TimerHandle> handles;
  // Level 0, higher levels, and far away.
  for (absl::Duration delay :
       {absl::Milliseconds(1), absl::Milliseconds(700), absl::Seconds(30),
        absl::Hours(5), absl::Hours(24 * 400)}) {
    handles.push_back(mock.timer().Schedule(delay, [&ran] { ++ran; }).value());
  }
  ProbeTask::Counts counts;
  {
    TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
    ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(2)).ok());
  }  // Only the timer holds it now.
  timingwheel::CallbackTimer embedded([&ran] { ++ran; });
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(3)).ok());

  EXPECT_EQ(mock.timer().CancelAll(), 7);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  // Released (the captures with it) and told, before CancelAll() returned.
  EXPECT_EQ(counts.cancelled.load(), 1);
  EXPECT_EQ(counts.destroyed.load(), 1);
  for (const TimerHandle& handle : handles) {
    EXPECT_FALSE(handle.pending());
    EXPECT_EQ(handle.status(), TaskStatus::kCancelled);
  }
  EXPECT_EQ(embedded.status(), TaskStatus::kCancelled);
  EXPECT_FALSE(embedded.IsScheduled());
  const TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.cancelled, 7);
  EXPECT_EQ(metrics.pending, 0);
  EXPECT_EQ(mock.timer().NextDueIn(), absl::InfiniteDuration());
  EXPECT_EQ(mock.AdvanceBy(absl::Hours(24 * 401)), 0u);
  EXPECT_EQ(ran, 0);

  // The timer goes on: new tasks, and the old handles rearm.
  TimerHandle fresh =
      mock.timer().Schedule(absl::Seconds(1), [&ran] { ++ran; }).value();
  EXPECT_EQ(handles[0].Reschedule(absl::Seconds(2)),
            RescheduleResult::kRearmed);
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(3)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1) - absl::Nanoseconds(1)), 0u);
  EXPECT_EQ(mock.AdvanceBy(absl::Nanoseconds(1)), 1u);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 2u);
  EXPECT_EQ(ran, 3);
  EXPECT_EQ(fresh.status(), TaskStatus::kRan);
}

TEST(TimerCancelAllTest, ReturnsZeroOnAnEmptyTimerAndAfterShutdown) {
  MockTimer mock;
  EXPECT_EQ(mock.timer().CancelAll(), 0);
  TimerHandle handle = mock.timer().Schedule(absl::Seconds(1), [] {}).value();
  mock.timer().Shutdown();
  EXPECT_EQ(mock.timer().CancelAll(), 0);
  EXPECT_EQ(handle.status(), TaskStatus::kCancelled);
}

TEST(TimerCancelAllTest, CancelsBufferedTasks) {
  // Producer inboxes are on by default: these adds buffer without the lock.
  MockTimer mock;
  auto token = std::make_shared<int>(0);
  for (int i = 0; i < 100; ++i) {
    mock.timer().Schedule(absl::Seconds(1 + i), [token] {}).value();
  }
  EXPECT_EQ(mock.timer().CancelAll(), 100);
  EXPECT_EQ(token.use_count(), 1);  // Every capture released.
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(200)), 0u);
}

TEST(TimerCancelAllTest, TasksHandedToTheExecutorStillRun) {
  QueuedTimer queued;
  int ran = 0;
  TimerHandle due =
      queued.timer->Schedule(absl::Seconds(1), [&ran] { ++ran; }).value();
  TimerHandle later =
      queued.timer->Schedule(absl::Seconds(5), [&ran] { ++ran; }).value();
  queued.clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(queued.timer->AdvanceClock(absl::ZeroDuration()));
  ASSERT_EQ(queued.executor.size(), 1u);    // `due` waits on the executor.
  EXPECT_EQ(queued.timer->CancelAll(), 1);  // `later` only.
  EXPECT_EQ(due.status(), TaskStatus::kPending);
  EXPECT_EQ(later.status(), TaskStatus::kCancelled);
  queued.executor.RunAll();
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(due.status(), TaskStatus::kRan);
}

TEST(TimerCancelAllTest, ARunningTaskGoesOnAndAReAddFromItIsKept) {
  MockTimer mock;
  int runs = 0;
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> other = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(mock.timer().Add(other, absl::Seconds(5)).ok());
  int64_t cancelled_inside = -1;
  TimerHandle self;
  self = mock.timer()
             .Schedule(absl::Seconds(1),
                       [&] {
                         ++runs;
                         cancelled_inside = mock.timer().CancelAll();
                         if (runs == 1) {
                           // After CancelAll(): kept.
                           self.Reschedule(absl::Seconds(1));
                         }
                       })
             .value();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(cancelled_inside, 1);  // `other`; not the running task.
  EXPECT_EQ(counts.cancelled.load(), 1);
  EXPECT_EQ(self.status(), TaskStatus::kPending);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(runs, 2);
}

TEST(TimerCancelAllTest, APeriodicTaskWaitingForItsNextRunEnds) {
  MockTimer mock;
  int runs = 0;
  PeriodicHandle periodic =
      mock.timer()
          .SchedulePeriodic(absl::Seconds(1), [&runs] { ++runs; })
          .value();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(mock.timer().CancelAll(), 1);
  EXPECT_FALSE(periodic.scheduled());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(10)), 0u);
  EXPECT_EQ(runs, 1);
}

TEST(TimerCancelNotificationTest, EachSchedulingEndsInOneRunOrOneNotification) {
  MockTimer mock;
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  // Cancel() of a pending task: told once; a second Cancel() is not.
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  EXPECT_TRUE(mock.timer().Cancel(*task));
  EXPECT_FALSE(mock.timer().Cancel(*task));
  EXPECT_EQ(counts.cancelled.load(), 1);
  // A move is not an end.
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(2)).ok());
  EXPECT_EQ(counts.cancelled.load(), 1);
  // A run is the other end.
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 1u);
  EXPECT_EQ(counts.runs.load(), 1);
  EXPECT_EQ(counts.cancelled.load(), 1);
  // CancelAll() and Shutdown() tell theirs.
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  EXPECT_EQ(mock.timer().CancelAll(), 1);
  EXPECT_EQ(counts.cancelled.load(), 2);
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  std::vector<TaskPtr<TimerTask>> swept = mock.timer().Shutdown();
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(counts.cancelled.load(), 3);
  EXPECT_EQ(counts.runs.load(), 1);
  swept.clear();
  task = nullptr;
  EXPECT_EQ(counts.destroyed.load(), 1);
}

TEST(TimerCancelNotificationTest, ACancelOfAQueuedRunTellsIt) {
  QueuedTimer queued;
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(queued.timer->Add(task, absl::Seconds(1)).ok());
  queued.clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(queued.timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_TRUE(queued.timer->Cancel(*task));  // Taken back from its batch.
  EXPECT_EQ(counts.cancelled.load(), 1);
  queued.executor.RunAll();
  EXPECT_EQ(counts.runs.load(), 0);
}

// Destroys every callback without running it.
class DroppingExecutor final : public Executor {
 public:
  void Execute(Callback callback) override {
    Callback dropped = std::move(callback);
  }
};

TEST(TimerCancelNotificationTest, ABatchTheExecutorDropsTellsItsTasks) {
  ManualClock clock;
  DroppingExecutor executor;
  std::unique_ptr<Timer> timer = MakeManualTimer(clock, executor);
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(timer->Add(task, absl::Seconds(1)).ok());
  clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(counts.cancelled.load(), 1);
  EXPECT_EQ(counts.runs.load(), 0);
  EXPECT_EQ(timer->Metrics().cancelled, 1);
}

// Re-adds itself once from its cancellation notification.
class ReAddOnCancel final : public TimerTask {
 public:
  explicit ReAddOnCancel(Timer* timer) : timer_(timer) {}
  void Run() override { ++runs; }
  void OnCancelled() override {
    ++cancellations;
    if (cancellations == 1) {
      readd = timer_->Add(*this, absl::Seconds(1));
    }
  }
  int runs = 0;
  int cancellations = 0;
  absl::Status readd;

 private:
  Timer* const timer_;
};

TEST(TimerCancelNotificationTest, TheNotificationMayAddTheTaskAgain) {
  MockTimer mock;
  TaskPtr<ReAddOnCancel> task = MakeTask<ReAddOnCancel>(&mock.timer());
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  EXPECT_EQ(mock.timer().CancelAll(), 1);
  EXPECT_TRUE(task->readd.ok()) << task->readd;
  EXPECT_EQ(mock.timer().NumPending(), 1);  // Added after CancelAll's sweep.
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(task->runs, 1);
}

// Throws from its notification.
class ThrowOnCancel final : public TimerTask {
 public:
  void Run() override {}
  void OnCancelled() override { throw 42; }
};

TEST(TimerCancelNotificationTest, AnExceptionIsReportedAndSwallowed) {
  MockTimer mock;
  TaskPtr<ThrowOnCancel> task = MakeTask<ThrowOnCancel>();
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(mock.timer().Cancel(*task));  // Does not throw.
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(report.find("OnCancelled()"), std::string::npos) << report;
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(TimerCancelNotificationTest, AHandleFromPeekNextTellsTheTask) {
  MockTimer mock;
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  TimerHandle handle = mock.timer().PeekNext()->handle;
  EXPECT_TRUE(handle.Cancel());
  EXPECT_EQ(counts.cancelled.load(), 1);
  EXPECT_EQ(handle.status(), TaskStatus::kCancelled);
}

}  // namespace
}  // namespace timingwheel
