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

  // Named transitions
  //
  // Each is one compare-and-swap loop over the word (`Cas()`: acq_rel on
  // success, acquire on failure), retried until it succeeds or the word says
  // the transition does not apply. Callers state which lock they hold; the
  // functions themselves take none.

  // TaskState::MarkQueued()
  //
  // kPending -> kQueued: a due task leaves the wheel for a batch (Cancel()
  // can still take it back until `Run()` starts). Under the owner's lock.
  static void MarkQueued(TimerTask* task) {
    uint32_t state = Load(task);
    while (!Cas(task, state, (state & ~kPending) | kQueued)) {
    }
  }

  // TaskState::ClearPending()
  //
  // Clears kPending (the word goes idle unless another busy flag is set):
  // Shutdown() sweeping a task it took out of the wheel.
  static void ClearPending(TimerTask* task) {
    uint32_t state = Load(task);
    while (!Cas(task, state, Make(Owner(state), state & ~kPending))) {
    }
  }

  // TaskState::SweepPending()
  //
  // Clears kPending of a task of timer `owner` that CancelAll() took out of
  // the wheel; a task running meanwhile (re-added while it runs) is also
  // marked kStopped, as Cancel() does. Under the owner's lock.
  static void SweepPending(TimerTask* task, uint32_t owner) {
    uint32_t state = Load(task);
    for (;;) {
      uint32_t flags = state & ~kPending;
      if ((state & kRunning) != 0) flags |= kStopped;
      if (Cas(task, state, Make(owner, flags))) return;
    }
  }

  // How a batch's claim of a task ended (TryClaimForRun()).
  enum class Claim {
    kSkipped,   // Not queued (cancelled or moved), or a run is owed already.
    kHandedOn,  // Running elsewhere: kDeferred set, that thread runs it.
    kClaimed,   // kQueued -> kRunning: the caller runs it.
  };

  // TaskState::TryClaimForRun()
  //
  // A batch reaching a queued task: claims the run (kQueued -> kRunning), or,
  // while another thread runs it, leaves the run to that thread (kDeferred),
  // so that a task never runs concurrently with itself. Without a lock.
  static Claim TryClaimForRun(TimerTask* task) {
    uint32_t state = Load(task);
    for (;;) {
      if ((state & kQueued) == 0) return Claim::kSkipped;
      if ((state & kRunning) != 0) {
        if ((state & kDeferred) != 0) return Claim::kSkipped;
        if (Cas(task, state, state | kDeferred)) return Claim::kHandedOn;
        continue;
      }
      if (Cas(task, state, (state & ~kQueued) | kRunning)) {
        return Claim::kClaimed;
      }
    }
  }

  // How a run ended (FinishRun()).
  enum class RunEnd {
    kDone,              // Idle again (or pending/queued anew, not running).
    kDoneDropDeferred,  // As kDone; a deferred run was cancelled meanwhile:
                        // the caller drops the reference it came with.
    kAgain,             // A deferred run is owed: still kRunning, run again.
  };

  // TaskState::FinishRun()
  //
  // After `Run()` returns: runs again if a batch left a run to this thread
  // and it is still queued (clearing kDeferred and kQueued), otherwise
  // clears kRunning, kDeferred and kStopped. Called by the running thread.
  static RunEnd FinishRun(TimerTask* task) {
    uint32_t state = Load(task);
    for (;;) {
      const bool deferred = (state & kDeferred) != 0;
      const bool again = deferred && (state & kQueued) != 0;
      const uint32_t desired =
          again
              ? state & ~(kDeferred | kQueued)
              : Make(Owner(state), state & ~(kRunning | kDeferred | kStopped));
      if (Cas(task, state, desired)) {
        return again      ? RunEnd::kAgain
               : deferred ? RunEnd::kDoneDropDeferred
                          : RunEnd::kDone;
      }
    }
  }

  // TaskState::TryCancelQueued()
  //
  // kQueued -> not queued for a task whose batch the executor dropped: sets
  // its due time to kCancelledDue before the word may go idle (restored if
  // the swap fails). Returns false, changing nothing, if it was not queued.
  // Under the owner's lock.
  static bool TryCancelQueued(TimerTask* task) {
    uint32_t state = Load(task);
    while ((state & kQueued) != 0) {
      const int64_t due = task->due_nanos_;
      task->due_nanos_ = kCancelledDue;
      if (Cas(task, state, Make(Owner(state), state & ~kQueued))) return true;
      task->due_nanos_ = due;
    }
    return false;
  }

  // TaskState::TryMarkInbox()
  //
  // Idle (0) -> kInbox of timer `owner`: a producer takes an idle task for
  // its inbox. One attempt: false when the word is not 0 (or the weak swap
  // failed), and the caller takes the locked path. Without a lock.
  static bool TryMarkInbox(TimerTask* task, uint32_t owner) {
    uint32_t idle = 0;
    return Cas(task, idle, Make(owner, kInbox));
  }

  // How a revoke of a buffered task ended (TryRevokeBuffered()).
  enum class Revoke {
    kNotBuffered,     // Not in an inbox of `owner`.
    kAlreadyRevoked,  // Another cancel took it back first.
    kRevoked,         // kRevoked set: the caller releases the task.
  };

  // TaskState::TryRevokeBuffered()
  //
  // Sets kRevoked on a task in one of timer `owner`'s inboxes: the drain then
  // takes it out instead of placing it. Without a lock, or under it.
  static Revoke TryRevokeBuffered(TimerTask* task, uint32_t owner) {
    uint32_t state = Load(task);
    while ((state & kInbox) != 0 && Owner(state) == owner) {
      if ((state & kRevoked) != 0) return Revoke::kAlreadyRevoked;
      if (Cas(task, state, state | kRevoked)) return Revoke::kRevoked;
    }
    return Revoke::kNotBuffered;
  }

  // TaskState::WithdrawBuffered()
  //
  // Sets kRevoked if the word is exactly `Make(owner, kInbox)` (buffered, not
  // revoked): a producer taking back its own push after Shutdown(). Returns
  // whether it did. Under the owner's lock.
  static bool WithdrawBuffered(TimerTask* task, uint32_t owner) {
    const uint32_t live = Make(owner, kInbox);
    uint32_t state = Load(task);
    while (state == live) {
      if (Cas(task, state, live | kRevoked)) return true;
    }
    return false;
  }

  // How a drain took a task out of an inbox (TakeFromInbox()).
  enum class Drained {
    kPlaced,    // kInbox -> kPending: the caller places it in the wheel.
    kReleased,  // Revoked: -> 0, due time kCancelledDue.
  };

  // TaskState::TakeFromInbox()
  //
  // A drain of timer `owner` taking a task out of its inbox: to kPending, or,
  // if it was revoked, to idle with its due time set to kCancelledDue first
  // (a lock-free add may write the task once the word is 0). Under the
  // owner's lock.
  static Drained TakeFromInbox(TimerTask* task, uint32_t owner) {
    uint32_t state = Load(task);
    for (;;) {
      if ((state & kRevoked) == 0) {
        if (Cas(task, state, Make(owner, kPending))) return Drained::kPlaced;
      } else {
        task->due_nanos_ = kCancelledDue;
        if (Cas(task, state, 0)) return Drained::kReleased;
      }
    }
  }

  // TaskState::ReleaseRevoked()
  //
  // A revoked task out of its inbox after Shutdown(): due time kCancelledDue,
  // then the word to 0. Under the owner's lock.
  static void ReleaseRevoked(TimerTask* task) {
    task->due_nanos_ = kCancelledDue;
    uint32_t state = Load(task);
    while (!Cas(task, state, 0)) {
    }
  }
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TASK_STATE_H_
