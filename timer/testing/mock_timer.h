// Copyright 2026 The timingwheel Authors.
//
// mock_timer.h
// -----------------------------------------------------------------------------
//
// `MockTimer` is a real `Timer` (the real wheel, not a heap stand-in) driven
// by a `ManualClock` on the test's thread: no reaper thread, callbacks run
// inside `AdvanceBy()`. Use it to test code that takes a `Timer&`.

#ifndef TIMINGWHEEL_TIMER_TESTING_MOCK_TIMER_H_
#define TIMINGWHEEL_TIMER_TESTING_MOCK_TIMER_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstddef>
#include <memory>

#include "absl/time/time.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace testing {

// MockTimer
//
// Owns a `ManualClock`, a `ManualExecutor` and a `Timer` that uses both with
// `start_reaper = false`. Nothing runs until `AdvanceBy()`.
// Thread-safe as `Timer` is; `AdvanceBy()` runs callbacks on its caller.
//
// Example:
//   MockTimer mock;
//   bool fired = false;
//   mock.timer().Schedule(absl::Seconds(1), [&] { fired = true; });
//   mock.AdvanceBy(absl::Milliseconds(999));  // fired == false
//   mock.AdvanceBy(absl::Milliseconds(1));    // fired == true
class MockTimer {
 public:
  // `options.clock`, `options.executor` and `options.start_reaper` are
  // replaced; the rest (tick, wheel size, limits, error hook) are used. Dies
  // on invalid options (a test helper).
  explicit MockTimer(TimerOptions options = TimerOptions());

  // MockTimer::AdvanceBy()
  //
  // Moves the clock forward by `delta`, then runs on the calling thread every
  // task due by the new time, in due order, including tasks that those
  // callbacks add and that are already due. Returns how many tasks ran.
  // Aborts with a message if the timer keeps reporting flushes that hand
  // nothing over (a broken timer), instead of spinning forever.
  size_t AdvanceBy(absl::Duration delta);

  // MockTimer::RunDue()
  //
  // `AdvanceBy(absl::ZeroDuration())`: runs what is due now.
  size_t RunDue() { return AdvanceBy(absl::ZeroDuration()); }

  Timer& timer() { return *timer_; }
  ManualClock& clock() { return clock_; }
  ManualExecutor& executor() { return executor_; }

 private:
  ManualClock clock_;
  ManualExecutor executor_;
  std::unique_ptr<Timer> timer_;
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TESTING_MOCK_TIMER_H_
