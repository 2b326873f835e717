// Copyright 2026 The timingwheel Authors.
//
// Timer's clock arithmetic, in one place: a reading of the clock (real or
// injected, fine or coarse) to nanoseconds since the timer's origin, and an
// absolute deadline to the same scale. Relative times saturate one short of
// kMaxNanos (the key of an empty delay queue, the due time of a task that
// never runs) and never go below 0. NowRelative() needs the timer's lock;
// the others are thread-safe.

#include <algorithm>
#include <cstdint>

#include "timer/clock.h"
#include "timer/internal/wheel_math.h"
#include "timer/time_point.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

int64_t Timer::Clocks::CoarseClockRelative(Timer& timer) {
  // The coarse reading lags the true time by at most settings_.coarse_slack:
  // rounded up by that bound, a due time is never early.
  const int64_t coarse = timer.settings_.real_clock
                             ? internal::ReadMonotonicCoarse()
                             : timer.settings_.clock->CoarseNowNanos();
  return std::min(internal::SaturatingAdd(Clocks::Relative(timer, coarse),
                                          timer.settings_.coarse_slack),
                  internal::kMaxNanos - 1);
}

int64_t Timer::Clocks::NowRelative(Timer& timer) {
  return std::max(Clocks::Relative(timer, Clocks::ReadClock(timer)),
                  timer.wheel_.time());
}

int64_t Timer::Clocks::RelativeOf(const Timer& timer, TimePoint deadline) {
  if (deadline == TimePoint::Max()) return internal::kMaxNanos;
  if (deadline.nanos() <= timer.origin_) return 0;
  // As in ClockRelative(): the difference fits in uint64, not always int64.
  const uint64_t elapsed = static_cast<uint64_t>(deadline.nanos()) -
                           static_cast<uint64_t>(timer.origin_);
  constexpr int64_t kLatest = internal::kMaxNanos - 1;
  return elapsed > static_cast<uint64_t>(kLatest)
             ? kLatest
             : static_cast<int64_t>(elapsed);
}

}  // namespace timingwheel
