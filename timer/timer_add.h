// Copyright 2026 The timingwheel Authors.
//
// timer_add.h
// -----------------------------------------------------------------------------
//
// `Timer::Placement`: the one place that puts a task in the wheel under the
// lock (every add, move and re-add but the inbox drains goes through
// `AddLocked()`), and the errors of a refused add. It promises the rules of
// `Timer::Add()`: never before the wheel's time, one timer per task, no add
// of a task stopped while it runs, `max_pending`, and a wake-up of the
// sleepers when the add is due before they would wake. Implemented in
// timer.cc.
//
// Threads: any thread, with the timer's `mu_` held for `AddLocked()`.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_ADD_H_
#define TIMINGWHEEL_TIMER_TIMER_ADD_H_

#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::Placement {
 public:
  // With mu_ held: adds or moves `task`, due at `base` (never before the
  // wheel's time) plus `delay_nanos`, both relative to origin_. Sets
  // `drop_ref` when the caller must drop a reference after unlocking (the
  // one it counted with `wheel_ref_taken`, when refused or moved; never for
  // an embedded timer, which has no count), `*moved` to whether the task was
  // waiting already, and `*earlier` to true when the add made the next due
  // instant earlier (left alone otherwise): the caller then calls
  // settings_.on_next_due_earlier after unlocking.
  static absl::Status AddLocked(Timer& timer, TimerTask* task, int64_t base,
                                int64_t delay_nanos, bool wheel_ref_taken,
                                bool& drop_ref, bool* moved = nullptr,
                                bool* earlier = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // AddInternal()'s locked path: drains this thread's stripe, then
  // AddLocked() (with `moved` null), then drops the reference AddLocked()
  // asks for and calls on_next_due_earlier, both after unlocking. Out of
  // line, so that the lock-free add saves no registers for it.
  ABSL_ATTRIBUTE_NOINLINE static absl::Status AddWithLock(
      Timer& timer, TimerTask* task, int64_t clock_now, int64_t delay_nanos,
      bool wheel_ref_taken) ABSL_LOCKS_EXCLUDED(timer.mu_);
  // The error for an Add() of a task without a reference count.
  static absl::Status NotCountedError(const TimerTask& task);
  // The error for an add after Shutdown().
  static absl::Status ShutdownError();
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_ADD_H_
