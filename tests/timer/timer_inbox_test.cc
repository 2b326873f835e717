// Copyright 2026 The timingwheel Authors.
//
// Producer inboxes (timer.h, "Producer inboxes"; timer/internal/inbox.h):
// a Schedule()/Add() due no earlier than the published floor is buffered
// without the lock and placed at the next drain. Deterministic tests with
// the manual clock for the drain points, cancel of a buffered task,
// per-thread order and Shutdown(); real-thread tests for the lost wake-up
// (the Dekker pair between a producer and the sleeping reaper) and for
// exactly-once under concurrent schedules and cancels, with bounded waits.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "tests/timer/fn_task.h"
#include "tests/timer/manual_timer.h"
#include "tests/timer/probe_task.h"
#include "tests/timer/test_sync.h"
#include "timer/internal/inbox.h"
#include "timer/internal/test_hooks.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::kTestWaitTimeout;
using ::timingwheel::testing::MakeManualTimer;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::ManualExecutor;
using ::timingwheel::testing::MockTimer;

using ::timingwheel::testing::FnTask;
using ::timingwheel::testing::ProbeTask;

TEST(TimerInboxTest, CancelOfABufferedTaskReleasesItAndItNeverRuns) {
  MockTimer mock;
  auto token = std::make_shared<int>(0);
  bool ran = false;
  TimerHandle handle =
      mock.timer()
          .Schedule(absl::Seconds(1), [token, &ran] { ran = true; })
          .value();
  EXPECT_TRUE(handle.pending());
  EXPECT_TRUE(handle.Cancel());
  EXPECT_FALSE(handle.Cancel());  // Exactly once.
  EXPECT_FALSE(handle.pending());
  handle = TimerHandle();
  // Released inside Cancel(), as a pending task's captures are.
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  const TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.added, 1);
  EXPECT_EQ(metrics.cancelled, 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 0u);
  EXPECT_FALSE(ran);
}

// Set by the test below for the hook, which is a plain function pointer.
Timer* hook_timer = nullptr;
const TimerTask* hook_task = nullptr;
int32_t hook_refs_after_other_drain = 0;

// Runs between the canceller's revoking CAS and its own drain: another
// thread's drain takes the revoked task first.
void DrainOnAnotherThreadFirst() {
  std::thread([] { hook_timer->NumPending(); }).join();
  hook_refs_after_other_drain = internal::TaskTestPeer::Refs(*hook_task);
}

TEST(TimerInboxTest, CancelReleasesCapturesWhenAnotherDrainTookTheTask) {
  MockTimer mock;
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());  // Buffered.
  ASSERT_EQ(internal::TaskTestPeer::Refs(*task), 2);  // Ours, the inbox's.
  hook_timer = &mock.timer();
  hook_task = task.get();
  hook_refs_after_other_drain = 0;
  internal::TimerTestHooks::after_revoke.store(&DrainOnAnotherThreadFirst);
  const bool cancelled = mock.timer().Cancel(*task);
  internal::TimerTestHooks::after_revoke.store(nullptr);
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(hook_refs_after_other_drain, 2)
      << "another thread's drain released a task it did not revoke";
  EXPECT_EQ(internal::TaskTestPeer::Refs(*task), 1)
      << "the inbox's reference (and the captures) outlived Cancel()";
  EXPECT_EQ(counts.cancelled.load(), 1);
  EXPECT_EQ(counts.runs.load(), 0);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  EXPECT_EQ(mock.timer().Metrics().cancelled, 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 0u);
  task = nullptr;
  EXPECT_EQ(counts.destroyed.load(), 1);
}

TEST(TimerInboxTest, HandleCancelReleasesCapturesWhenAnotherDrainTookIt) {
  MockTimer mock;
  auto token = std::make_shared<int>(0);
  std::weak_ptr<int> weak = token;
  TimerHandle handle =
      mock.timer()
          .Schedule(absl::Seconds(1), [token = std::move(token)] {})
          .value();
  static TimerHandle* hook_handle_copy = nullptr;
  static std::weak_ptr<int>* hook_weak = nullptr;
  static bool hook_alive = false;
  TimerHandle copy = handle;
  hook_handle_copy = &copy;
  hook_weak = &weak;
  hook_timer = &mock.timer();
  hook_alive = false;
  internal::TimerTestHooks::after_revoke.store(+[] {
    *hook_handle_copy = TimerHandle();  // One of two handle references.
    std::thread([] { hook_timer->NumPending(); }).join();
    hook_alive = !hook_weak->expired();
  });
  const bool cancelled = handle.Cancel();
  internal::TimerTestHooks::after_revoke.store(nullptr);
  EXPECT_TRUE(cancelled);
  EXPECT_TRUE(hook_alive);  // The handle still holds the task.
  EXPECT_EQ(handle.status(), TaskStatus::kCancelled);
  handle = TimerHandle();
  EXPECT_TRUE(weak.expired()) << "the inbox's reference outlived Cancel()";
}

