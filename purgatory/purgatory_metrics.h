// Copyright 2026 The timingwheel Authors.
//
// purgatory_metrics.h
// -----------------------------------------------------------------------------
//
// `PurgatoryMetrics`: a snapshot of a purgatory's counters, as
// `DelayedOperationPurgatory::Metrics()` returns it. Included by
// purgatory/delayed_operation_purgatory.h, which users include; a plain
// value, owned by the caller.

#ifndef TIMINGWHEEL_PURGATORY_PURGATORY_METRICS_H_
#define TIMINGWHEEL_PURGATORY_PURGATORY_METRICS_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>

namespace timingwheel {

// PurgatoryMetrics
//
// A snapshot of a purgatory's counters (see `Metrics()`).
struct PurgatoryMetrics {
  int64_t delayed = 0;          // Operations held now (see NumDelayed()).
  int64_t watched = 0;          // Watch-list entries now (one per key).
  int64_t keys = 0;             // Keys with a non-empty watch list now.
  int64_t completed = 0;        // Operations completed (including expired).
  int64_t expired = 0;          // Operations expired (delay or shutdown).
  int64_t purged = 0;           // Watch entries removed because their
                                // operation completed or expired.
  int64_t callback_errors = 0;  // Exceptions thrown by callbacks.
  int64_t reaper_wakeups = 0;   // Wake-ups of the timer's reaper (of the
                                // shared timer, for all its users).
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_PURGATORY_METRICS_H_
