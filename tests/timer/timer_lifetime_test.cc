// Copyright 2026 The timingwheel Authors.
//
// Lifetimes and ownership at the timer's edges:
// a handle that outlives its timer, a task not made with MakeTask(), one task
// offered to two timers, and an executor that drops the timer's batches.
// Deterministic (manual clock and executors). Memory errors that ASan cannot
// see (a mutex locked in freed memory) are caught by running this binary
// under valgrind (.ci/jobs.d/valgrind-lifetimes).

#include "absl/time/time.h"

#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "tests/timer/manual_timer.h"
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
using ::timingwheel::testing::RunWithin;

// A task that counts its runs and its destruction.
class CountingTask : public TimerTask {
 public:
  explicit CountingTask(std::atomic<int>* destroyed = nullptr)
      : destroyed_(destroyed) {}
  ~CountingTask() override {
    if (destroyed_ != nullptr) ++*destroyed_;
  }
  void Run() override { ++runs; }
  std::atomic<int> runs{0};

 private:
  std::atomic<int>* const destroyed_;
};

// An object that cancels its timer in its destructor (a connection that
// owns its idle timeout), the pattern that outlives a timer by accident.
class Connection {
 public:
  explicit Connection(TimerHandle idle) : idle_(std::move(idle)) {}
  ~Connection() { cancelled_at_exit_ = idle_.Cancel(); }
  static bool cancelled_at_exit_;

 private:
  TimerHandle idle_;
};
bool Connection::cancelled_at_exit_ = true;

TEST(TimerLifetimeTest, HandleOutlivingItsTimerIsHarmless) {
  TimerHandle pending;
  TimerHandle ran;
  std::unique_ptr<Connection> connection;
  {
    MockTimer mock;
    pending = mock.timer().Schedule(absl::Hours(1), [] {}).value();
    ran = mock.timer().Schedule(absl::Seconds(1), [] {}).value();
    connection = std::make_unique<Connection>(
        mock.timer().Schedule(absl::Minutes(5), [] {}).value());
    EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
    EXPECT_TRUE(pending.pending());
  }  // The timer (and its clock and executor) are destroyed here.
  TimerHandle copy = pending;
  EXPECT_FALSE(pending.pending());
  EXPECT_FALSE(pending.Cancel());
  EXPECT_FALSE(copy.Cancel());
  EXPECT_FALSE(ran.Cancel());
  connection.reset();
  EXPECT_FALSE(Connection::cancelled_at_exit_);
}

TEST(TimerLifetimeTest, HandleCancelsUntilTheTimerIsGone) {
  auto mock = std::make_unique<MockTimer>();
  TimerHandle handle = mock->timer().Schedule(absl::Seconds(1), [] {}).value();
  TimerHandle copy = handle;
  EXPECT_TRUE(copy.Cancel());
  EXPECT_FALSE(handle.Cancel());
  EXPECT_EQ(mock->timer().Metrics().cancelled, 1);
  mock.reset();
  EXPECT_FALSE(handle.Cancel());
}

// A task on the stack: its destructor is public, as any subclass's may be.
class StackTask final : public TimerTask {
 public:
  void Run() override { ++runs; }
  int runs = 0;
};

TEST(TimerLifetimeTest, AddRefusesATaskNotMadeWithMakeTask) {
  MockTimer mock;
  StackTask on_stack;
  const absl::Status status = mock.timer().Add(on_stack, absl::Seconds(1));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find("MakeTask"), absl::string_view::npos)
      << status;
  EXPECT_FALSE(mock.timer().Cancel(on_stack));
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 0u);
  EXPECT_EQ(on_stack.runs, 0);
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.added, 0);
  EXPECT_EQ(m.pending, 0);
}

