// Copyright 2026 The timingwheel Authors.
//
// ManualClock::AwaitSleeper() with a TimePoint: a test waits until a real
// reaper sleeps until the deadline it computed with Timer::Now() + delay
// (the way docs/adopting.md tells to test with the reaper thread).

#include "timer/testing/manual_clock.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/test_sync.h"
#include "timer/time_point.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Latch;
using ::timingwheel::testing::ManualClock;

TEST(ManualClockTest, AwaitSleeperTakesTheTimePointTheTimerGave) {
  ManualClock clock(/*start_nanos=*/1'000'000);
  TimerOptions options;
  options.clock = &clock;
  auto timer = Timer::Create(options).value();
  // Empty: the reaper sleeps with no deadline.
  ASSERT_TRUE(clock.AwaitSleeper(TimePoint::Max()));

  Latch fired;
  const TimePoint deadline = timer->Now() + absl::Milliseconds(5);
  timer->ScheduleAt(deadline, [&] { fired.Open(); }).value();
  ASSERT_TRUE(clock.AwaitSleeper(deadline));
  EXPECT_FALSE(clock.AwaitSleeper(deadline + absl::Nanoseconds(1),
                                  absl::Milliseconds(1)));
  clock.AdvanceBy(absl::Milliseconds(5));
  EXPECT_TRUE(fired.Wait());
}

}  // namespace
}  // namespace timingwheel
