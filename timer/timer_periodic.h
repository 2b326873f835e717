// Copyright 2026 The timingwheel Authors.
//
// timer_periodic.h
// -----------------------------------------------------------------------------
//
// `Timer::Periodic`: the timer's side of periodic tasks (periodic_task.h):
// re-adding a run from its `Run()` at its next grid point, and the
// `PeriodicHandle::Reset*()` family. It promises the fixed-rate grid of
// `Timer::SchedulePeriodic()` (no drift, never early, one scheduling at a
// time). `Timer::AddPeriodic()`, the first add, stays in `Timer` (its
// template calls it). Implemented in timer_scheduling.cc.
//
// Threads: any thread; `ResetPeriodicLocked()` with the timer's `mu_` held,
// the others without it.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_PERIODIC_H_
#define TIMINGWHEEL_TIMER_TIMER_PERIODIC_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/internal/timer_control.h"
#include "timer/periodic_task.h"
#include "timer/time_point.h"
#include "timer/timer.h"

namespace timingwheel {

class Timer::Periodic {
 public:
  // Re-adds a periodic task from its Run(), at its next due time.
  static void RearmPeriodic(Timer& timer, internal::PeriodicTaskBase& task);
  // PeriodicHandle::Reset*() on the timer behind `control` (if it is
  // alive), and its part with mu_ held: moves the waiting run, or marks the
  // re-arm of the run in progress; false when the series has ended.
  static bool ResetPeriodic(internal::TimerControl* control,
                            internal::PeriodicTaskBase& task,
                            PeriodicHandle::ResetKind kind, int64_t nanos);
  static bool ResetPeriodicLocked(Timer& timer,
                                  internal::PeriodicTaskBase& task,
                                  PeriodicHandle::ResetKind kind, int64_t nanos,
                                  bool& drop_ref, bool* earlier)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // `deadline` as a grid point of `period` relative to origin_: as
  // RelativeOf(), except that one before the origin keeps its phase (the
  // last grid point at or before the origin, in (-period, 0]).
  static int64_t PeriodicGridOf(const Timer& timer, TimePoint deadline,
                                int64_t period);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_PERIODIC_H_