TEST(TimerInboxTest, BufferedTaskRunsAtItsDueTimeNeverEarly) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Seconds(3), [&runs] { ++runs; }).value();
  // Every drain point sees the buffered task.
  EXPECT_EQ(handle.TimeRemaining(), absl::Seconds(3));
  EXPECT_EQ(mock.timer().NextDueIn(), absl::Seconds(3));
  EXPECT_EQ(mock.timer().Metrics().pending, 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(3) - absl::Nanoseconds(1)), 0u);
  EXPECT_EQ(mock.AdvanceBy(absl::Nanoseconds(1)), 1u);
  EXPECT_EQ(runs, 1);
}

TEST(TimerInboxTest, ADrainInsideAdvanceClockPlacesBufferedTasks) {
  MockTimer mock;
  int runs = 0;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        mock.timer().Schedule(absl::Milliseconds(5), [&runs] { ++runs; }).ok());
  }
  // No NumPending()/NextDueIn() first: AdvanceClock() drains by itself.
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(5)), 10u);
  EXPECT_EQ(runs, 10);
}

TEST(TimerInboxTest, OneThreadsTasksForTheSameInstantRunInAddOrder) {
  MockTimer mock;
  std::vector<int> order;
  auto add = [&](int i) {
    ASSERT_TRUE(
        mock.timer()
            .Schedule(absl::Seconds(1), [&order, i] { order.push_back(i); })
            .ok());
  };
  for (int i = 0; i < 5; ++i) add(i);  // Buffered.
  // A locked add (AddAt) between: the thread's stripe goes first.
  TaskPtr<TimerTask> locked =
      MakeTask<FnTask>([&order] { order.push_back(5); });
  ASSERT_TRUE(
      mock.timer().AddAt(locked, mock.timer().Now() + absl::Seconds(1)).ok());
  for (int i = 6; i < 200; ++i) add(i);  // Across stripe drains.
  mock.AdvanceBy(absl::Seconds(1));
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(TimerInboxTest, RescheduleAndReAddOfABufferedTaskMoveIt) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Seconds(1), [&runs] { ++runs; }).value();
  EXPECT_EQ(handle.Reschedule(absl::Seconds(5)), RescheduleResult::kMoved);
  TaskPtr<TimerTask> task = MakeTask<FnTask>([&runs] { ++runs; });
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());  // Buffered.
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(2)).ok());  // Moved.
  EXPECT_EQ(mock.timer().Metrics().pending, 2);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 0u);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(3)), 1u);
  EXPECT_EQ(runs, 2);
  // Cancelled while buffered, then added again: runs once.
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  EXPECT_TRUE(mock.timer().Cancel(*task));
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(1)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(runs, 3);
}

TEST(TimerInboxTest, ShutdownSweepsBufferedTasksAndReleasesCancelledOnes) {
  MockTimer mock;
  auto token = std::make_shared<int>(0);
  std::vector<TimerHandle> handles;
  for (int i = 0; i < 5; ++i) {
    handles.push_back(
        mock.timer().Schedule(absl::Seconds(1), [token] {}).value());
  }
  EXPECT_TRUE(handles[1].Cancel());
  EXPECT_TRUE(handles[3].Cancel());
  handles.clear();
  std::vector<TaskPtr<TimerTask>> swept = mock.timer().Shutdown();
  EXPECT_EQ(swept.size(), 3u);
  EXPECT_EQ(token.use_count(), 4);  // The three swept tasks.
  swept.clear();
  EXPECT_EQ(token.use_count(), 1);
  const TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.added, 5);
  EXPECT_EQ(metrics.cancelled, 5);
  EXPECT_EQ(metrics.pending, 0);
}

TEST(TimerInboxTest, ASleeperDrainsBeforeItSleeps) {
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer = MakeManualTimer(clock, executor);
  Counter runs;
  // Nobody sleeps: the floor admits everything, and this is buffered.
  ASSERT_TRUE(
      timer->Schedule(absl::Seconds(2), [&runs] { runs.Increment(); }).ok());
  std::atomic<bool> flushed{false};
  std::thread sleeper(
      [&] { flushed = timer->AdvanceClock(absl::Seconds(10)); });
  // It must sleep until the buffered task's due time, not its timeout.
  EXPECT_TRUE(clock.AwaitSleeperAt(absl::Seconds(2)));
  clock.AdvanceBy(absl::Seconds(2));
  sleeper.join();
  EXPECT_TRUE(flushed.load());
  executor.RunAll();
  EXPECT_EQ(runs.value(), 1);
}

