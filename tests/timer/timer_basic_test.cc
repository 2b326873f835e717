// Copyright 2026 The timingwheel Authors.
//
// The first end-to-end checks of Timer through MockTimer: a task runs at its
// due time and not before, cancel prevents a run, the reaper thread fires
// tasks on a manual clock.

#include <algorithm>
#include <atomic>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::MockTimer;

TEST(TimerBasicTest, RunsAtDueTimeNotBefore) {
  MockTimer mock;
  int runs = 0;
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Milliseconds(270), [&] { ++runs; }).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(269)), 0u);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(mock.AdvanceBy(absl::Microseconds(999)), 0u);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(mock.AdvanceBy(absl::Microseconds(1)), 1u);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(TimerBasicTest, CancelPreventsRun) {
  MockTimer mock;
  int runs = 0;
  TimerHandle handle =
      mock.timer().Schedule(absl::Seconds(1), [&] { ++runs; }).value();
  EXPECT_TRUE(handle.pending());
  EXPECT_TRUE(handle.Cancel());
  EXPECT_FALSE(handle.Cancel());
  mock.AdvanceBy(absl::Seconds(2));
  EXPECT_EQ(runs, 0);
  TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.cancelled, 1);
  EXPECT_EQ(metrics.expired, 0);
}

TEST(TimerBasicTest, ReaperFiresOnManualClock) {
  ManualClock clock;
  TimerOptions options;
  options.clock = &clock;
  auto timer = Timer::Create(options).value();
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  std::atomic<int> runs{0};
  std::mutex mu;
  std::condition_variable cv;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(5),
                             [&] {
                               std::lock_guard<std::mutex> lock(mu);
                               ++runs;
                               cv.notify_all();
                             })
                  .ok());
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(5)));
  EXPECT_EQ(runs.load(), 0);
  clock.AdvanceBy(absl::Milliseconds(5));
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30),
                            [&] { return runs.load() == 1; }));
  }
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  // One wake-up for the add, one for the due instant.
  EXPECT_EQ(timer->Metrics().reaper_wakeups, 2);
}

TEST(TimerBasicTest, ManyTasksAcrossLevelsRunExactlyOnceNeverEarly) {
  TimerOptions options;
  options.tick = absl::Milliseconds(10);
  options.wheel_size = 8;
  MockTimer mock(options);
  std::vector<int> runs(500, 0);
  std::vector<int64_t> ran_at(500, -1);
  for (int i = 0; i < 500; ++i) {
    const absl::Duration delay = absl::Milliseconds((i * 37) % 5000);
    ASSERT_TRUE(mock.timer()
                    .Schedule(delay,
                              [&, i, delay] {
                                ++runs[i];
                                ran_at[i] = mock.clock().NowNanos();
                                EXPECT_GE(ran_at[i],
                                          absl::ToInt64Nanoseconds(delay));
                              })
                    .ok());
  }
  for (int step = 0; step < 6000; ++step) mock.AdvanceBy(absl::Milliseconds(1));
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(runs[i], 1) << i;
    // Delay 0 runs on the first advance, at 1 ms; the rest exactly on time.
    const int64_t due_ms = std::max(1, (i * 37) % 5000);
    EXPECT_EQ(ran_at[i], absl::ToInt64Nanoseconds(absl::Milliseconds(due_ms)))
        << i;
  }
}

}  // namespace
}  // namespace timingwheel
