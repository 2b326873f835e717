// Copyright 2026 The timingwheel Authors.
//
// What one flush promises (the tests a mutation run found missing): one
// AdvanceClock(0) flushes everything due, not one 512-task chunk; tasks due
// in one wake-up run in due order, also from one bucket and when 200,000
// share a tick (merged into the due list chunk by chunk); Shutdown() from a
// callback while a large cascade is mid-flush returns the tasks on the
// in-progress flush lists; and a flush that hands nothing over is noticed
// (MockTimer fails instead of spinning); a clock whose readings span more
// than 2^63 ns saturates.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
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

// Records the order tasks run in, by their delay in nanoseconds.
class OrderTask : public TimerTask {
 public:
  OrderTask(int64_t due, std::vector<int64_t>* order)
      : due_(due), order_(order) {}
  void Run() override { order_->push_back(due_); }

 private:
  const int64_t due_;
  std::vector<int64_t>* const order_;
};

TEST(TimerFlushTest, OneZeroTimeoutAdvanceFlushesEverythingDue) {
  for (const absl::Duration base :
       {absl::Milliseconds(1), absl::Milliseconds(700)}) {  // Level 0, 1.
    ManualClock clock;
    ManualExecutor executor;
    auto timer = MakeManualTimer(clock, executor);
    constexpr int kTasks = 2000;  // Four flush chunks.
    int runs = 0;
    for (int i = 0; i < kTasks; ++i) {
      ASSERT_TRUE(
          timer->Schedule(base + absl::Microseconds(i % 100), [&] { ++runs; })
              .ok());
    }
    clock.AdvanceBy(base + absl::Milliseconds(1));
    EXPECT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));  // Once.
    executor.RunAll();
    EXPECT_EQ(runs, kTasks) << base;
    EXPECT_EQ(timer->NumPending(), 0);
    EXPECT_FALSE(timer->AdvanceClock(absl::ZeroDuration()));
  }
}

TEST(TimerFlushTest, TasksOfOneBucketRunInDueOrder) {
  // Added latest-first into the current level-0 bucket: the flush takes
  // them in bucket order and must sort the batch by due time.
  MockTimer mock;  // 1 ms tick.
  std::vector<int64_t> order;
  std::vector<TaskPtr<OrderTask>> tasks;
  for (int64_t us : {900, 500, 700, 100, 300}) {
    tasks.push_back(MakeTask<OrderTask>(us, &order));
    ASSERT_TRUE(mock.timer().Add(tasks.back(), absl::Microseconds(us)).ok());
  }
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(2)), 5u);
  EXPECT_EQ(order, (std::vector<int64_t>{100, 300, 500, 700, 900}));
}

TEST(TimerFlushTest, TwoHundredThousandTasksInOneTickRunInDueOrder) {
  // All due within one 1 ms tick, cascaded from level 1 in 512-task chunks
  // that are each merged into the sorted due list.
  MockTimer mock;
  constexpr int kTasks = 200000;
  std::mt19937_64 random(10);
  std::vector<int64_t> order;
  order.reserve(kTasks);
  {
    std::vector<TaskPtr<OrderTask>> tasks;
    for (int i = 0; i < kTasks; ++i) {
      const int64_t due =
          600'000'000 + static_cast<int64_t>(random() % 1'000'000);
      tasks.push_back(MakeTask<OrderTask>(due, &order));
      ASSERT_TRUE(mock.timer().Add(tasks.back(), absl::Nanoseconds(due)).ok());
    }
  }
  mock.AdvanceBy(absl::Milliseconds(600));
  const size_t early = order.size();  // Due at exactly 600 ms, if any.
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(1)) + early,
            static_cast<size_t>(kTasks));
  ASSERT_EQ(order.size(), static_cast<size_t>(kTasks));
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

// Runs every callback at once on the caller's thread (inside the flush).
class InlineExecutor final : public Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

TEST(TimerFlushTest, ShutdownFromACallbackMidCascadeReturnsEveryTask) {
  ManualClock clock;
  InlineExecutor executor;
  auto timer = MakeManualTimer(clock, executor);
  // One level-1 bucket ([512 ms, 1024 ms)): the first task is due when it
  // is flushed and shuts the timer down from its callback, after the first
  // chunk; the others are still on the flush lists.
  constexpr int kOthers = 2000;
  size_t swept = 0;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(600),
                             [&] { swept = timer->Shutdown().size(); })
                  .ok());
  int late_runs = 0;
  for (int i = 0; i < kOthers; ++i) {
    ASSERT_TRUE(timer
                    ->Schedule(absl::Milliseconds(601) + absl::Microseconds(i),
                               [&] { ++late_runs; })
                    .ok());
  }
  clock.AdvanceBy(absl::Milliseconds(600));
  EXPECT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(swept, static_cast<size_t>(kOthers));
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.pending, 0);
  EXPECT_EQ(m.cancelled, kOthers);
  EXPECT_EQ(m.expired, 1);
  clock.AdvanceBy(absl::Seconds(10));
  EXPECT_FALSE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(late_runs, 0);
}

TEST(TimerFlushTest, AClockSpanningMoreThanTwoToTheSixtyThreeSaturates) {
  // Readings from -9e18 ns to +9e18 ns: the time since the timer's origin
  // no longer fits in int64. It saturates (everything is due) instead of
  // wrapping negative (nothing would ever be due again).
  ManualClock clock(-9'000'000'000'000'000'000);
  ManualExecutor executor;
  auto timer = MakeManualTimer(clock, executor);
  clock.SetNanos(0);  // 9e18 ns after the origin: still representable.
  int runs = 0;
  ASSERT_TRUE(timer->Schedule(absl::Hours(1), [&] { ++runs; }).ok());
  EXPECT_FALSE(timer->AdvanceClock(absl::ZeroDuration()));
  clock.SetNanos(9'000'000'000'000'000'000);  // 1.8e19 ns after it.
  EXPECT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  executor.RunAll();
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace timingwheel
