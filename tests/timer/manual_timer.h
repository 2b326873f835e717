// Copyright 2026 The timingwheel Authors.
//
// manual_timer.h
// -----------------------------------------------------------------------------
//
// `MakeManualTimer()`: the timer most tests here build, on a clock and an
// executor the test owns and without a reaper thread (nothing flushes until
// the test calls `AdvanceClock()`, or `MockTimer`-style code does). For a
// timer with its own manual clock and executor, use `MockTimer`
// (timer/testing/mock_timer.h) instead.

#ifndef TIMINGWHEEL_TESTS_TIMER_MANUAL_TIMER_H_
#define TIMINGWHEEL_TESTS_TIMER_MANUAL_TIMER_H_

#include <memory>

#include "timer/clock.h"
#include "timer/executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace testing {

// MakeManualTimer()
//
// A timer created from `options` with `clock`, `executor` and
// `start_reaper = false`; both must outlive it. Dies on invalid options (a
// test helper). Thread-safe.
inline std::unique_ptr<Timer> MakeManualTimer(
    Clock& clock, Executor& executor, TimerOptions options = TimerOptions()) {
  options.clock = &clock;
  options.executor = &executor;
  options.start_reaper = false;
  return Timer::Create(options).value();
}

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_TIMER_MANUAL_TIMER_H_
