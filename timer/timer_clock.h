// Copyright 2026 The timingwheel Authors.
//
// timer_clock.h
// -----------------------------------------------------------------------------
//
// `Timer::Clocks`: clock readings as the timer's relative nanoseconds (all
// due times count from the timer's origin, its clock reading at creation).
// It promises that a delay never counts from before the clock's true time
// (a coarse reading adds its staleness bound), and saturates instead of
// overflowing. Implemented in timer_clock.cc, but for the readings every
// relative add makes, inline here.
//
// Threads: any thread; `NowRelative()` with the timer's `mu_` held (it
// reads the wheel's time), the others without any lock.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_CLOCK_H_
#define TIMINGWHEEL_TIMER_TIMER_CLOCK_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/clock.h"
#include "timer/internal/wheel_math.h"
#include "timer/time_point.h"
#include "timer/timer.h"

namespace timingwheel {

class Timer::Clocks {
 public:
  // A clock reading as a time relative to origin_ (saturated; a reading
  // before the origin is 0, `TimePoint::Max()` never comes).
  static int64_t RelativeOf(const Timer& timer, TimePoint deadline);
  // Current time relative to origin_, never before the wheel's time.
  static int64_t NowRelative(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // The time a relative delay counts from, relative to origin_: a precise
  // reading, or with `coarse_clock` a coarse one plus its staleness bound;
  // never before the clock's true time.
  // Inline: every relative add reads it.
  static int64_t ClockRelative(Timer& timer) {
    if (timer.settings_.coarse_slack > 0) return CoarseClockRelative(timer);
    return Clocks::Relative(timer, Clocks::ReadClock(timer));
  }
  // ClockRelative() with `coarse_clock`.
  static int64_t CoarseClockRelative(Timer& timer);
  // `settings_.clock->NowNanos()`, read directly for `Clock::Real()`.
  static int64_t ReadClock(const Timer& timer) {
    return timer.settings_.real_clock ? internal::ReadMonotonic()
                                      : timer.settings_.clock->NowNanos();
  }
  // A reading as a time relative to origin_ (saturated, 0 before it).
  static int64_t Relative(const Timer& timer, int64_t now) {
    if (now <= timer.origin_) return 0;  // A reading before the origin.
    // The difference fits in uint64 (both are int64 and now > origin_) but
    // not always in int64: a clock spanning more than 2^63 ns (a negative
    // origin, a positive reading) saturates, one short of kMaxNanos, the
    // key of an empty delay queue and the due time of a task that never
    // runs.
    const uint64_t elapsed =
        static_cast<uint64_t>(now) - static_cast<uint64_t>(timer.origin_);
    constexpr int64_t kLatest = internal::kMaxNanos - 1;
    return elapsed > static_cast<uint64_t>(kLatest)
               ? kLatest
               : static_cast<int64_t>(elapsed);
  }
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_CLOCK_H_
