// Copyright 2026 The timingwheel Authors.
//
// The entry points beyond Schedule/Add/Cancel (Reschedule(), AddAt(),
// AddBatch(), periodic tasks) under races (meant for --config=tsan): a handle
// rescheduled and cancelled from two threads while the reaper fires it on a
// thread pool, and periodic tasks cancelled from another thread and from
// inside their callback while they run on a pool. The clock is a
// ManualClock that a driver thread advances, so nothing sleeps; every wait
// is bounded. Checked: exactly once (each scheduling ends as one run, one
// successful cancel, or one task returned by Shutdown()), never concurrently
// with itself, and no periodic run after Cancel() has returned.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/test_sync.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/pool_executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::kTestWaitTimeout;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::PoolExecutor;

// Advances a manual clock in small steps on its own thread until stopped.
class ClockDriver {
 public:
  ClockDriver(ManualClock& clock, absl::Duration step)
      : thread_([this, &clock, step] {
          // Bounded: at most this many steps even if never stopped.
          for (int i = 0; i < 2'000'000 && !stop_.load(); ++i) {
            clock.AdvanceBy(step);
          }
        }) {}
  ~ClockDriver() { Stop(); }
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Checks that a callback never runs concurrently with itself.
struct OverlapCheck {
  std::atomic<int> active{0};
  std::atomic<int> overlaps{0};
  void Enter() {
    if (active.fetch_add(1) != 0) overlaps.fetch_add(1);
  }
  void Leave() { active.fetch_sub(1); }
};

TimerOptions Options(ManualClock& clock, Executor& executor) {
  TimerOptions options;
  options.clock = &clock;
  options.executor = &executor;
  options.tick = absl::Microseconds(10);
  options.wheel_size = 64;
  return options;  // With the reaper.
}

TEST(TimerApiRaceTest, RescheduleRacesFireAndCancel) {
  ManualClock clock;
  PoolExecutor pool(2);
  auto timer = Timer::Create(Options(clock, pool)).value();
  OverlapCheck overlap;
  std::atomic<int64_t> runs{0};
  TimerHandle handle = timer
                           ->Schedule(absl::Microseconds(20),
                                      [&] {
                                        overlap.Enter();
                                        runs.fetch_add(1);
                                        overlap.Leave();
                                      })
                           .value();
  std::atomic<int64_t> rearmed{0};
  std::atomic<int64_t> moved{0};
  std::atomic<int64_t> cancelled{0};
  {
    ClockDriver driver(clock, absl::Microseconds(7));
    // Copies of a handle may be used from different threads.
    std::thread rescheduler([&, h = handle]() mutable {
      std::mt19937 rng(1);
      for (int i = 0; i < 3000; ++i) {
        const RescheduleResult r = h.Reschedule(absl::Microseconds(rng() % 50));
        if (r == RescheduleResult::kRearmed) rearmed.fetch_add(1);
        if (r == RescheduleResult::kMoved) moved.fetch_add(1);
        EXPECT_NE(r, RescheduleResult::kTimerGone);
        EXPECT_NE(r, RescheduleResult::kOverLimit);
      }
    });
    std::thread canceller([&, h = handle]() mutable {
      for (int i = 0; i < 3000; ++i) {
        if (h.Cancel()) cancelled.fetch_add(1);
        (void)h.TimeRemaining();
      }
    });
    rescheduler.join();
    canceller.join();
  }
  const int64_t left = static_cast<int64_t>(timer->Shutdown().size());
  // Shutdown() waited for every batch handed over.
  EXPECT_EQ(runs.load() + cancelled.load() + left, 1 + rearmed.load())
      << "runs " << runs << " cancelled " << cancelled << " left " << left
      << " rearmed " << rearmed << " moved " << moved;
  EXPECT_EQ(overlap.overlaps.load(), 0);
  EXPECT_GT(rearmed.load() + moved.load(), 0);
}

// Runs a periodic task on a pool while the clock moves, stops it with
// `stop` once it ran `before` times, and checks that no run starts after.
void RunPeriodicCancelRace(bool cancel_inside) {
  ManualClock clock;
  PoolExecutor pool(2);
  auto timer = Timer::Create(Options(clock, pool)).value();
  OverlapCheck overlap;
  Counter runs;
  constexpr int64_t kCancelAt = 50;
  PeriodicHandle handle;
  std::mutex handle_mu;  // The callback reads `handle` as the test sets it.
  {
    std::lock_guard<std::mutex> lock(handle_mu);
    handle = timer
                 ->SchedulePeriodic(
                     absl::Microseconds(30),
                     [&] {
                       overlap.Enter();
                       runs.Increment();
                       if (cancel_inside && runs.value() == kCancelAt) {
                         std::lock_guard<std::mutex> lock(handle_mu);
                         handle.Cancel();
                       }
                       overlap.Leave();
                     })
                 .value();
  }
  ClockDriver driver(clock, absl::Microseconds(11));
  ASSERT_TRUE(runs.AwaitAtLeast(kCancelAt));
  if (!cancel_inside) {
    std::lock_guard<std::mutex> lock(handle_mu);
    handle.Cancel();  // Races runs in progress on the pool.
  }
  // Every batch handed over before Cancel() returned has finished after
  // this; any run from now on would have started after Cancel().
  ASSERT_TRUE(pool.AwaitIdle(absl::FromChrono(kTestWaitTimeout)));
  const int64_t after_cancel = runs.value();
  if (cancel_inside) {
    EXPECT_EQ(after_cancel, kCancelAt);
  }
  // Let the clock run on for many periods, then until the reaper sleeps
  // with nothing pending, and the pool is idle again.
  clock.AdvanceBy(absl::Milliseconds(10));
  driver.Stop();
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  ASSERT_TRUE(pool.AwaitIdle(absl::FromChrono(kTestWaitTimeout)));
  EXPECT_EQ(runs.value(), after_cancel);
  EXPECT_EQ(timer->NumPending(), 0);
  {
    std::lock_guard<std::mutex> lock(handle_mu);
    EXPECT_FALSE(handle.scheduled());
  }
  EXPECT_EQ(overlap.overlaps.load(), 0);
  timer.reset();
}

TEST(TimerApiRaceTest, PeriodicCancelFromAnotherThread) {
  for (int i = 0; i < 5; ++i) RunPeriodicCancelRace(/*cancel_inside=*/false);
}

TEST(TimerApiRaceTest, PeriodicCancelFromInsideTheCallback) {
  for (int i = 0; i < 5; ++i) RunPeriodicCancelRace(/*cancel_inside=*/true);
}

TEST(TimerApiRaceTest, BatchesFromTwoThreadsWhileTheReaperFires) {
  ManualClock clock;
  PoolExecutor pool(2);
  auto timer = Timer::Create(Options(clock, pool)).value();
  class Tick final : public TimerTask {
   public:
    explicit Tick(Counter* runs) : runs_(runs) {}
    void Run() override { runs_->Increment(); }

   private:
    Counter* const runs_;
  };
  Counter runs;
  constexpr int kPerThread = 2000;
  {
    ClockDriver driver(clock, absl::Microseconds(13));
    auto produce = [&](int seed) {
      std::mt19937 rng(seed);
      std::vector<TimerBatchEntry> entries;
      for (int i = 0; i < kPerThread; ++i) {
        entries.push_back(
            {MakeTask<Tick>(&runs), absl::Microseconds(rng() % 200)});
        if (entries.size() == 100) {
          size_t added = 0;
          EXPECT_TRUE(timer->AddBatch(entries, &added).ok());
          EXPECT_EQ(added, 100u);
          entries.clear();
        }
      }
    };
    std::thread a(produce, 1);
    std::thread b(produce, 2);
    a.join();
    b.join();
    ASSERT_TRUE(runs.AwaitAtLeast(2 * kPerThread));
  }
  ASSERT_TRUE(pool.AwaitIdle(absl::FromChrono(kTestWaitTimeout)));
  EXPECT_EQ(runs.value(), 2 * kPerThread);
  EXPECT_EQ(timer->NumPending(), 0);
}

}  // namespace
}  // namespace timingwheel
