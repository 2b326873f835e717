// Copyright 2026 The timingwheel Authors.
//
// clock.h
// -----------------------------------------------------------------------------
//
// A timer reads time from a `Clock` and its reaper sleeps through it. This
// file defines:
//
//   * `Clock`: the interface: monotonic nanoseconds and a way to sleep until a
//     deadline or a notification.
//   * `Clock::Real()`: the process-wide monotonic clock (`steady_clock`).
//
// Tests inject `timingwheel::testing::ManualClock` (//timer:testing) instead,
// so that the real wheel runs deterministically without sleeping.

#ifndef TIMINGWHEEL_TIMER_CLOCK_H_
#define TIMINGWHEEL_TIMER_CLOCK_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>

namespace timingwheel {

// kInfiniteFutureNanos
//
// A deadline that never arrives: waiting for it ends only by notification.
inline constexpr int64_t kInfiniteFutureNanos =
    std::numeric_limits<int64_t>::max();

// Clock
//
// A source of monotonic time, in nanoseconds from an arbitrary fixed origin,
// and the primitive a timer's reaper sleeps with. Never wall time: a `Clock`
// must not jump with the system's date. Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;

  // Clock::NowNanos()
  //
  // Returns the current time in nanoseconds since the clock's origin.
  // Thread-safe.
  virtual int64_t NowNanos() = 0;

  // Clock::WaitUntil()
  //
  // Blocks the calling thread, which holds `lock` (a lock on the mutex that
  // `cv` is used with), until `cv` is notified or `NowNanos()` reaches
  // `deadline_nanos`, then returns with `lock` held again. May return early
  // (spuriously); callers re-check their condition. A deadline of
  // `kInfiniteFutureNanos` waits for a notification only. Thread-safe.
  virtual void WaitUntil(std::condition_variable& cv,
                         std::unique_lock<std::mutex>& lock,
                         int64_t deadline_nanos) = 0;

  // Clock::Real()
  //
  // Returns the process-wide clock backed by `std::chrono::steady_clock`. The
  // returned object lives forever. Thread-safe.
  static Clock* Real();
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_CLOCK_H_