TEST(TimerInboxTest, AnAddBeforeTheSleepersDeadlineWakesIt) {
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer = MakeManualTimer(clock, executor);
  Counter runs;
  std::thread sleeper([&] { timer->AdvanceClock(absl::Seconds(10)); });
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Seconds(10)));
  ASSERT_TRUE(
      timer->Schedule(absl::Seconds(1), [&runs] { runs.Increment(); }).ok());
  EXPECT_TRUE(clock.AwaitSleeperAt(absl::Seconds(1)));
  // Due after the sleeper's deadline: buffered, and the sleeper stays.
  ASSERT_TRUE(
      timer->Schedule(absl::Seconds(20), [&runs] { runs.Increment(); }).ok());
  clock.AdvanceBy(absl::Seconds(1));
  sleeper.join();
  executor.RunAll();
  EXPECT_EQ(runs.value(), 1);
  EXPECT_EQ(timer->NextDueIn(), absl::Seconds(19));
}

// The two halves of the Dekker pair, interleaved deterministically with the
// inbox's test hooks. A producer passes its floor check while nobody
// sleeps; before it pushes, a sleeper publishes a later deadline and finds
// the inbox empty: the producer's second look at the floor must wake it.
Timer* hooked_timer = nullptr;
ManualClock* hooked_clock = nullptr;
std::thread* hooked_sleeper = nullptr;

TEST(TimerInboxTest, AProducerThatPushesAfterTheSleepersLookWakesIt) {
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer = MakeManualTimer(clock, executor);
  std::thread sleeper;
  hooked_timer = timer.get();
  hooked_clock = &clock;
  hooked_sleeper = &sleeper;
  internal::Inbox::hooks_for_testing.before_push = [] {
    internal::Inbox::hooks_for_testing.before_push = nullptr;  // Once.
    *hooked_sleeper =
        std::thread([] { hooked_timer->AdvanceClock(absl::Seconds(10)); });
    // Asleep until its timeout: it saw no task.
    ASSERT_TRUE(hooked_clock->AwaitSleeperAt(absl::Seconds(10)));
  };
  Counter runs;
  ASSERT_TRUE(
      timer->Schedule(absl::Seconds(1), [&runs] { runs.Increment(); }).ok());
  internal::Inbox::hooks_for_testing.before_push = nullptr;
  ASSERT_TRUE(sleeper.joinable());
  // Woken by the producer, it sleeps until the task instead.
  EXPECT_TRUE(clock.AwaitSleeperAt(absl::Seconds(1), absl::Seconds(3)));
  clock.AdvanceBy(absl::Seconds(10));
  sleeper.join();
  executor.RunAll();
  EXPECT_EQ(runs.value(), 1);
}

// The other half: a task pushed after the sleeper's drain but checked by
// its producer against the old floor must be seen by the sleeper's second
// look, after it published its deadline.
TEST(TimerInboxTest, ATaskPushedBetweenTheDrainAndTheSleepIsSeen) {
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer = MakeManualTimer(clock, executor);
  hooked_timer = timer.get();
  static Counter* runs = nullptr;
  Counter counter;
  runs = &counter;
  // On the sleeper's thread, under the timer's lock, right after its drain:
  // a push needs no lock, and the floor (nobody slept yet) admits it.
  internal::Inbox::hooks_for_testing.after_take_all = [] {
    internal::Inbox::hooks_for_testing.after_take_all = nullptr;  // Once.
    ASSERT_TRUE(
        hooked_timer->Schedule(absl::Seconds(1), [] { runs->Increment(); })
            .ok());
  };
  std::thread sleeper([&] { timer->AdvanceClock(absl::Seconds(10)); });
  EXPECT_TRUE(clock.AwaitSleeperAt(absl::Seconds(1), absl::Seconds(3)));
  internal::Inbox::hooks_for_testing.after_take_all = nullptr;
  clock.AdvanceBy(absl::Seconds(10));
  sleeper.join();
  executor.RunAll();
  EXPECT_EQ(counter.value(), 1);
}

// Shutdown() between a producer's floor check and its push: the push comes
// after Shutdown()'s drain, so the add is refused and the task released.
TEST(TimerInboxTest, AnAddWhosePushFollowsShutdownIsRefusedAndReleased) {
  MockTimer mock;
  hooked_timer = &mock.timer();
  static size_t swept = 0;
  internal::Inbox::hooks_for_testing.before_push = [] {
    internal::Inbox::hooks_for_testing.before_push = nullptr;  // Once.
    swept = hooked_timer->Shutdown().size();
  };
  auto token = std::make_shared<int>(0);
  absl::StatusOr<TimerHandle> handle =
      mock.timer().Schedule(absl::Seconds(1), [token] {});
  internal::Inbox::hooks_for_testing.before_push = nullptr;
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(swept, 0u);
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_EQ(mock.timer().Metrics().added, 0);
}

