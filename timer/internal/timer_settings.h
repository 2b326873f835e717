// Copyright 2026 The timingwheel Authors.
//
// timer_settings.h
// -----------------------------------------------------------------------------
//
// `TimerSettings`: what a `Timer`'s options fixed for its life, resolved
// once by its constructor (timer/timer.cc) from `TimerOptions`. A plain
// value of const fields: every part of the timer reads it on any thread
// without a lock. Private to //timer.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_TIMER_SETTINGS_H_
#define TIMINGWHEEL_TIMER_INTERNAL_TIMER_SETTINGS_H_

#include <cstdint>
#include <exception>
#include <functional>

#include "absl/time/time.h"

namespace timingwheel {

class Clock;

namespace internal {

// TimerSettings
//
// The fixed settings of one timer (see `TimerOptions` for what each means
// to users).
struct TimerSettings {
  // This timer's id in its tasks' state words (see internal::TaskState).
  const uint32_t id;
  // The clock the timer reads (never null: `Clock::Real()` by default).
  Clock* const clock;
  const bool real_clock;       // `clock` is Clock::Real(): read it directly.
  const int64_t coarse_slack;  // > 0: ClockRelative() reads coarse.
  // Whether the reaper runs the batches it flushes itself (the default
  // executor, the reaper and the real clock): one wake-up per due instant
  // for the process. See internal/standby_executor.h.
  const bool run_inline;
  const int64_t max_pending;
  const absl::Duration default_timeout;
  const std::function<void(std::exception_ptr)> on_callback_error;
  const std::function<void()> on_next_due_earlier;
  // Whether adds may use the producer inboxes (see "Producer inboxes" in
  // timer/timer.h).
  const bool use_inbox;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TIMER_SETTINGS_H_
