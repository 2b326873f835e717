// Copyright 2026 The timingwheel Authors.
//
// The producer inboxes where a buffered task races another path: a handle's
// Reschedule()/RescheduleAt() keeps timer.h's per-thread order behind a task
// the same thread buffered before it for the same instant (it drains the
// thread's stripe first); a lock-free add of a task races the unlink of a
// locked Cancel() of it (run under TSan: Cancel() unlinks before the state
// goes idle); and tasks scheduled from other threads while the reaper runs
// a long callback are run by the standby before that callback ends.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "tests/timer/fn_task.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MockTimer;

using ::timingwheel::testing::FnTask;

// timer.h: "per-thread order (tasks one thread adds for the same instant
// run in the order added) hold[s] as for locked adds". A handle's
// Reschedule() adds under the lock without draining the thread's stripe
// first, so it overtakes a task the same thread buffered before it.
TEST(TimerInboxRacesTest, RescheduleAfterABufferedAddKeepsPerThreadOrder) {
  MockTimer mock;
  std::vector<int> order;
  TimerHandle second =
      mock.timer()
          .Schedule(absl::Seconds(100), [&order] { order.push_back(2); })
          .value();
  EXPECT_EQ(mock.timer().NumPending(), 1);  // Drained: in the wheel.
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Seconds(1), [&order] { order.push_back(1); })
                  .ok());  // Buffered.
  // Added after the first, for the same instant.
  EXPECT_EQ(second.Reschedule(absl::Seconds(1)), RescheduleResult::kMoved);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 2u);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
}

// The same with RescheduleAt().
TEST(TimerInboxRacesTest, RescheduleAtAfterABufferedAddKeepsPerThreadOrder) {
  MockTimer mock;
  std::vector<int> order;
  TimerHandle second =
      mock.timer()
          .Schedule(absl::Seconds(100), [&order] { order.push_back(2); })
          .value();
  EXPECT_EQ(mock.timer().NumPending(), 1);
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Seconds(1), [&order] { order.push_back(1); })
                  .ok());
  EXPECT_EQ(second.RescheduleAt(mock.timer().Now() + absl::Seconds(1)),
            RescheduleResult::kMoved);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 2u);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
}

// Two threads add (and cancel) the same pre-made task while a third drains:
// the task is never in an inbox twice nor in the wheel and an inbox at
// once; afterwards it is idle and runs exactly once when added again.
TEST(TimerInboxRacesTest, ConcurrentAddsAndCancelsOfOneTaskStayConsistent) {
  MockTimer mock;
  std::atomic<int> runs{0};
  TaskPtr<TimerTask> task = MakeTask<FnTask>([&runs] { ++runs; });
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&mock, &task, t] {
      for (int i = 0; i < 3000; ++i) {
        EXPECT_TRUE(
            mock.timer().Add(task, absl::Seconds(1 + (i + t) % 3)).ok());
        if (i % 2 == t) mock.timer().Cancel(*task);
      }
    });
  }
  std::thread viewer([&mock, &stop] {
    while (!stop.load()) {
      const int64_t pending = mock.timer().NumPending();
      EXPECT_GE(pending, 0);
      EXPECT_LE(pending, 1);
    }
  });
  ::timingwheel::testing::RunWithin("the adders and the viewer", [&] {
    for (std::thread& thread : threads) thread.join();
    stop = true;
    viewer.join();
  });
  mock.timer().Cancel(*task);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  EXPECT_EQ(runs.load(), 0);  // The clock never moved.
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  EXPECT_EQ(mock.timer().NumPending(), 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5)), 1u);
  EXPECT_EQ(runs.load(), 1);
  const TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.pending, 0);
  // Moves count as adds too: at least one more add than cancels.
  EXPECT_GE(metrics.added, metrics.cancelled + 1);
}

