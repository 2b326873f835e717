// Copyright 2026 The timingwheel Authors.
//
// timer_metrics.h
// -----------------------------------------------------------------------------
//
// `TimerMetrics`: a snapshot of a timer's counters, as `Timer::Metrics()`
// returns it. Included by timer/timer.h, which users include; a plain value,
// taken under the timer's lock and then owned by the caller.

#ifndef TIMINGWHEEL_TIMER_TIMER_METRICS_H_
#define TIMINGWHEEL_TIMER_TIMER_METRICS_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>

namespace timingwheel {

// TimerMetrics
//
// A consistent snapshot of a timer's counters (see `Timer::Metrics()`).
struct TimerMetrics {
  int64_t pending = 0;          // Tasks waiting now.
  int64_t added = 0;            // Successful Add/Schedule calls (moves count).
  int64_t expired = 0;          // Tasks handed to the executor to run (less
                                // those cancelled or moved before Run()).
  int64_t cancelled = 0;        // Tasks cancelled (by Cancel, Shutdown, or
                                // an executor that dropped their batch).
  int64_t reaper_wakeups = 0;   // Returns from the flusher's wait (the
                                // reaper's, or an AdvanceClock() caller's).
  int64_t buckets_flushed = 0;  // Buckets emptied because their key was due.
  int64_t tasks_cascaded = 0;   // Not-yet-due tasks placed again by a flush.
  int64_t callback_errors = 0;  // Exceptions thrown by tasks.
  int levels = 0;               // Wheel levels created so far.
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_METRICS_H_
