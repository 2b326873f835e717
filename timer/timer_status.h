// Copyright 2026 The timingwheel Authors.
//
// timer_status.h
// -----------------------------------------------------------------------------
//
// `Timer::TaskStatuses`: what a handle or an embedded timer reads about its
// task (`TimerHandle::status()`, `TimerHandle::Deadline()` and theirs in
// embedded_timer.h). It promises a reading consistent with the timer's
// state under its lock, and a sensible answer once the timer is gone.
// Implemented in timer_status.cc.
//
// Threads: any thread, with `control->mu` (the timer's lock) held.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_STATUS_H_
#define TIMINGWHEEL_TIMER_TIMER_STATUS_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/internal/timer_control.h"
#include "timer/time_point.h"
#include "timer/timer.h"
#include "timer/timer_handle.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::TaskStatuses {
 public:
  // The status and the deadline of `task`, a handle's or an embedded
  // timer's, last scheduled on the timer behind `control`, with
  // `control->mu` held (see `TimerHandle::status()` and
  // `TimerHandle::Deadline()`).
  static TaskStatus StatusLocked(const internal::TimerControl* control,
                                 const TimerTask& task);
  static TimePoint DeadlineLocked(const internal::TimerControl* control,
                                  const TimerTask& task);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_STATUS_H_
