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
//   * `Clock::Real()`: the process-wide monotonic clock (`steady_clock`),
//     with a coarse reading (`CLOCK_MONOTONIC_COARSE`) for timers that opt
//     into `TimerOptions::coarse_clock`.
//
// Tests inject `timingwheel::testing::ManualClock` (//timer:testing) instead,
// so that the real wheel runs deterministically without sleeping.

#ifndef TIMINGWHEEL_TIMER_CLOCK_H_
#define TIMINGWHEEL_TIMER_CLOCK_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <time.h>

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

  // Clock::CoarseNowNanos()
  //
  // A reading that may be cheaper than `NowNanos()` and lag behind it by up
  // to `CoarseStalenessNanos()`, never ahead of it. The default is
  // `NowNanos()`. Thread-safe.
  virtual int64_t CoarseNowNanos() { return NowNanos(); }

  // Clock::CoarseStalenessNanos()
  //
  // The most `CoarseNowNanos()` may lag behind `NowNanos()`; 0 (the
  // default) when it does not lag. Thread-safe.
  virtual int64_t CoarseStalenessNanos() const { return 0; }

  // Clock::Real()
  //
  // Returns the process-wide clock backed by `std::chrono::steady_clock`
  // (`CLOCK_MONOTONIC`); its coarse reading is `CLOCK_MONOTONIC_COARSE`,
  // stale by up to that clock's resolution (`clock_getres()`, the kernel's
  // tick: 1 to 10 ms). The returned object lives forever. Thread-safe.
  static Clock* Real();
};

namespace internal {

// ReadMonotonic()
//
// `Clock::Real()->NowNanos()` without the virtual call: what a timer on the
// real clock reads on its hot paths.
inline int64_t ReadMonotonic() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// ReadMonotonicCoarse()
//
// `Clock::Real()->CoarseNowNanos()` without the virtual call.
inline int64_t ReadMonotonicCoarse() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace internal

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_CLOCK_H_
