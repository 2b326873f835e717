// Copyright 2026 The timingwheel Authors.
//
// Misuses that would deadlock or touch freed memory abort with a message
// naming the mistake: a Timer destroyed from one of its
// own callbacks, a ThreadExecutor destroyed from its own thread. Each death
// test arms alarm(): if the process deadlocks instead, it dies of SIGALRM
// without the expected message and the test fails (bounded, not a hang).

#include <unistd.h>

#include <memory>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::ManualExecutor;

class TimerDeathTest : public ::testing::Test {
 protected:
  TimerDeathTest() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

void DestroyTimerFromItsCallback(bool default_executor) {
  alarm(30);
  ManualClock clock;
  ManualExecutor executor;
  TimerOptions options;
  options.clock = &clock;
  options.executor = default_executor ? nullptr : &executor;
  options.start_reaper = false;
  std::unique_ptr<Timer> timer = Timer::Create(options).value();
  Timer* raw = timer.release();
  (void)raw->Schedule(absl::ZeroDuration(), [raw] { delete raw; });
  raw->AdvanceClock(absl::ZeroDuration());
  executor.RunAll();
  for (;;) pause();  // The default executor's thread does it.
}

TEST_F(TimerDeathTest, TimerDestroyedFromItsOwnCallbackAborts) {
  EXPECT_DEATH(DestroyTimerFromItsCallback(false),
               "Timer was destroyed from one of its own callbacks");
  EXPECT_DEATH(DestroyTimerFromItsCallback(true),
               "Timer was destroyed from one of its own callbacks");
}

TEST_F(TimerDeathTest, ThreadExecutorDestroyedFromItsOwnThreadAborts) {
  EXPECT_DEATH(
      {
        alarm(30);
        auto* executor = new ThreadExecutor;
        executor->Execute([executor] { delete executor; });
        for (;;) pause();
      },
      "ThreadExecutor was destroyed from its own thread");
}

}  // namespace
}  // namespace timingwheel
