// Copyright 2026 The timingwheel Authors.
//
// timer_handle.h
// -----------------------------------------------------------------------------
//
// `TimerHandle` is what `Timer::Schedule()` returns: a way to cancel the
// scheduled callback. Dropping a handle does not cancel anything. A handle
// may outlive its timer: it then does nothing (`Cancel()` returns false).

#ifndef TIMINGWHEEL_TIMER_TIMER_HANDLE_H_
#define TIMINGWHEEL_TIMER_TIMER_HANDLE_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <utility>

#include "timer/internal/timer_control.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer;

// TimerHandle
//
// Refers to one scheduled callback. `Cancel()` is O(1), idempotent and
// callable from any thread. Destroying or resetting the handle does not
// cancel the callback. A handle keeps the callback's (small) task object
// alive and a small control block of its timer (not the timer itself): used
// after its timer was destroyed, it is harmless (`Cancel()` and `pending()`
// return false), so an object that cancels its handle in its destructor may
// outlive the timer. Thread-compatible: one handle must not be used from two
// threads at once, but copies of it may.
class TimerHandle {
 public:
  // An empty handle: `Cancel()` returns false.
  TimerHandle() = default;
  TimerHandle(const TimerHandle& other)
      : control_(other.control_), task_(other.task_) {
    if (control_ != nullptr) control_->Ref();
  }
  TimerHandle(TimerHandle&& other) noexcept
      : control_(std::exchange(other.control_, nullptr)),
        task_(std::move(other.task_)) {}
  TimerHandle& operator=(TimerHandle other) noexcept {
    std::swap(control_, other.control_);
    std::swap(task_, other.task_);
    return *this;
  }
  ~TimerHandle() {
    if (control_ != nullptr) control_->Unref();
  }

  // TimerHandle::Cancel()
  //
  // Prevents the callback from running if its run has not started (also
  // once it has been handed to the executor). Returns true if this call
  // prevented the run; false if it already ran, is running, was already
  // cancelled, the timer was shut down or destroyed, or the handle is empty.
  // Thread-safe with respect to the timer.
  bool Cancel();

  // TimerHandle::pending()
  //
  // Returns whether the callback is still waiting to run (in the timer, or
  // handed to the executor and not started): whether `Cancel()` would
  // prevent it. False once the timer is shut down or destroyed. A snapshot:
  // it may change right after the call returns. Thread-safe.
  bool pending() const;

  // TimerHandle::valid()
  //
  // Returns whether the handle refers to a callback.
  bool valid() const { return task_ != nullptr; }

 private:
  friend class Timer;
  // Takes over a reference to `control` that the caller counted.
  TimerHandle(internal::TimerControl* control, TaskPtr<TimerTask> task)
      : control_(control), task_(std::move(task)) {}

  internal::TimerControl* control_ = nullptr;
  TaskPtr<TimerTask> task_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_HANDLE_H_
