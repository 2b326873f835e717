// Copyright 2026 The timingwheel Authors.
//
// timer_embedded.h
// -----------------------------------------------------------------------------
//
// `Timer::EmbeddedSlots`: what a timer does for the `EmbeddedTimer`s it
// holds (embedded_timer.h): running one from its batch slot, and cancelling
// one so that no thread runs it afterwards. It promises that an embedded
// timer destroyed while queued is simply unlinked, and that its destructor
// returns only once no other thread runs it. Implemented in
// embedded_timer.cc.
//
// Threads: `RunEmbeddedSlot()` on the executor's threads, `CancelEmbedded()`
// on any thread, both without the timer's lock; `NotifyEmbeddedWaiters()`
// with it.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_EMBEDDED_H_
#define TIMINGWHEEL_TIMER_TIMER_EMBEDDED_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/internal/timer_control.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::EmbeddedSlots {
 public:
  // Runs the embedded timer at the front of embedded_ready_ (one batch slot
  // stands for one of them; see embedded_timer.cc). Called without mu_.
  static void RunEmbeddedSlot(Timer& timer);
  // Cancels embedded `task` of the timer behind `control`, then, unless the
  // calling thread is inside the task's own run, waits until no thread runs
  // it. With `destroying`, a run of `task` on the calling thread is told not
  // to touch it after it returns.
  static bool CancelEmbedded(internal::TimerControl* control, TimerTask* task,
                             bool destroying);
  // Wakes the threads CancelEmbedded() left waiting, if any.
  static void NotifyEmbeddedWaiters(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_EMBEDDED_H_
