// Copyright 2026 The timingwheel Authors.
//
// Stress tests of Timer. Two producers add and cancel timers (short and long
// delays) while the reaper runs on the real clock; at the end every task ran
// exactly once or was cancelled, and the metrics balance. A memory test
// holds many pending timers at once and prints the memory per timer.
//
// Sizes: the normal suite (and asan/tsan) runs a small size; the target
// //tests/timer:timer_stress_full (tag "manual", run with -c opt by
// .ci/jobs.d/stress-timer-full) defines TIMINGWHEEL_STRESS_FULL: 10^6 timers
// per producer and 10^7 pending timers.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

#ifdef TIMINGWHEEL_STRESS_FULL
constexpr int kPerProducer = 1'000'000;
constexpr int kMemoryTimers = 10'000'000;
#else
constexpr int kPerProducer = 100'000;
constexpr int kMemoryTimers = 100'000;
#endif
constexpr int kProducers = 2;

// Resident set size of this process in KiB, from /proc/self/status.
int64_t VmRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Counts callback runs and lets the test wait for a total.
class RunCounter {
 public:
  void Increment() {
    std::lock_guard<std::mutex> lock(mu_);
    ++count_;
    if (count_ == target_) cv_.notify_all();
  }
  // Waits until `target` runs were counted; false after a generous timeout.
  bool AwaitExactly(int64_t target) {
    std::unique_lock<std::mutex> lock(mu_);
    target_ = target;
    return cv_.wait_for(lock, std::chrono::seconds(60),
                        [&] { return count_ >= target; });
  }
  int64_t value() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t count_ = 0;
  int64_t target_ = -1;
};

