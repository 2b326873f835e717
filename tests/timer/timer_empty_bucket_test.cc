// Copyright 2026 The timingwheel Authors.
//
// Buckets emptied by cancels stay in the wheel's delay queue until they reach
// its top (timer/internal/timing_wheel.h). These tests hold the promises that
// rest on that: nothing runs early, NextDueIn() never reports the due time of
// a cancelled task, a flush never pops an empty bucket, on_next_due_earlier
// still fires when the next due instant moves earlier, and the reaper sleeps
// past an emptied bucket's key. Deterministic: manual clock, inline executor
// (the reaper test runs the real reaper on the manual clock).

#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::RunWithin;

class InlineExecutor final : public Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

class EmptyBucketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.clock = &clock_;
    options_.executor = &executor_;
    options_.start_reaper = false;
    options_.on_next_due_earlier = [this] { ++hooks_; };
    timer_ = Timer::Create(options_).value();
  }

  // Advances the manual clock to `at` (from the origin) and flushes.
  bool AdvanceTo(absl::Duration at) {
    clock_.SetNanos(absl::ToInt64Nanoseconds(at));
    return timer_->AdvanceClock(absl::ZeroDuration());
  }

  ManualClock clock_;
  InlineExecutor executor_;
  TimerOptions options_;
  std::unique_ptr<Timer> timer_;
  int hooks_ = 0;
};

TEST_F(EmptyBucketTest, NextDueInSkipsBucketsEmptiedByCancel) {
  TimerHandle a = timer_->Schedule(absl::Milliseconds(10), [] {}).value();
  TimerHandle b = timer_->Schedule(absl::Milliseconds(30), [] {}).value();
  EXPECT_EQ(timer_->NextDueIn(), absl::Milliseconds(10));
  ASSERT_TRUE(a.Cancel());
  EXPECT_EQ(timer_->NextDueIn(), absl::Milliseconds(30));
  ASSERT_TRUE(b.Cancel());
  EXPECT_EQ(timer_->NextDueIn(), absl::InfiniteDuration());
  EXPECT_FALSE(AdvanceTo(absl::Seconds(1)));
  EXPECT_EQ(timer_->Metrics().buckets_flushed, 0);
}

TEST_F(EmptyBucketTest, EmptiedBucketsKeyFlushesNothing) {
  int ran = 0;
  TimerHandle a =
      timer_->Schedule(absl::Milliseconds(10), [&] { ++ran; }).value();
  timer_->Schedule(absl::Milliseconds(30), [&] { ++ran; }).value();
  ASSERT_TRUE(a.Cancel());
  EXPECT_FALSE(AdvanceTo(absl::Milliseconds(10)));  // Nothing to flush.
  EXPECT_EQ(timer_->Metrics().buckets_flushed, 0);
  EXPECT_FALSE(AdvanceTo(absl::Milliseconds(29)));
  EXPECT_EQ(ran, 0);
  EXPECT_TRUE(AdvanceTo(absl::Milliseconds(30)));
  EXPECT_EQ(ran, 1);
}

TEST_F(EmptyBucketTest, RefilledBucketRunsItsNewTaskNeverEarly) {
  // 10 ms and 10.5 ms share a level-0 bucket (1 ms tick): the bucket's key,
  // left at 10 ms by the cancel, must move up to 10.5 ms.
  bool ran = false;
  TimerHandle a = timer_->Schedule(absl::Milliseconds(10), [] {}).value();
  ASSERT_TRUE(a.Cancel());
  timer_->Schedule(absl::Microseconds(10500), [&] { ran = true; }).value();
  EXPECT_EQ(timer_->NextDueIn(), absl::Microseconds(10500));
  EXPECT_FALSE(AdvanceTo(absl::Milliseconds(10)));
  EXPECT_FALSE(ran);
  EXPECT_EQ(timer_->NextDueIn(), absl::Microseconds(500));
  EXPECT_TRUE(AdvanceTo(absl::Microseconds(10500)));
  EXPECT_TRUE(ran);
}

TEST_F(EmptyBucketTest, HookFiresWhenEarlierThanWhatTheLoopWasTold) {
  RunWithin("the hook (a lock held would deadlock it)", [&] {
    TimerHandle a = timer_->Schedule(absl::Milliseconds(10), [] {}).value();
    timer_->Schedule(absl::Milliseconds(40), [] {}).value();
    ASSERT_EQ(hooks_, 1);
    absl::Duration told = timer_->NextDueIn();  // The loop's timeout.
    ASSERT_TRUE(a.Cancel());
    // Earlier than anything pending: the hook fires although the emptied
    // bucket (10 ms) is still in the delay queue.
    timer_->Schedule(absl::Milliseconds(5), [] {}).value();
    EXPECT_EQ(hooks_, 2);
    told = timer_->NextDueIn();
    EXPECT_EQ(told, absl::Milliseconds(5));
    // Whatever is added, either the hook fires or the loop's timeout
    // already ends no later than the new task's due time.
    for (absl::Duration due : {absl::Milliseconds(20), absl::Milliseconds(3),
                               absl::Milliseconds(7)}) {
      const int hooks_before = hooks_;
      timer_->Schedule(due, [] {}).value();
      EXPECT_TRUE(hooks_ > hooks_before || told <= due) << due;
      told = timer_->NextDueIn();
    }
  });
}

TEST(EmptyBucketReaperTest, ReaperSleepsPastAnEmptiedBucket) {
  ManualClock clock;
  InlineExecutor executor;
  TimerOptions options;
  options.clock = &clock;
  options.executor = &executor;
  std::unique_ptr<Timer> timer = Timer::Create(options).value();
  TimerHandle a = timer->Schedule(absl::Milliseconds(10), [] {}).value();
  TimerHandle b = timer->Schedule(absl::Milliseconds(30), [] {}).value();
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(10)));
  ASSERT_TRUE(a.Cancel());
  const int64_t wakeups = timer->Metrics().reaper_wakeups;
  // The reaper slept before the cancel: it wakes once at 10 ms, then sleeps
  // straight to 30 ms, flushing nothing.
  clock.AdvanceBy(absl::Milliseconds(10));
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Milliseconds(30)));
  EXPECT_EQ(timer->Metrics().reaper_wakeups, wakeups + 1);
  EXPECT_EQ(timer->Metrics().buckets_flushed, 0);
  ASSERT_TRUE(b.Cancel());
  clock.AdvanceBy(absl::Milliseconds(20));
  // Nothing pending: no deadline at all, so no further wake-up.
  ASSERT_TRUE(clock.AwaitSleeper(kInfiniteFutureNanos));
  EXPECT_EQ(timer->Metrics().buckets_flushed, 0);
  EXPECT_EQ(timer->Metrics().reaper_wakeups, wakeups + 2);
}

}  // namespace
}  // namespace timingwheel
