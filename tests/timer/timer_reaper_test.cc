// Copyright 2026 The timingwheel Authors.
//
// Behaviour of Timer with its own reaper thread and the default executor on a
// ManualClock: the reaper's sleeps and wake-ups, callbacks off the caller's
// thread, slow callbacks, Shutdown() from a callback and while callbacks are
// in flight. Waits use latches with generous real-time timeouts; nothing
// sleeps to wait for a timer.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/test_sync.h"
#include "timer/testing/manual_clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::Latch;
using ::timingwheel::testing::ManualClock;

constexpr auto kTimeout = std::chrono::seconds(15);

// Polls a metric until `done(metrics)` (the timer's counters have no wait
// primitive); real time, bounded by kTimeout.
template <typename Pred>
bool AwaitMetrics(const Timer& timer, Pred done) {
  const auto deadline = std::chrono::steady_clock::now() + kTimeout;
  while (!done(timer.Metrics())) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

std::unique_ptr<Timer> ReaperTimer(ManualClock& clock,
                                   absl::Duration tick = absl::Milliseconds(1),
                                   int64_t wheel_size = 8) {
  TimerOptions options;
  options.clock = &clock;
  options.tick = tick;
  options.wheel_size = wheel_size;
  return Timer::Create(options).value();
}

TEST(TimerReaperTest, SleepsWithoutTimeoutWhileEmpty) {
  ManualClock clock;
  auto timer = ReaperTimer(clock);
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  clock.AdvanceBy(absl::Hours(1000));
  // Still asleep without a deadline; advancing the clock woke nothing.
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  EXPECT_EQ(timer->Metrics().reaper_wakeups, 0);
}

TEST(TimerReaperTest, WakesOncePerDistinctDueInstant) {
  ManualClock clock;
  auto timer = ReaperTimer(clock);  // 1 ms x 8: levels at 8, 64, 512, 4096.
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  Counter ran;
  // Added in due order, so only the first add lowers the reaper's deadline.
  for (int ms : {10, 10, 10, 25, 25, 40, 5000}) {
    ASSERT_TRUE(
        timer->Schedule(absl::Milliseconds(ms), [&] { ran.Increment(); }).ok());
  }
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(10)));
  EXPECT_EQ(timer->Metrics().reaper_wakeups, 1);  // The first add.
  EXPECT_EQ(ran.value(), 0);

  clock.AdvanceBy(absl::Milliseconds(9));
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(10)));
  clock.AdvanceBy(absl::Milliseconds(1));
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(25)));
  ASSERT_TRUE(ran.AwaitAtLeast(3));
  clock.AdvanceBy(absl::Milliseconds(15));
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(40)));
  ASSERT_TRUE(ran.AwaitAtLeast(5));
  clock.AdvanceBy(absl::Milliseconds(15));
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(5000)));
  ASSERT_TRUE(ran.AwaitAtLeast(6));
  clock.AdvanceBy(absl::Milliseconds(4960));
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  ASSERT_TRUE(ran.AwaitAtLeast(7));
  const TimerMetrics m = timer->Metrics();
  // One for the add and one per distinct due instant (10, 25, 40, 5000):
  // the clock passing 9 ms woke nobody, and the 5 s task ran from its
  // overflow level in the same wake-up that found it due.
  EXPECT_EQ(m.reaper_wakeups, 1 + 4);
  EXPECT_EQ(m.expired, 7);
  EXPECT_EQ(m.pending, 0);
  EXPECT_EQ(ran.value(), 7);
}

TEST(TimerReaperTest, CancelledTimerInItsOwnBucketCostsNoWakeUp) {
  ManualClock clock;
  auto timer = ReaperTimer(clock);
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  Counter ran;
  ASSERT_TRUE(
      timer->Schedule(absl::Milliseconds(10), [&] { ran.Increment(); }).ok());
  TimerHandle later =
      timer->Schedule(absl::Milliseconds(300), [&] { ran.Increment(); })
          .value();
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(10)));
  EXPECT_TRUE(later.Cancel());  // Its bucket is now empty: out of the queue.
  clock.AdvanceBy(absl::Milliseconds(10));
  ASSERT_TRUE(ran.AwaitAtLeast(1));
  // Nothing pending: the reaper sleeps without a deadline, not until 300 ms.
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  clock.AdvanceBy(absl::Milliseconds(300));
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.reaper_wakeups, 2);  // The first add and the 10 ms instant.
  EXPECT_EQ(m.expired, 1);
  EXPECT_EQ(m.cancelled, 1);
  EXPECT_EQ(ran.value(), 1);
}

