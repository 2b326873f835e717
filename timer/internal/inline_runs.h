// Copyright 2026 The timingwheel Authors.
//
// inline_runs.h
// -----------------------------------------------------------------------------
//
// `InlineRuns`: what the reaper of a timer with the default executor keeps
// to run due batches itself (see internal/standby_executor.h and
// `Timer::Reaper` in timer/timer_reaper.h): the batches its current flush
// kept, and how long a callback runs, from which it decides whether to run
// them or hand them to the standby thread. Plain data; private to //timer.
//
// `Watchdog`: whether the reaper runs callbacks inline now, and the due
// instant the standby's watchdog is armed to meanwhile.
//
// Thread safety: `InlineRuns::batches` and `handed_off` belong to the reaper
// thread (no lock); `run_ns_per_task` is atomic, written after each batch
// on whichever thread ran it. `Watchdog` is guarded by the timer's lock.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_INLINE_RUNS_H_
#define TIMINGWHEEL_TIMER_INTERNAL_INLINE_RUNS_H_

#include <atomic>
#include <cstdint>
#include <vector>

namespace timingwheel {

class TimerTask;

namespace internal {

struct InlineRuns {
  // The batches the reaper's current flush keeps to run itself, and
  // whether this flush has handed its batches to the executor instead (it
  // had more than one chunk).
  std::vector<std::vector<TimerTask*>> batches;
  bool handed_off = false;
  // How long a callback of this timer runs, in ns (an average of recent
  // batches, on either thread): RunInlineBatches() runs a batch on the
  // reaper only when nothing else comes due before it would have run.
  std::atomic<int64_t> run_ns_per_task{1000};
};

struct Watchdog {
  // Whether the reaper runs callbacks inline now, with the watchdog armed
  // to `deadline` (relative; kMaxNanos: none yet).
  bool active = false;
  int64_t deadline = 0;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_INLINE_RUNS_H_
