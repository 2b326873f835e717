// Copyright 2026 The timingwheel Authors.
//
// timer_inbox.h
// -----------------------------------------------------------------------------
//
// `Timer::Inboxes`: the producer inboxes of a timer (see "Producer inboxes"
// in timer.h; internal/inbox.h holds the lock-free stripes). It promises
// that a buffered task is never slept over: it pushes an idle task without
// the timer's lock when it is due no earlier than the published floor,
// cancels a buffered task with one CAS, places buffered tasks in the wheel
// under the lock (the drains), and publishes the floor. Implemented in
// timer_inbox.cc, which explains the Dekker pair that makes this hold.
//
// Threads: `TryBuffer()`, `CancelBuffered()` and `WaitUntilRevokedOut()` run
// on any thread without the timer's lock (the last takes it); every `...Locked`
// function runs with the timer's `mu_` held.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_INBOX_H_
#define TIMINGWHEEL_TIMER_TIMER_INBOX_H_

#include <algorithm>
#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/base/thread_annotations.h"
#include "timer/internal/bucket.h"
#include "timer/internal/inbox.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timer_control.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::Inboxes {
 public:
  // What TryBuffer() did. kNo: nothing changed; add under the lock instead.
  // kRefused: Shutdown() came first (the task was withdrawn; any reference
  // the inbox held is dropped).
  enum class Buffered { kNo, kYes, kRefused };

  // Pushes `task` (idle, counted; the caller holds a reference and, with
  // `wheel_ref_taken`, counted the wheel's) onto this thread's stripe if it
  // is due no earlier than the floor. Inline (below): the push is every
  // lock-free add's whole work; what needs the lock is in AfterPush.
  static Buffered TryBuffer(Timer& timer, TimerTask* task, int64_t clock_now,
                            int64_t delay_nanos, bool wheel_ref_taken);
  // TryBuffer() after a push that must wake a sleeper (`wake`: due before
  // the floor) or drain the stripe (it reached kDrainThreshold): takes the
  // lock (not held by the caller), and after Shutdown() withdraws the task
  // (kRefused).
  static Buffered AfterPush(Timer& timer, TimerTask* task, bool wake);
  // After Shutdown(): takes the buffered tasks withdrawn or cancelled out
  // of the inbox (their revokers release them) and puts back those whose
  // producer has yet to withdraw them.
  static void ReleaseAfterShutdownLocked(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Places every buffered task in the wheel (those cancelled while
  // buffered are taken out, to be released by their revokers), then wakes
  // sleepers it made late. A no-op after Shutdown() (which drains last) and
  // without inboxes.
  static void DrainInboxesLocked(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // The same for the calling thread's stripe only (its adds keep their
  // order when it next takes the lock).
  static void DrainMineLocked(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // DrainInboxesLocked() for the const readers (Metrics(), NumPending()):
  // the drain changes where tasks wait, not what the timer holds. (The
  // analysis cannot follow the const_cast: the caller holds mu_.)
  static void DrainInboxesForReaderLocked(const Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    DrainInboxesLocked(const_cast<Timer&>(timer));
  }
  static void PlaceDrainedLocked(Timer& timer, internal::ListNode* chain)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Cancels `task` if it is buffered in the inbox of the timer with id
  // `owner`, without any lock: returns 1 if this call cancelled it (the
  // caller then owns the inbox's reference: see WaitUntilRevokedOut()), 0
  // if it was buffered and cancelled already, -1 if it is not buffered
  // there.
  static int CancelBuffered(TimerTask& task, uint32_t owner);
  // After this thread revoked `task` in the inbox (CancelBuffered() returned
  // 1, or CancelLocked() set `revoked`): drains until the task has left the
  // inbox (whichever thread's drain takes it), so that the caller may drop
  // the inbox's reference, and with it the task's captures, before its
  // Cancel() returns. Called without the lock; takes it (never the wheel).
  static void WaitUntilRevokedOut(internal::TimerControl* control,
                                  TimerTask& task);
  // Its locked part: a drain, or after Shutdown() the inbox's sweep.
  static void TakeRevokedLocked(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Sets wake_.sleep_deadline_max and publishes the inbox floor; returns
  // whether the floor rose (buffered tasks may then be due before it: the
  // caller must look at the inbox again before anyone sleeps on it).
  static bool SetSleepDeadlineMaxLocked(Timer& timer, int64_t deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  static bool PublishFloorLocked(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
};

ABSL_ATTRIBUTE_ALWAYS_INLINE inline Timer::Inboxes::Buffered
Timer::Inboxes::TryBuffer(Timer& timer, TimerTask* task, int64_t clock_now,
                          int64_t delay_nanos, bool wheel_ref_taken) {
  using State = internal::TaskState;
  // As a locked add: never before the wheel's time (see AddLocked).
  const int64_t due = internal::SaturatingAdd(
      std::max(clock_now, timer.inbox_.time_hint()), delay_nanos);
  // A task that never runs stays out (kMaxNanos is also the closed floor).
  if (due >= internal::kMaxNanos || due < timer.inbox_.floor_hint()) {
    return Buffered::kNo;
  }
  // Only an idle task: anything else (pending, queued, running, buffered,
  // another timer's) is the locked path's to sort out.
  if (!State::TryMarkInbox(task, timer.settings_.id)) return Buffered::kNo;
  if (!wheel_ref_taken) task->Ref();  // The wheel's, held by the inbox.
  task->due_nanos_ = due;
  internal::Inbox::Stripe& stripe = timer.inbox_.Mine();
  const int32_t depth =
      timer.inbox_.Push(stripe, internal::TimingWheel::AsNode(task));
  // The second look (seq_cst, after the push): a sleeper that published a
  // later deadline, the reaper running callbacks, or Shutdown() (all
  // publish a floor above `due`) may have missed the push.
  const bool wake = due < timer.inbox_.floor();
  if (!wake && depth < internal::Inbox::kDrainThreshold) {
    return Buffered::kYes;
  }
  return AfterPush(timer, task, wake);
}

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_INBOX_H_