// The Dekker pair on real threads: producers schedule short timers while
// the reaper keeps going to sleep and waking; each producer waits (bounded)
// for its own task. A lost wake-up leaves a task buffered while the reaper
// sleeps for good (nothing else pending): the wait fails.
TEST(TimerInboxTest, NoLostWakeUpBetweenProducersAndTheReaper) {
  std::unique_ptr<Timer> timer = Timer::Create().value();
  constexpr int kThreads = 3;
  constexpr int kRounds = 1500;
  std::atomic<int> failures{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t) + 1);
      for (int round = 0; round < kRounds && failures.load() == 0; ++round) {
        Counter done;
        const absl::Duration delay =
            absl::Microseconds(static_cast<int64_t>(rng() % 200));
        if (!timer->Schedule(delay, [&done] { done.Increment(); }).ok()) {
          ++failures;
          break;
        }
        if (!done.AwaitAtLeast(1, std::chrono::seconds(5))) ++failures;
      }
    });
  }
  for (std::thread& producer : producers) producer.join();
  EXPECT_EQ(failures.load(), 0);
}

// Exactly once under concurrent schedules and cancels (many of them of
// buffered tasks): every task runs or is cancelled, never both, never lost.
TEST(TimerInboxTest, ExactlyOnceWithConcurrentSchedulesAndCancels) {
  std::unique_ptr<Timer> timer = Timer::Create().value();
  constexpr int kThreads = 3;
  constexpr int kPerThread = 4000;
  std::atomic<int64_t> ran{0};
  std::atomic<int64_t> cancelled{0};
  std::atomic<int64_t> twice{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t) + 7);
      std::vector<TimerHandle> handles;
      for (int i = 0; i < kPerThread; ++i) {
        auto flag = std::make_shared<std::atomic<bool>>(false);
        auto handle = timer->Schedule(
            absl::Microseconds(static_cast<int64_t>(rng() % 3000)),
            [flag, &ran, &twice] {
              if (flag->exchange(true)) ++twice;
              ++ran;
            });
        ASSERT_TRUE(handle.ok());
        handles.push_back(*std::move(handle));
        if (rng() % 2 == 0) {
          // Cancel a recent one (often still buffered) or an older one.
          const size_t back = std::min<size_t>(handles.size(), rng() % 8 + 1);
          if (handles[handles.size() - back].Cancel()) ++cancelled;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const int64_t total = int64_t{kThreads} * kPerThread;
  const auto deadline = std::chrono::steady_clock::now() + kTestWaitTimeout;
  while (ran.load() + cancelled.load() < total &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(ran.load() + cancelled.load(), total);
  EXPECT_EQ(twice.load(), 0);
  const TimerMetrics metrics = timer->Metrics();
  EXPECT_EQ(metrics.added, total);
  EXPECT_EQ(metrics.cancelled, cancelled.load());
  EXPECT_EQ(metrics.pending, 0);
}

// Shutdown() racing producers: every Schedule() that succeeded is either
// run or returned by Shutdown() (or was cancelled), none lost, none twice.
TEST(TimerInboxTest, ShutdownRacingProducersLosesNothing) {
  for (int trial = 0; trial < 20; ++trial) {
    std::unique_ptr<Timer> timer = Timer::Create().value();
    std::atomic<int64_t> accepted{0};
    std::atomic<int64_t> ran{0};
    std::vector<std::thread> threads;
    std::atomic<bool> go{false};
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&] {
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < 5000; ++i) {
          if (!timer->Schedule(absl::Hours(1), [&ran] { ++ran; }).ok()) break;
          ++accepted;
        }
      });
    }
    go = true;
    std::this_thread::sleep_for(std::chrono::microseconds(100 * trial));
    const size_t swept = timer->Shutdown().size();
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(static_cast<int64_t>(swept), accepted.load());
    EXPECT_EQ(ran.load(), 0);
    EXPECT_EQ(timer->Metrics().added, accepted.load());
  }
}

TEST(TimerInboxTest, OffByOptionEveryAddLocks) {
  TimerOptions options;
  options.producer_inboxes = false;
  MockTimer mock(options);
  auto token = std::make_shared<int>(0);
  TimerHandle handle =
      mock.timer().Schedule(absl::Seconds(1), [token] {}).value();
  EXPECT_TRUE(handle.Cancel());
  handle = TimerHandle();
  EXPECT_EQ(token.use_count(), 1);  // Released inside Cancel().
}

}  // namespace
}  // namespace timingwheel
