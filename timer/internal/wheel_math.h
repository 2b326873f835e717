// Copyright 2026 The timingwheel Authors.
//
// wheel_math.h
// -----------------------------------------------------------------------------
//
// The timing wheel's arithmetic as small pure functions, unit-tested on their
// own (tests/timer/wheel_math_test.cc): saturating time arithmetic, the
// conversion of a delay to nanoseconds, and the tick of each wheel level.
// All times are non-negative nanoseconds relative to the wheel's origin.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_WHEEL_MATH_H_
#define TIMINGWHEEL_TIMER_INTERNAL_WHEEL_MATH_H_

#include <cstdint>
#include <limits>

#include "absl/time/time.h"

namespace timingwheel {
namespace internal {

inline constexpr int64_t kMaxNanos = std::numeric_limits<int64_t>::max();

// SaturatingAdd()
//
// Returns `a + b` for non-negative `a` and `b`, or `kMaxNanos` where the sum
// would overflow.
constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > kMaxNanos - b ? kMaxNanos : a + b;
}

// SaturatingMultiply()
//
// Returns `a * b` for positive `a` and `b`, or `kMaxNanos` where the product
// would overflow.
constexpr int64_t SaturatingMultiply(int64_t a, int64_t b) {
  return a > kMaxNanos / b ? kMaxNanos : a * b;
}

// DelayToNanos()
//
// Converts a delay to nanoseconds: negative delays become 0 (due now),
// `absl::InfiniteDuration()` and anything past 292 years become `kMaxNanos`.
inline int64_t DelayToNanos(absl::Duration delay) {
  if (delay <= absl::ZeroDuration()) return 0;
  return absl::ToInt64Nanoseconds(delay);  // Saturates at kMaxNanos.
}

// FloorToTick()
//
// Returns the start of the tick that contains `time` (`time` >= 0).
constexpr int64_t FloorToTick(int64_t time, int64_t tick) {
  return time - time % tick;
}

// LevelTick()
//
// Returns the tick of wheel level `level` (level 0 has `tick0`; each level's
// tick is the interval `tick * wheel_size` of the level below), or
// `kMaxNanos` when it is not representable.
constexpr int64_t LevelTick(int64_t tick0, int64_t wheel_size, int level) {
  int64_t tick = tick0;
  for (int i = 0; i < level; ++i) {
    if (tick == kMaxNanos) return kMaxNanos;
    tick = SaturatingMultiply(tick, wheel_size);
  }
  return tick;
}

// IsPowerOfTwo()
//
// Returns whether `n` is a positive power of two.
constexpr bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_WHEEL_MATH_H_