TEST(TimerStressTest, ProducersAddAndCancelWhileTheReaperRuns) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Timer> timer = Timer::Create().value();  // Real clock.
  constexpr int kTotal = kProducers * kPerProducer;
  std::vector<std::atomic<uint8_t>> runs(kTotal);
  std::vector<uint8_t> cancelled(kTotal, 0);  // Written by one producer each.
  std::vector<uint8_t> is_long(kTotal, 0);
  RunCounter counter;

  auto produce = [&](int producer) {
    std::mt19937_64 rng(1234 + producer);
    const int first = producer * kPerProducer;
    std::vector<TimerHandle> handles(kPerProducer);
    for (int i = 0; i < kPerProducer; ++i) {
      const int id = first + i;
      // Half short (0 to 2 ms: they expire while the producers run, racing
      // with the cancels below), half long (10 minutes to an hour).
      const bool long_delay = rng() % 2 == 0;
      is_long[id] = long_delay;
      const absl::Duration delay = long_delay
                                       ? absl::Seconds(600 + rng() % 3000)
                                       : absl::Microseconds(rng() % 2000);
      absl::StatusOr<TimerHandle> handle =
          timer->Schedule(delay, [&runs, &counter, id] {
            runs[id].fetch_add(1, std::memory_order_relaxed);
            counter.Increment();
          });
      ASSERT_TRUE(handle.ok()) << handle.status();
      handles[i] = *std::move(handle);
      // Cancel a recent timer a third of the time: short ones race with the
      // reaper, long ones are surely still pending.
      if (i >= 16 && rng() % 3 == 0) {
        const int victim = i - static_cast<int>(rng() % 16);
        if (handles[victim].Cancel()) cancelled[first + victim] = 1;
      }
    }
    // The long ones still pending are cancelled at the end.
    for (int i = 0; i < kPerProducer; ++i) {
      const int id = first + i;
      if (!is_long[id] || cancelled[id]) continue;
      ASSERT_TRUE(handles[i].Cancel()) << "long timer " << id << " not pending";
      cancelled[id] = 1;
    }
  };
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) producers.emplace_back(produce, p);
  for (std::thread& t : producers) t.join();
  if (HasFatalFailure()) return;

  int64_t cancels = 0;
  for (int id = 0; id < kTotal; ++id) cancels += cancelled[id];
  const int64_t expected_runs = kTotal - cancels;
  ASSERT_TRUE(counter.AwaitExactly(expected_runs))
      << counter.value() << " of " << expected_runs << " ran";
  // The timer has handed over every task: nothing is left pending.
  TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.pending, 0);
  EXPECT_TRUE(timer->Shutdown().empty());
  m = timer->Metrics();
  int bad = 0;
  for (int id = 0; id < kTotal; ++id) {
    const int outcome = runs[id].load() + cancelled[id];
    if (outcome != 1 && ++bad <= 10) {
      ADD_FAILURE() << "task " << id << " ran " << int{runs[id].load()}
                    << " time(s), cancelled " << int{cancelled[id]};
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(counter.value(), expected_runs);  // Nothing ran after Shutdown.
  EXPECT_EQ(m.added, kTotal);
  EXPECT_EQ(m.expired, expected_runs);
  EXPECT_EQ(m.cancelled, cancels);
  EXPECT_EQ(m.pending, 0);
  EXPECT_EQ(m.callback_errors, 0);
  std::printf(
      "stress: %d producers x %d timers, %lld cancelled, %lld ran, "
      "%lld reaper wake-ups, %d levels, %.2f s\n",
      kProducers, kPerProducer, static_cast<long long>(cancels),
      static_cast<long long>(expected_runs),
      static_cast<long long>(m.reaper_wakeups), m.levels, SecondsSince(start));
}

std::atomic<int64_t> g_memory_runs{0};

TEST(TimerStressTest, ManyPendingTimersMemoryPerTimer) {
  const auto start = std::chrono::steady_clock::now();
  testing::MockTimer mock;  // 1 ms x 512, callbacks run inside AdvanceBy().
  Timer& timer = mock.timer();
  g_memory_runs = 0;
  const int64_t rss_before = VmRssKib();
  for (int i = 0; i < kMemoryTimers; ++i) {
    // Even: due within 2 s (they will expire); odd: due in hours (swept by
    // Shutdown). A captureless callback adds no bytes to the task.
    const absl::Duration delay =
        i % 2 == 0 ? absl::Milliseconds(1 + i % 2000) : absl::Hours(1 + i % 24);
    ASSERT_TRUE(
        timer
            .Schedule(
                delay,
                [] { g_memory_runs.fetch_add(1, std::memory_order_relaxed); })
            .ok());
  }
  const int64_t rss_after = VmRssKib();
  ASSERT_EQ(timer.NumPending(), kMemoryTimers);
  std::printf(
      "memory: %d pending timers, VmRSS %lld -> %lld KiB: %.1f bytes per "
      "timer (scheduled in %.2f s)\n",
      kMemoryTimers, static_cast<long long>(rss_before),
      static_cast<long long>(rss_after),
      1024.0 * static_cast<double>(rss_after - rss_before) / kMemoryTimers,
      SecondsSince(start));

  for (int ms = 0; ms < 2000; ++ms) mock.AdvanceBy(absl::Milliseconds(1));
  const int64_t half = kMemoryTimers / 2;
  EXPECT_EQ(g_memory_runs.load(), half);
  EXPECT_EQ(timer.NumPending(), kMemoryTimers - half);
  std::vector<TaskPtr<TimerTask>> swept = timer.Shutdown();
  EXPECT_EQ(static_cast<int64_t>(swept.size()), kMemoryTimers - half);
  swept.clear();  // Frees them (LeakSanitizer checks the rest).
  const TimerMetrics m = timer.Metrics();
  EXPECT_EQ(m.added, kMemoryTimers);
  EXPECT_EQ(m.expired, half);
  EXPECT_EQ(m.cancelled, kMemoryTimers - half);
  EXPECT_EQ(m.pending, 0);
  EXPECT_EQ(g_memory_runs.load(), half);
  std::printf("memory: all expired or swept in %.2f s total\n",
              SecondsSince(start));
}

}  // namespace
}  // namespace timingwheel
