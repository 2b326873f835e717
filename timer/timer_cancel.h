// Copyright 2026 The timingwheel Authors.
//
// timer_cancel.h
// -----------------------------------------------------------------------------
//
// `Timer::Cancels`: taking a task back, for `Timer::Cancel()`,
// `TimerHandle::Cancel()` and `EmbeddedTimer::Cancel()`. It promises that a
// cancel prevents a run that has not started (the task leaves the wheel, or
// its batch skips it), stops a task whose `Run()` runs from being added
// again until it returns, and counts each cancel once. Implemented in
// timer_cancel.cc (with `Timer::Cancel()` and the handle's methods).
//
// Threads: any thread; the `...Locked` functions with the timer's `mu_`
// held, `NotifyCancelled()` with no lock of the timer.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_CANCEL_H_
#define TIMINGWHEEL_TIMER_TIMER_CANCEL_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::Cancels {
 public:
  // Cancel() with mu_ held; sets `drop_ref` when the caller must drop the
  // wheel's reference (after unlocking), and `revoked` when it revoked the
  // task in an inbox (the caller then waits for it to leave with
  // WaitUntilRevokedOut() and drops the inbox's reference).
  static bool CancelLocked(Timer& timer, TimerTask& task, bool& drop_ref,
                           bool& revoked)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Whether `task` waits in `timer` (pending, buffered or queued to run).
  static bool IsPendingLocked(const Timer& timer, const TimerTask& task)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Calls `task.OnCancelled()`; an exception is reported on stderr (once
  // per type) and swallowed. Called without any lock of the timer.
  static void NotifyCancelled(TimerTask& task);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_CANCEL_H_
