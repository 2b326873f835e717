// Copyright 2026 The timingwheel Authors.
//
// Shutdown() sweeps the pending tasks bucket by bucket, several buckets side
// by side (timer.cc). These tests hold that every pending task comes back
// exactly once, cancelled, however many buckets they spread over, and that
// none runs. Deterministic: manual clock, inline executor, no reaper.

#include <memory>
#include <set>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;

class InlineExecutor final : public Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

class Counted final : public TimerTask {
 public:
  explicit Counted(int* runs) : runs_(runs) {}
  void Run() override { ++*runs_; }

 private:
  int* runs_;
};

class ShutdownSweepTest : public ::testing::TestWithParam<int> {};

TEST_P(ShutdownSweepTest, ReturnsEveryPendingTaskOnce) {
  const int n = GetParam();
  ManualClock clock;
  InlineExecutor executor;
  TimerOptions options;
  options.clock = &clock;
  options.executor = &executor;
  options.start_reaper = false;
  options.wheel_size = 64;  // Many levels and buckets for few tasks.
  std::unique_ptr<Timer> timer = Timer::Create(options).value();
  int runs = 0;
  std::set<const TimerTask*> added;
  for (int i = 0; i < n; ++i) {
    // Delays from 1 ms to hours: level 0 to level 3, most buckets used.
    TaskPtr<TimerTask> task = MakeTask<Counted>(&runs);
    added.insert(task.get());
    const absl::Duration delay =
        absl::Milliseconds(1 + (int64_t{i} * 7919 % 100000) * (1 + i % 97));
    ASSERT_TRUE(timer->Add(task, delay).ok());
  }
  // Some due tasks in the due list and cascaded buckets, none run yet.
  clock.AdvanceBy(absl::Milliseconds(100));
  timer->AdvanceClock(absl::ZeroDuration());
  const int ran_before = runs;
  const int64_t pending = timer->NumPending();
  ASSERT_EQ(pending + ran_before, n);
  std::vector<TaskPtr<TimerTask>> cancelled = timer->Shutdown();
  EXPECT_EQ(static_cast<int64_t>(cancelled.size()), pending);
  std::set<const TimerTask*> returned;
  for (const TaskPtr<TimerTask>& task : cancelled) {
    EXPECT_TRUE(added.count(task.get())) << "not a task of this timer";
    EXPECT_TRUE(returned.insert(task.get()).second) << "returned twice";
  }
  EXPECT_EQ(runs, ran_before);
  EXPECT_EQ(timer->NumPending(), 0);
  EXPECT_EQ(timer->Metrics().cancelled, pending);
  // Idle again: each can be added to another timer.
  std::unique_ptr<Timer> other = Timer::Create(options).value();
  for (const TaskPtr<TimerTask>& task : cancelled) {
    ASSERT_TRUE(other->Add(task, absl::Hours(1)).ok());
  }
  EXPECT_EQ(other->NumPending(), pending);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ShutdownSweepTest,
                         ::testing::Values(0, 1, 15, 16, 17, 5000));

}  // namespace
}  // namespace timingwheel
