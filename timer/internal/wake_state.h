// Copyright 2026 The timingwheel Authors.
//
// wake_state.h
// -----------------------------------------------------------------------------
//
// `WakeState`: who flushes a timer and who sleeps in its `AdvanceClock()`,
// and until when, so that an add due before the sleepers would wake
// notifies them (see `Timer::Reaper` in timer/timer_reaper.h). Plain data;
// private to //timer.
//
// Thread safety: guarded by the timer's lock (the member is
// `ABSL_GUARDED_BY(mu_)` in `Timer`).

#ifndef TIMINGWHEEL_TIMER_INTERNAL_WAKE_STATE_H_
#define TIMINGWHEEL_TIMER_INTERNAL_WAKE_STATE_H_

#include <cstdint>

namespace timingwheel {
namespace internal {

struct WakeState {
  // `sleep_deadline_max` when no sleeper needs waking.
  static constexpr int64_t kNoSleeper = -1;

  // Whether a thread is inside FlushDue() (which releases the lock between
  // chunks): flushes never overlap.
  bool flusher_active = false;
  // At least the latest deadline any thread sleeping in AdvanceClock() waits
  // for (kNoSleeper when none needs waking): an Add() due earlier notifies.
  int64_t sleep_deadline_max = kNoSleeper;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_WAKE_STATE_H_
