// Copyright 2026 The timingwheel Authors.
//
// deadline.h
// -----------------------------------------------------------------------------
//
// `DeadlineAfter()`: clock nanos plus an `absl::Duration`, saturating, the
// arithmetic every baseline needs for "now + delay".

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_DEADLINE_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_DEADLINE_H_

#include <cstdint>
#include <limits>

#include "absl/time/time.h"

namespace timingwheel {
namespace bench {

// DeadlineAfter()
//
// Returns `now + delay` in nanoseconds, clamped to [now, int64 max - 1]
// (negative delays mean now; the max itself means "never" to a `Clock`).
inline int64_t DeadlineAfter(int64_t now, absl::Duration delay) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() - 1;
  if (delay <= absl::ZeroDuration()) return now;
  const int64_t nanos = absl::ToInt64Nanoseconds(delay);
  if (nanos >= kMax - now) return kMax;
  return now + nanos;
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_DEADLINE_H_