// A locked Cancel() of a pending task makes its state idle (CAS) before it
// unlinks the task from the wheel; a lock-free Add() on another thread
// that sees it idle pushes it onto an inbox, writing its link while the
// cancelling thread still unlinks it (TSan: data race in Inbox::Push vs
// TimingWheel::Unlink). Without TSan the wheel's bucket list can take the
// inbox's nodes: other tasks of the bucket must still run exactly once.
TEST(TimerInboxRacesTest, LockFreeAddRacesTheUnlinkOfALockedCancel) {
  MockTimer mock;
  std::atomic<int> runs{0};
  std::atomic<int> bystander_runs{0};
  TaskPtr<TimerTask> task = MakeTask<FnTask>([&runs] { ++runs; });
  std::vector<TimerHandle> bystanders;
  for (int i = 0; i < 8; ++i) {
    bystanders.push_back(
        mock.timer()
            .Schedule(absl::Seconds(1), [&bystander_runs] { ++bystander_runs; })
            .value());
  }
  EXPECT_EQ(mock.timer().NumPending(), 8);  // In the wheel's bucket.
  std::atomic<bool> stop{false};
  std::thread adder([&] {
    for (int i = 0; i < 200000 && !stop.load(); ++i) {
      mock.timer().Add(task, absl::Seconds(1)).IgnoreError();
      if (i % 64 == 0) mock.timer().NumPending();  // Into the wheel.
    }
  });
  std::thread canceller([&] {
    for (int i = 0; i < 200000 && !stop.load(); ++i) mock.timer().Cancel(*task);
  });
  ::timingwheel::testing::RunWithin("the adder and the canceller", [&] {
    adder.join();
    canceller.join();
  });
  mock.timer().Cancel(*task);
  EXPECT_EQ(mock.timer().NumPending(), 8);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 8u);
  EXPECT_EQ(bystander_runs.load(), 8);
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

// docs/adopting.md, "Where callbacks run": with the reaper and the real clock,
// the standby thread takes over and runs the next due tasks if a callback is
// still running when they are due. Tasks scheduled from other threads while
// the reaper is inside a long callback (the inbox is closed then: they take
// the lock and re-arm the standby) must run before that callback ends: the
// long callback waits for them (bounded) and fails if they never came.
void StandbyRunsTasksScheduledDuringALongCallback(bool inboxes) {
  TimerOptions options;
  options.producer_inboxes = inboxes;
  std::unique_ptr<Timer> timer = Timer::Create(options).value();
  constexpr int kTasks = 20;
  std::atomic<int> short_runs{0};
  std::atomic<bool> long_started{false};
  std::atomic<bool> long_saw_all{false};
  std::atomic<bool> long_done{false};
  ASSERT_TRUE(
      timer
          ->Schedule(
              absl::Milliseconds(1),
              [&] {
                long_started = true;
                const auto deadline =
                    std::chrono::steady_clock::now() + std::chrono::seconds(15);
                while (short_runs.load() < kTasks &&
                       std::chrono::steady_clock::now() < deadline) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                long_saw_all = short_runs.load() == kTasks;
                long_done = true;
              })
          .ok());
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!long_started.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(long_started.load());
  std::vector<std::thread> producers;
  for (int t = 0; t < 2; ++t) {
    producers.emplace_back([&timer, &short_runs, t] {
      for (int i = 0; i < kTasks / 2; ++i) {
        ASSERT_TRUE(timer
                        ->Schedule(absl::Milliseconds(1 + (i + t) % 5),
                                   [&short_runs] { ++short_runs; })
                        .ok());
      }
    });
  }
  for (std::thread& producer : producers) producer.join();
  // Shutdown() cancels what is still pending: wait (bounded by the long
  // callback's own deadline) for the long callback to end first.
  const auto done_deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!long_done.load() &&
         std::chrono::steady_clock::now() < done_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  timer.reset();
  EXPECT_TRUE(long_saw_all.load())
      << "short tasks ran: " << short_runs.load() << " of " << kTasks;
}

TEST(TimerInboxRacesTest, StandbyRunsTasksScheduledDuringALongCallback) {
  StandbyRunsTasksScheduledDuringALongCallback(/*inboxes=*/true);
}

TEST(TimerInboxRacesTest, StandbyRunsTasksScheduledDuringALongCallbackLocked) {
  StandbyRunsTasksScheduledDuringALongCallback(/*inboxes=*/false);
}

}  // namespace
}  // namespace timingwheel
