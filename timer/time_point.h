// Copyright 2026 The timingwheel Authors.
//
// time_point.h
// -----------------------------------------------------------------------------
//
// `TimePoint` is an instant on a timer's clock: nanoseconds since the
// `Clock`'s origin, the unit `Clock::NowNanos()` returns (see clock.h). It is
// what `Timer::Now()` returns and what `Timer::ScheduleAt()`, `Timer::AddAt()`
// and `TimerHandle::RescheduleAt()` take. Monotonic, never wall time: it
// means nothing outside the clock it came from, and converts to no calendar
// date (there is deliberately no `absl::Time` conversion).
//
// Arithmetic with `absl::Duration` rounds toward the future, so that a
// deadline computed as `now + delay` is never earlier than the delay says
// (the same rule as `Timer::Schedule()`, which rounds a sub-nanosecond delay
// up): `t + absl::Nanoseconds(0.25)` is `t` plus 1 ns, and
// `t - absl::Nanoseconds(0.25)` is `t`. Results saturate at the ends of the
// int64 range, and `absl::InfiniteDuration()` gives `TimePoint::Max()`.
//
// Example:
//   timingwheel::TimePoint deadline = timer->Now() + absl::Seconds(30);
//   timer->ScheduleAt(deadline, [] { GiveUp(); });

#ifndef TIMINGWHEEL_TIMER_TIME_POINT_H_
#define TIMINGWHEEL_TIMER_TIME_POINT_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <limits>

#include "absl/time/time.h"

namespace timingwheel {

// TimePoint
//
// An instant on a `Clock`, in nanoseconds since its origin. A small value
// type (one int64). Thread-compatible.
class TimePoint {
 public:
  // The clock's origin (nanosecond 0).
  constexpr TimePoint() = default;

  // TimePoint::FromNanos()
  //
  // The instant `nanos` nanoseconds after the clock's origin (what
  // `Clock::NowNanos()` returns).
  static constexpr TimePoint FromNanos(int64_t nanos) {
    return TimePoint(nanos);
  }

  // TimePoint::Max()
  //
  // An instant that never comes (a deadline of `absl::InfiniteDuration()`).
  static constexpr TimePoint Max() {
    return TimePoint(std::numeric_limits<int64_t>::max());
  }

  // TimePoint::nanos()
  //
  // Nanoseconds since the clock's origin.
  constexpr int64_t nanos() const { return nanos_; }

  // Adds `d`, rounding a sub-nanosecond part toward the future and
  // saturating at the ends of the int64 range.
  TimePoint& operator+=(absl::Duration d) {
    nanos_ = Add(nanos_, d);
    return *this;
  }
  TimePoint& operator-=(absl::Duration d) {
    nanos_ = Add(nanos_, -d);
    return *this;
  }

  friend TimePoint operator+(TimePoint t, absl::Duration d) { return t += d; }
  friend TimePoint operator+(absl::Duration d, TimePoint t) { return t += d; }
  friend TimePoint operator-(TimePoint t, absl::Duration d) { return t -= d; }
  // The duration from `b` to `a` (negative when `a` is earlier).
  friend absl::Duration operator-(TimePoint a, TimePoint b) {
    // In nanoseconds as Durations: exact, no int64 overflow.
    return absl::Nanoseconds(a.nanos_) - absl::Nanoseconds(b.nanos_);
  }

  friend constexpr bool operator==(TimePoint a, TimePoint b) {
    return a.nanos_ == b.nanos_;
  }
  friend constexpr bool operator!=(TimePoint a, TimePoint b) {
    return a.nanos_ != b.nanos_;
  }
  friend constexpr bool operator<(TimePoint a, TimePoint b) {
    return a.nanos_ < b.nanos_;
  }
  friend constexpr bool operator<=(TimePoint a, TimePoint b) {
    return a.nanos_ <= b.nanos_;
  }
  friend constexpr bool operator>(TimePoint a, TimePoint b) {
    return a.nanos_ > b.nanos_;
  }
  friend constexpr bool operator>=(TimePoint a, TimePoint b) {
    return a.nanos_ >= b.nanos_;
  }

 private:
  explicit constexpr TimePoint(int64_t nanos) : nanos_(nanos) {}

  // `nanos + d` rounded up to the nanosecond, saturated.
  static int64_t Add(int64_t nanos, absl::Duration d) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    if (d == absl::InfiniteDuration()) return kMax;
    if (d == -absl::InfiniteDuration()) return kMin;
    // The exact sum as a Duration (absl::Duration spans +-2^63 s), rounded
    // up: ToInt64Nanoseconds truncates toward zero (and saturates).
    const absl::Duration sum = absl::Nanoseconds(nanos) + d;
    int64_t whole = absl::ToInt64Nanoseconds(sum);
    if (sum > absl::Nanoseconds(whole) && whole != kMax) ++whole;
    return whole;
  }

  int64_t nanos_ = 0;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIME_POINT_H_
