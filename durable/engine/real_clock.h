// Copyright 2026 The timingwheel Authors.
//
// real_clock.h
// -----------------------------------------------------------------------------
//
// The process's steady clock, on which leases and the maintenance thread's
// deadlines are kept. This file defines:
//
//   * `RealNanos()`: that clock's reading, in nanoseconds.
//
// Thread safety: thread-safe.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_REAL_CLOCK_H_
#define TIMINGWHEEL_DURABLE_ENGINE_REAL_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace timingwheel {
namespace durable_internal {

// RealNanos()
//
// `std::chrono::steady_clock`, in nanoseconds since its epoch (never goes
// back; unrelated to the wheel's clock, which a test may drive).
inline int64_t RealNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_REAL_CLOCK_H_