TEST(TimerReaperTest, ZeroTimeoutAdvanceDoesNotWaitForTheSleepingReaper) {
  // AdvanceClock(0) from another thread returns at once while the reaper
  // sleeps (it used to wait for the reaper's wait to end: here, forever).
  ManualClock clock;
  auto timer = ReaperTimer(clock);
  ASSERT_TRUE(timer->Schedule(absl::Seconds(3), [] {}).ok());
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Seconds(3)));
  EXPECT_FALSE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(timer->NumPending(), 1);
}

TEST(TimerReaperTest, ManyAddsWakeTheReaperRarely) {
  // An add wakes the reaper only when it makes the earliest key earlier:
  // with random delays that happens about log(n) times, plus a few times
  // per large bucket whose early-cascade lead grows (in powers of two).
  ManualClock clock;
  TimerOptions options;
  options.clock = &clock;
  auto timer = Timer::Create(options).value();
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  std::mt19937_64 random(7);
  constexpr int kTimers = 100000;
  for (int i = 0; i < kTimers; ++i) {
    const absl::Duration delay =
        absl::Hours(1) + absl::Nanoseconds(random() % 3'600'000'000'000);
    ASSERT_TRUE(timer->Schedule(delay, [] {}).ok());
  }
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.pending, kTimers);
  EXPECT_LT(m.reaper_wakeups, 200);
  EXPECT_EQ(timer->Shutdown().size(), static_cast<size_t>(kTimers));
}

TEST(TimerReaperTest, CallbacksNeverRunOnTheCallersThread) {
  ManualClock clock;
  for (bool reaper : {false, true}) {
    TimerOptions options;
    options.clock = &clock;
    options.start_reaper = reaper;
    auto timer = Timer::Create(options).value();
    std::mutex mu;
    std::vector<std::thread::id> threads;
    Counter ran;
    for (absl::Duration delay : {absl::ZeroDuration(), absl::Seconds(-1)}) {
      ASSERT_TRUE(timer
                      ->Schedule(delay,
                                 [&] {
                                   {
                                     std::lock_guard<std::mutex> lock(mu);
                                     threads.push_back(
                                         std::this_thread::get_id());
                                   }
                                   ran.Increment();
                                 })
                      .ok());
    }
    if (!reaper) {
      EXPECT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
    }
    ASSERT_TRUE(ran.AwaitAtLeast(2));
    std::lock_guard<std::mutex> lock(mu);
    for (std::thread::id id : threads) {
      EXPECT_NE(id, std::this_thread::get_id()) << "reaper " << reaper;
    }
  }
}

TEST(TimerReaperTest, SlowCallbackBlocksOnlyTheCallbacksBehindIt) {
  ManualClock clock;
  auto timer = ReaperTimer(clock);
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  Latch slow_started;
  Latch release_slow;
  Counter ran;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(10),
                             [&] {
                               slow_started.Open();
                               EXPECT_TRUE(release_slow.Wait());
                               ran.Increment();
                             })
                  .ok());
  for (int ms : {20, 30}) {
    ASSERT_TRUE(
        timer->Schedule(absl::Milliseconds(ms), [&] { ran.Increment(); }).ok());
  }
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(10)));
  clock.AdvanceBy(absl::Milliseconds(10));
  ASSERT_TRUE(slow_started.Wait());
  // The executor is stuck; the reaper goes on: it expires the next tasks
  // at their deadlines and sleeps again each time.
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(20)));
  clock.AdvanceBy(absl::Milliseconds(10));
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(30)));
  EXPECT_EQ(timer->Metrics().expired, 2);
  // Add and cancel are not blocked either.
  TimerHandle extra =
      timer->Schedule(absl::Milliseconds(5), [&] { ran.Increment(); }).value();
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(25)));
  EXPECT_TRUE(extra.Cancel());
  clock.AdvanceBy(absl::Milliseconds(10));
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  EXPECT_EQ(timer->Metrics().expired, 3);
  EXPECT_EQ(ran.value(), 0);  // All queued behind the slow one.
  release_slow.Open();
  ASSERT_TRUE(ran.AwaitAtLeast(3));
  EXPECT_EQ(timer->Metrics().pending, 0);
  EXPECT_EQ(timer->Metrics().cancelled, 1);
}

