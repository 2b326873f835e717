// Copyright 2026 The timingwheel Authors.
//
// timer_handle.h
// -----------------------------------------------------------------------------
//
// `TimerHandle` is what `Timer::Schedule()` returns: a way to cancel the
// scheduled callback. Dropping a handle does not cancel anything.

#ifndef TIMINGWHEEL_TIMER_TIMER_HANDLE_H_
#define TIMINGWHEEL_TIMER_TIMER_HANDLE_H_

#include <utility>

#include "timer/timer_task.h"

namespace timingwheel {

class Timer;

// TimerHandle
//
// Refers to one scheduled callback. `Cancel()` is O(1), idempotent and
// callable from any thread. Destroying or resetting the handle does not
// cancel the callback. A handle keeps the callback's (small) task object
// alive, not the timer: it must not be used after its timer is destroyed.
// Thread-compatible: one handle must not be used from two threads at once,
// but copies of it may.
class TimerHandle {
 public:
  // An empty handle: `Cancel()` returns false.
  TimerHandle() = default;

  // TimerHandle::Cancel()
  //
  // Prevents the callback from running if it has not been handed to the
  // executor yet. Returns true if this call prevented the run; false if it
  // already ran, is running, was already cancelled, the timer was shut down,
  // or the handle is empty. Thread-safe with respect to the timer.
  bool Cancel();

  // TimerHandle::pending()
  //
  // Returns whether the callback is still waiting in the timer. A snapshot:
  // it may change right after the call returns. Thread-safe.
  bool pending() const;

  // TimerHandle::valid()
  //
  // Returns whether the handle refers to a callback.
  bool valid() const { return task_ != nullptr; }

 private:
  friend class Timer;
  TimerHandle(Timer* timer, TaskPtr<TimerTask> task)
      : timer_(timer), task_(std::move(task)) {}

  Timer* timer_ = nullptr;
  TaskPtr<TimerTask> task_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_HANDLE_H_
