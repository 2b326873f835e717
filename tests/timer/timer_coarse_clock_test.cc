// Copyright 2026 The timingwheel Authors.
//
// TimerOptions::coarse_clock: relative delays count from the clock's coarse
// reading rounded up by its staleness bound, so a task never runs early
// however far the coarse reading lags (up to the bound), and at most the
// bound late. A fake clock over ManualClock lags by a chosen amount.
// Deterministic: manual clock, inline executor, no reaper.

#include <cstdint>
#include <memory>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/clock.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;

constexpr int64_t kStaleness = 4000000;  // 4 ms, a common kernel tick.

class InlineExecutor final : public Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

// A clock whose coarse reading lags the manual clock by `lag` nanoseconds
// (at most kStaleness, as the Clock contract requires).
class LaggingClock final : public Clock {
 public:
  int64_t NowNanos() override { return manual_.NowNanos(); }
  int64_t CoarseNowNanos() override { return manual_.NowNanos() - lag_; }
  int64_t CoarseStalenessNanos() const override { return kStaleness; }
  void WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock,
                 int64_t deadline_nanos) override {
    manual_.WaitUntil(cv, lock, deadline_nanos);
  }

  void set_lag(int64_t lag) { lag_ = lag; }
  void Set(int64_t nanos) { manual_.SetNanos(nanos); }

 private:
  ManualClock manual_;
  int64_t lag_ = 0;
};

class CoarseClockTest : public ::testing::TestWithParam<int64_t> {
 protected:
  std::unique_ptr<Timer> MakeTimer(bool coarse) {
    TimerOptions options;
    options.clock = &clock_;
    options.executor = &executor_;
    options.start_reaper = false;
    options.coarse_clock = coarse;
    return Timer::Create(options).value();
  }

  LaggingClock clock_;
  InlineExecutor executor_;
};

TEST_P(CoarseClockTest, NeverEarlyAtMostTheBoundLate) {
  const int64_t lag = GetParam();
  clock_.Set(int64_t{1} << 30);  // Far from 0, so a lag cannot clamp.
  std::unique_ptr<Timer> timer = MakeTimer(/*coarse=*/true);
  int64_t added_at = int64_t{1} << 31;
  clock_.set_lag(lag);
  for (int64_t delay : {int64_t{0}, int64_t{1}, int64_t{2500000},
                        int64_t{50000000}, int64_t{3000000000}}) {
    bool ran = false;
    added_at += 1000000000 + delay * 7;  // Each later, at its own phase.
    clock_.Set(added_at);
    timer->Schedule(absl::Nanoseconds(delay), [&] { ran = true; }).value();
    const int64_t due = added_at + delay;
    if (delay > 0 || lag < kStaleness) {
      clock_.Set(due - 1);
      timer->AdvanceClock(absl::ZeroDuration());
      EXPECT_FALSE(ran) << "ran early: delay " << delay << " lag " << lag;
    }
    clock_.Set(due + kStaleness);
    timer->AdvanceClock(absl::ZeroDuration());
    EXPECT_TRUE(ran) << "later than the bound: delay " << delay << " lag "
                     << lag;
    EXPECT_EQ(timer->NextDueIn(), absl::InfiniteDuration());
  }
}

TEST_P(CoarseClockTest, OffByDefault) {
  clock_.Set(int64_t{1} << 30);
  std::unique_ptr<Timer> timer = MakeTimer(/*coarse=*/false);
  clock_.set_lag(GetParam());
  bool ran = false;
  timer->Schedule(absl::Milliseconds(10), [&] { ran = true; }).value();
  // Precise: due exactly 10 ms on, whatever the coarse reading says.
  EXPECT_EQ(timer->NextDueIn(), absl::Milliseconds(10));
  clock_.Set((int64_t{1} << 30) + 10000000);
  timer->AdvanceClock(absl::ZeroDuration());
  EXPECT_TRUE(ran);
}

INSTANTIATE_TEST_SUITE_P(Lags, CoarseClockTest,
                         ::testing::Values(int64_t{0}, int64_t{1},
                                           kStaleness / 2, kStaleness - 1,
                                           kStaleness));

TEST(RealClockTest, CoarseReadingLagsByAtMostItsStaleness) {
  Clock* clock = Clock::Real();
  const int64_t staleness = clock->CoarseStalenessNanos();
  ASSERT_GE(staleness, 0);
  for (int i = 0; i < 1000; ++i) {
    const int64_t coarse = clock->CoarseNowNanos();
    const int64_t precise = clock->NowNanos();
    // Read before the precise one: never after it, and within the bound
    // (plus whatever elapsed between the two reads, bounded generously).
    EXPECT_LE(coarse, precise);
    EXPECT_LE(precise - coarse, staleness + 50000000) << i;
  }
}

TEST(RealClockTest, DirectReadIsTheRealClock) {
  // What a timer on Clock::Real() reads without the virtual call.
  const int64_t before = internal::ReadMonotonic();
  const int64_t reading = Clock::Real()->NowNanos();
  const int64_t after = internal::ReadMonotonic();
  EXPECT_LE(before, reading);
  EXPECT_LE(reading, after);
}

}  // namespace
}  // namespace timingwheel
