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

class TimerControl;

// One thread's spare references to the control block it used last (see
// TimerControl::RefForHandle()), given back when it moves to another block
// or exits (RefCacheReleaser, timer_control.cc). Trivially destructible and
// constant-initialized, so that the inline paths read it without a guard.
struct ControlRefCache {
  TimerControl* control = nullptr;
  int64_t spare = 0;
};
inline thread_local ControlRefCache control_ref_cache;

// TimerControl
//
// A timer's lock and liveness, reference-counted. Created with one
// reference (the timer's). Thread-safe.
class TimerControl {
 public:
  TimerControl(Timer* owner, uint32_t id) : timer_id(id), timer(owner) {}
  TimerControl(const TimerControl&) = delete;
  TimerControl& operator=(const TimerControl&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() { Unref(1); }

  // TimerControl::RefForHandle() / UnrefForHandle()
  //
  // Ref() and Unref() through a per-thread cache of spare references to
  // one control block (the one this thread used last), taken and given
  // back in batches of kRefBatch: a thread that schedules (and drops
  // handles) in a loop writes the shared count once per batch, not twice
  // per handle, so producer threads do not bounce its cache line. A
  // reference from either pair may be dropped by the other. Spare
  // references keep the block (not the timer) alive until the thread uses
  // another timer's handles or exits.
  // The fast paths (the thread's spares are this block's) are inline: a
  // Schedule() takes a reference for its handle every time.
  static constexpr int64_t kRefBatch = 64;
  void RefForHandle() {
    ControlRefCache& cache = control_ref_cache;
    if (cache.control == this && cache.spare > 0) {
      --cache.spare;
      return;
    }
    RefForHandleSlow();
  }
  void UnrefForHandle() {
    ControlRefCache& cache = control_ref_cache;
    if (cache.control == this && cache.spare < 2 * kRefBatch) {
      ++cache.spare;  // Never the last: the cache's spares count too.
      return;
    }
    Unref();
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
  friend struct RefCacheReleaser;
  // RefForHandle() when the thread's spares are another block's or none.
  void RefForHandleSlow();

  ~TimerControl() = default;
  void Unref(int64_t count) {
    if (refs_.fetch_sub(count, std::memory_order_acq_rel) == count) {
      delete this;
    }
  }
  std::atomic<int64_t> refs_{1};
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TIMER_CONTROL_H_