TEST(TimerReaperTest, ShutdownFromOwnCallbackWithReaper) {
  ManualClock clock;
  auto timer = ReaperTimer(clock);
  Latch done;
  size_t swept = 99;
  int later_runs = 0;
  ASSERT_TRUE(timer->Schedule(absl::Seconds(1), [&] { ++later_runs; }).ok());
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               swept = timer->Shutdown().size();
                               done.Open();
                             })
                  .ok());
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(1)));
  clock.AdvanceBy(absl::Milliseconds(1));
  ASSERT_TRUE(done.Wait());
  EXPECT_EQ(swept, 1u);
  EXPECT_TRUE(timer->Shutdown().empty());  // Joins what is left; idempotent.
  EXPECT_FALSE(timer->Schedule(absl::ZeroDuration(), [] {}).ok());
  clock.AdvanceBy(absl::Seconds(2));
  timer.reset();  // The destructor joins the reaper and the executor.
  EXPECT_EQ(later_runs, 0);
}

TEST(TimerReaperTest, ShutdownFromOwnCallbackWithoutReaper) {
  ManualClock clock;
  TimerOptions options;
  options.clock = &clock;
  options.start_reaper = false;  // Default executor, driven by hand.
  auto timer = Timer::Create(options).value();
  Latch done;
  ASSERT_TRUE(timer
                  ->Schedule(absl::ZeroDuration(),
                             [&] {
                               timer->Shutdown();
                               done.Open();
                             })
                  .ok());
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  ASSERT_TRUE(done.Wait());
  timer.reset();
}

TEST(TimerReaperTest, ShutdownWaitsForCallbacksInFlight) {
  ManualClock clock;
  auto timer = ReaperTimer(clock);
  Latch slow_started;
  Latch release_slow;
  std::atomic<bool> slow_finished{false};
  std::atomic<bool> queued_finished{false};
  std::atomic<int> late_runs{0};
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               slow_started.Open();
                               EXPECT_TRUE(release_slow.Wait());
                               slow_finished = true;
                             })
                  .ok());
  ASSERT_TRUE(
      timer->Schedule(absl::Milliseconds(2), [&] { queued_finished = true; })
          .ok());
  ASSERT_TRUE(timer->Schedule(absl::Hours(1), [&] { ++late_runs; }).ok());
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(1)));
  clock.AdvanceBy(absl::Milliseconds(1));
  ASSERT_TRUE(slow_started.Wait());
  clock.AdvanceBy(absl::Milliseconds(1));  // Hands the second over.
  ASSERT_TRUE(AwaitMetrics(
      *timer, [](const TimerMetrics& m) { return m.expired == 2; }));

  bool slow_done_at_return = false;
  bool queued_done_at_return = false;
  size_t swept = 0;
  std::thread shutdown([&] {
    swept = timer->Shutdown().size();
    slow_done_at_return = slow_finished;
    queued_done_at_return = queued_finished;
  });
  release_slow.Open();
  shutdown.join();
  EXPECT_EQ(swept, 1u);
  EXPECT_TRUE(slow_done_at_return);
  EXPECT_TRUE(queued_done_at_return);
  clock.AdvanceBy(absl::Hours(2));
  EXPECT_EQ(late_runs, 0);
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.cancelled, 1);
  EXPECT_EQ(m.expired, 2);
  EXPECT_EQ(m.pending, 0);
}

TEST(TimerReaperTest, ClockJumpingBackwardsDoesNotWakeEarly) {
  ManualClock clock(1'000'000'000);
  auto timer = ReaperTimer(clock);
  Counter ran;
  std::atomic<int64_t> ran_at{0};
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(50),
                             [&] {
                               ran_at = clock.NowNanos();
                               ran.Increment();
                             })
                  .ok());
  ASSERT_TRUE(clock.AwaitSleeper(1'050'000'000));
  clock.SetNanos(500'000'000);  // Before the timer's origin.
  clock.SetNanos(1'049'999'999);
  ASSERT_TRUE(clock.AwaitSleeper(1'050'000'000));
  EXPECT_EQ(ran.value(), 0);
  clock.SetNanos(1'050'000'000);
  ASSERT_TRUE(ran.AwaitAtLeast(1));
  EXPECT_EQ(ran_at, 1'050'000'000);
}

TEST(TimerReaperTest, NegativeClockReadings) {
  // A clock's origin is arbitrary: readings may be negative.
  ManualClock clock(-1'000'000'000);
  auto timer = ReaperTimer(clock);
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  Counter ran;
  ASSERT_TRUE(
      timer->Schedule(absl::Milliseconds(5), [&] { ran.Increment(); }).ok());
  ASSERT_TRUE(clock.AwaitSleeper(-995'000'000));
  clock.AdvanceBy(absl::Milliseconds(5));
  ASSERT_TRUE(ran.AwaitAtLeast(1));
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  EXPECT_EQ(timer->Metrics().expired, 1);
}

}  // namespace
}  // namespace timingwheel
