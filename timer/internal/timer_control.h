// Copyright 2026 The timingwheel Authors.
//
// timer_control.h
// -----------------------------------------------------------------------------
//
// `TimerControl` is the part of a `Timer` that outlives it: its lock, a
// pointer back to the timer (null once the timer is destroyed) and a
// reference count shared by the timer and every `TimerHandle` it returned.
// A handle locks the control block's mutex (which is the timer's own lock)
// and finds the timer gone instead of touching freed memory. One per timer:
// scheduling allocates nothing for it (a handle adds one reference).

#ifndef TIMINGWHEEL_TIMER_INTERNAL_TIMER_CONTROL_H_
#define TIMINGWHEEL_TIMER_INTERNAL_TIMER_CONTROL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/internal/mutex.h"

namespace timingwheel {

class Timer;

namespace internal {

// TimerControl
//
// A timer's lock and liveness, reference-counted. Created with one
// reference (the timer's). Thread-safe.
class TimerControl {
 public:
  TimerControl(Timer* timer, uint32_t timer_id)
      : timer_id(timer_id), timer(timer) {}
  TimerControl(const TimerControl&) = delete;
  TimerControl& operator=(const TimerControl&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // The timer's id in its tasks' state words (see TaskState): a handle
  // cancels its task without the lock while it sits in a producer inbox.
  const uint32_t timer_id;
  // The timer's lock (`Timer` guards its state with it).
  Mutex mu;
  // The timer, until its destructor has finished shutting it down.
  Timer* timer ABSL_GUARDED_BY(mu);
  // Threads waiting (with `mu`) for an `EmbeddedTimer`'s run to end, and
  // where they wait: here, not in the timer, because a waiter may still be
  // waking up when the timer is destroyed.
  int embedded_waiters ABSL_GUARDED_BY(mu) = 0;
  std::condition_variable embedded_done;

 private:
  ~TimerControl() = default;
  std::atomic<int64_t> refs_{1};
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TIMER_CONTROL_H_
