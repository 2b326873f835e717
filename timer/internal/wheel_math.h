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

// 128-bit unsigned arithmetic (GCC and Clang); `__extension__` keeps
// -Wpedantic quiet in users' builds that include this header.
__extension__ typedef unsigned __int128 Uint128;

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
// A delay with a sub-nanosecond part rounds up, never down (never early, to
// the nanosecond): 7.5 ns is 8 ns, a quarter nanosecond is 1 ns.
inline int64_t DelayToNanos(absl::Duration delay) {
  // An absl::Duration is whole seconds (`hi`) plus quarter nanoseconds (`lo`,
  // below 4e9; ~0u in an infinite one), both read inline here: Abseil's
  // ToInt64Nanoseconds() is out of line (a call into its shared library on
  // every add). Every delay shorter than kFastSeconds takes this branch.
  constexpr int64_t kFastSeconds = kMaxNanos / 1000000000 - 1;
  const int64_t hi = absl::time_internal::GetRepHi(delay);
  const uint32_t lo = absl::time_internal::GetRepLo(delay);
  if (hi < 0) return 0;  // Negative (lo only adds), or minus infinity.
  if (hi < kFastSeconds) {
    return hi * 1000000000 + static_cast<int64_t>((lo + 3) / 4);  // Rounds up.
  }
  if (delay <= absl::ZeroDuration()) return 0;
  // Truncates toward zero, saturating at kMaxNanos.
  const int64_t whole = absl::ToInt64Nanoseconds(delay);
  return delay > absl::Nanoseconds(whole) ? SaturatingAdd(whole, 1) : whole;
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

// Divider
//
// Divides non-negative 64-bit values by a fixed positive divisor with a
// 128-bit multiply and one correction instead of a hardware division (tens of
// cycles on the add path). For divisor d >= 2 the multiplier is
// m = ceil(2^64 / d); for n < 2^63, floor(n * m / 2^64) is floor(n / d) or
// one more, and the product check takes the excess back.
class Divider {
 public:
  constexpr explicit Divider(int64_t divisor)
      : divisor_(static_cast<uint64_t>(divisor)),
        multiplier_(divisor > 1
                        ? ~uint64_t{0} / static_cast<uint64_t>(divisor) + 1
                        : 0) {}

  // Divider::Divide()
  //
  // Returns `n / divisor` for `n >= 0`.
  constexpr int64_t Divide(int64_t n) const {
    if (multiplier_ == 0) return n;  // Divisor 1.
    const uint64_t value = static_cast<uint64_t>(n);
    uint64_t quotient = static_cast<uint64_t>(
        (static_cast<Uint128>(value) * multiplier_) >> 64);
    if (quotient * divisor_ > value) --quotient;
    return static_cast<int64_t>(quotient);
  }

  // Divider::Floor()
  //
  // Returns the largest multiple of the divisor that is <= `n` (n >= 0).
  constexpr int64_t Floor(int64_t n) const {
    return Divide(n) * static_cast<int64_t>(divisor_);
  }

  constexpr int64_t divisor() const { return static_cast<int64_t>(divisor_); }

 private:
  uint64_t divisor_;
  uint64_t multiplier_;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_WHEEL_MATH_H_
