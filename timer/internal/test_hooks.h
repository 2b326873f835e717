// Copyright 2026 The timingwheel Authors.
//
// test_hooks.h
// -----------------------------------------------------------------------------
//
// `TimerTestHooks`: points inside `Timer` where a test may run code of its
// own, to force an interleaving that threads would reach only by chance.
// Each hook is a function pointer, null in production (one relaxed load on
// a path that is not the common one). Set them from tests only, before the
// timer is used, and reset them to null after.
//
// Not a public API: used by timer.cc and by tests.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_TEST_HOOKS_H_
#define TIMINGWHEEL_TIMER_INTERNAL_TEST_HOOKS_H_

#include <atomic>
#include <cstdint>

#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

struct TimerTestHooks {
  // Called by `Timer::Cancel()` and `TimerHandle::Cancel()` between
  // revoking a buffered task (one CAS, without the lock) and taking it out
  // of the inbox, on the cancelling thread, with no lock held.
  static std::atomic<void (*)()> after_revoke;
};

// TaskTestPeer: what a test may read of a task's insides.
class TaskTestPeer {
 public:
  // The task's reference count (the timer's references included).
  static int32_t Refs(const TimerTask& task) {
    return task.refs_.load(std::memory_order_acquire);
  }
  // The task's due time (nanoseconds from its timer's origin).
  static int64_t Due(const TimerTask& task) { return task.due_nanos_; }
  static void SetDue(TimerTask& task, int64_t due) { task.due_nanos_ = due; }
  // Overwrites the task's state word (see internal/task_state.h).
  static void SetState(TimerTask& task, uint32_t state) {
    task.state_.store(state, std::memory_order_release);
  }
};

inline void RunAfterRevokeHook() {
  if (void (*hook)() =
          TimerTestHooks::after_revoke.load(std::memory_order_relaxed)) {
    hook();
  }
}

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TEST_HOOKS_H_
