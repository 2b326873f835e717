// Copyright 2026 The timingwheel Authors.
//
// task_state.h
// -----------------------------------------------------------------------------
//
// `TaskState` reads and updates a task's scheduling state: one atomic 32-bit
// word in the task (see `TimerTask`) that holds the id of the timer the task
// belongs to and seven flags. The timer changes it under its lock; the
// executor's threads change it without any lock, so every change is a
// compare-and-swap on the whole word:
//
//   * kPending: in one of the owner's lists (the wheel, or a flush list).
//     Set and cleared under the owner's lock only.
//   * kQueued: handed to the executor in a batch, `Run()` not started. Set
//     under the lock; cleared by the thread that starts `Run()`, or under the
//     lock by `Cancel()`, by a move (`Add()`) or by a batch the executor
//     dropped.
//   * kRunning: `Run()` in progress (set by the thread that claims kQueued).
//   * kDeferred: while kRunning, a batch found the task queued again and left
//     the run to the running thread (with its reference), which runs it
//     again after `Run()` returns if kQueued is still set: a task never runs
//     concurrently with itself.
//   * kStopped: `Cancel()` while kRunning: adds fail until `Run()` returns.
//   * kInbox: in one of the owner's producer inboxes (internal/inbox.h),
//     which holds its link and the wheel's reference until a drain takes it.
//     Set by the producer (from 0, without the lock); cleared under the lock
//     only, by the drain: to kPending (placed in the wheel) or, with
//     kRevoked, to 0 (released). While it is set, an add of the task waits
//     for the drain (the link is in use); see Timer::AddLocked().
//   * kRevoked: with kInbox only: `Cancel()` took the buffered task back
//     (without the lock, or under it); the drain takes it out of the inbox
//     instead of placing it (to 0), and the thread that set kRevoked, alone,
//     drops the inbox's reference once it has left (after
//     Timer::WaitUntilRevokedOut): so the task and its captures are released
//     before that `Cancel()` returns, whichever thread's drain took it.
//
// A word with none of kPending, kQueued, kRunning, kDeferred, kInbox is 0: the
// task is idle and belongs to no timer.
//
// Not a public API: used by timer.cc.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_TASK_STATE_H_
#define TIMINGWHEEL_TIMER_INTERNAL_TASK_STATE_H_

#include <atomic>
#include <cstdint>

#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

// TaskState
//
// Static helpers over `TimerTask::state_`. Thread-safe (atomic).
class TaskState {
 public:
  static constexpr uint32_t kPending = 1;
  static constexpr uint32_t kQueued = 2;
  static constexpr uint32_t kRunning = 4;
  static constexpr uint32_t kDeferred = 8;
  static constexpr uint32_t kStopped = 16;
  static constexpr uint32_t kInbox = 32;
  static constexpr uint32_t kRevoked = 64;
  static constexpr uint32_t kBusy =
      kPending | kQueued | kRunning | kDeferred | kInbox;
  static constexpr int kFlagBits = 7;
  // The largest timer id the word can hold (2^25 - 1 timers alive at once).
  static constexpr uint32_t kMaxOwner = (uint32_t{1} << (32 - kFlagBits)) - 1;

  // The due time a task's `due_nanos_` holds once a scheduling of it was
  // cancelled (no real due time is negative): what tells "cancelled" from
  // "ran" for an idle task (`TimerHandle::status()`). Written under the
  // owner's lock, or before the state change that makes the task idle.
  static constexpr int64_t kCancelledDue = INT64_MIN;

  // TaskState::Load()
  //
  // The task's state word.
  static uint32_t Load(const TimerTask* task) {
    return task->state_.load(std::memory_order_acquire);
  }

  // TaskState::Owner()
  //
  // The id of the timer a state word belongs to (0: none).
  static uint32_t Owner(uint32_t state) { return state >> kFlagBits; }

  // TaskState::Make()
  //
  // The word for `owner` and `flags`, or 0 when `flags` has no busy flag (an
  // idle task belongs to no timer and is not stopped).
  static uint32_t Make(uint32_t owner, uint32_t flags) {
    return (flags & kBusy) == 0
               ? 0
               : (owner << kFlagBits) | (flags & ((1u << kFlagBits) - 1));
  }

  // TaskState::Cas()
  //
  // Replaces the word with `desired` if it is still `expected`; otherwise
  // loads the current word into `expected` and returns false.
  static bool Cas(TimerTask* task, uint32_t& expected, uint32_t desired) {
    return task->state_.compare_exchange_weak(expected, desired,
                                              std::memory_order_acq_rel,
                                              std::memory_order_acquire);
  }
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TASK_STATE_H_