TEST(TimerLifetimeTest, ATaskPendingInOneTimerIsRefusedByAnother) {
  MockTimer a;
  MockTimer b;
  auto shared = MakeTask<CountingTask>();
  auto b_own = MakeTask<CountingTask>();
  ASSERT_TRUE(b.timer().Add(b_own, absl::Seconds(1)).ok());
  ASSERT_TRUE(a.timer().Add(shared, absl::Seconds(1)).ok());

  const absl::Status status = b.timer().Add(shared, absl::Seconds(1));
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_FALSE(b.timer().Cancel(*shared));
  EXPECT_EQ(b.timer().NumPending(), 1);
  EXPECT_EQ(a.timer().NumPending(), 1);

  // Neither timer is corrupted: each runs its own task once.
  EXPECT_EQ(b.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(b_own->runs, 1);
  EXPECT_EQ(shared->runs, 0);
  EXPECT_EQ(a.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(shared->runs, 1);

  // Once it ran, the task is free to join the other timer.
  ASSERT_TRUE(b.timer().Add(shared, absl::Seconds(1)).ok());
  EXPECT_EQ(b.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(shared->runs, 2);
  EXPECT_EQ(a.timer().Metrics().pending, 0);
  EXPECT_EQ(b.timer().Metrics().pending, 0);
}

TEST(TimerLifetimeTest, ATaskQueuedInOneTimerIsRefusedByAnother) {
  ManualClock clock;
  ManualExecutor executor;
  auto a = MakeManualTimer(clock, executor);
  MockTimer b;
  auto shared = MakeTask<CountingTask>();
  ASSERT_TRUE(a->Add(shared, absl::ZeroDuration()).ok());
  ASSERT_TRUE(a->AdvanceClock(absl::ZeroDuration()));  // Handed over.
  EXPECT_TRUE(
      absl::IsFailedPrecondition(b.timer().Add(shared, absl::ZeroDuration())));
  EXPECT_FALSE(b.timer().Cancel(*shared));
  EXPECT_EQ(executor.RunAll(), 1u);
  EXPECT_EQ(shared->runs, 1);
  EXPECT_TRUE(b.timer().Add(shared, absl::ZeroDuration()).ok());
  EXPECT_EQ(b.RunDue(), 1u);
  EXPECT_EQ(shared->runs, 2);
}

TEST(TimerLifetimeTest, ShutdownReleasesTasksToOtherTimers) {
  MockTimer a;
  MockTimer b;
  auto shared = MakeTask<CountingTask>();
  ASSERT_TRUE(a.timer().Add(shared, absl::Seconds(1)).ok());
  EXPECT_EQ(a.timer().Shutdown().size(), 1u);
  ASSERT_TRUE(b.timer().Add(shared, absl::Seconds(1)).ok());
  EXPECT_EQ(b.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(shared->runs, 1);
}

// An executor that drops every callback (destroys it unrun), as a full
// queue or an executor that is shutting down does.
class DroppingExecutor final : public Executor {
 public:
  void Execute(Callback callback) override {
    ++dropped;
    Callback gone = std::move(callback);
  }
  std::atomic<int> dropped{0};
};

TEST(TimerLifetimeTest, BatchesAnExecutorDropsAreCancelledNotAwaited) {
  ManualClock clock;
  DroppingExecutor executor;
  auto timer = MakeManualTimer(clock, executor);
  std::atomic<int> destroyed{0};
  std::vector<TaskPtr<CountingTask>> tasks;
  for (int i = 0; i < 3; ++i) {
    tasks.push_back(MakeTask<CountingTask>(&destroyed));
    ASSERT_TRUE(timer->Add(tasks.back(), absl::Milliseconds(i)).ok());
  }
  TimerHandle handle =
      timer->Schedule(absl::Milliseconds(1), [] { FAIL(); }).value();
  clock.AdvanceBy(absl::Milliseconds(5));
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_GE(executor.dropped.load(), 1);
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.cancelled, 4);
  EXPECT_EQ(m.expired, 0);
  EXPECT_EQ(m.pending, 0);
  EXPECT_FALSE(handle.pending());
  EXPECT_FALSE(handle.Cancel());
  for (const auto& task : tasks) EXPECT_EQ(task->runs, 0);
  // The timer let go of its references: only ours keep the tasks alive.
  tasks.clear();
  EXPECT_EQ(destroyed, 3);
  RunWithin("Timer::Shutdown() after dropped batches",
            [&] { timer->Shutdown(); });
  RunWithin("~Timer() after dropped batches", [&] { timer.reset(); });
}

TEST(TimerLifetimeTest, AThreadExecutorShutDownFirstDoesNotHangTheTimer) {
  ManualClock clock;
  ThreadExecutor executor;
  executor.Shutdown();  // From now on it drops what it is given.
  auto timer = MakeManualTimer(clock, executor);
  std::atomic<int> destroyed{0};
  auto task = MakeTask<CountingTask>(&destroyed);
  ASSERT_TRUE(timer->Add(task, absl::ZeroDuration()).ok());
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  RunWithin("Timer::Shutdown() with a stopped ThreadExecutor",
            [&] { timer->Shutdown(); });
  EXPECT_EQ(task->runs, 0);
  EXPECT_EQ(timer->Metrics().cancelled, 1);
  // Released: the task can go into another timer.
  MockTimer other;
  ASSERT_TRUE(other.timer().Add(task, absl::ZeroDuration()).ok());
  EXPECT_EQ(other.RunDue(), 1u);
  RunWithin("~Timer() with a stopped ThreadExecutor", [&] { timer.reset(); });
  task = nullptr;
  EXPECT_EQ(destroyed, 1);
}

}  // namespace
}  // namespace timingwheel
