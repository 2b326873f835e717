// Copyright 2026 The timingwheel Authors.
//
// purgatory_options.h
// -----------------------------------------------------------------------------
//
// `PurgatoryOptions`: how a `DelayedOperationPurgatory` is built (shards,
// its own timer's options or a shared timer, the error hook). Included by
// purgatory/delayed_operation_purgatory.h, which users include; a plain
// value, copied by `DelayedOperationPurgatory::Create()`.

#ifndef TIMINGWHEEL_PURGATORY_PURGATORY_OPTIONS_H_
#define TIMINGWHEEL_PURGATORY_PURGATORY_OPTIONS_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <exception>
#include <functional>

#include "timer/timer.h"

namespace timingwheel {

// PurgatoryOptions
//
// How a `DelayedOperationPurgatory` is built.
struct PurgatoryOptions {
  // Watch-list shards; keys in different shards never contend. At least 1.
  int shards = 32;

  // The purgatory's own timer, when `shared_timer` is null. Its reaper is
  // always started (the purgatory's expiration reaper); tick, wheel size,
  // clock, executor (where expirations run) and max_pending are used as
  // given.
  TimerOptions timer;

  // A timer the caller owns, to share between purgatories (and other uses)
  // instead of one timer, with its reaper and executor threads, per
  // purgatory. Not owned; `timer` is then ignored, and expirations run on
  // that timer's executor, driven by its reaper (or by whoever calls its
  // `AdvanceClock()`). Lifetimes: the timer must outlive the purgatory.
  // Shut down or destroy the purgatory first: it expires its operations,
  // takes them off the timer, and leaves the timer running for its other
  // users. If the timer shuts down first, the purgatory's operations still
  // on it are among the tasks `Timer::Shutdown()` returns (running such a
  // task expires its operation); the others stay watched until they
  // complete or the purgatory's `Shutdown()` expires them, and an operation
  // handed in afterwards expires at once (`WatchOutcome::kExpired`).
  Timer* shared_timer = nullptr;

  // Called with every exception thrown by an operation's `TryComplete()`,
  // `OnComplete()` or `OnExpiration()`, on the thread that ran it. Null
  // reports each distinct exception type once on stderr. An exception thrown
  // by the hook itself is swallowed.
  std::function<void(std::exception_ptr)> on_callback_error;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_PURGATORY_OPTIONS_H_
