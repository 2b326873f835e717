// Copyright 2026 The timingwheel Authors.
//
// Taking a task back: Timer::Cancel(), TimerHandle::Cancel() and
// TimerHandle::pending(), and Timer::Cancels (timer_cancel.h), which they
// share with EmbeddedTimer. A buffered task is cancelled without the lock
// (Timer::Inboxes); every other cancel takes it.

#include <cstdint>
#include <exception>

#include "timer/internal/mutex.h"
#include "timer/internal/report_error.h"
#include "timer/internal/task_state.h"
#include "timer/internal/test_hooks.h"
#include "timer/internal/timing_wheel.h"
#include "timer/timer.h"
#include "timer/timer_handle.h"
#include "timer/timer_impl.h"

namespace timingwheel {

using State = internal::TaskState;

bool Timer::Cancel(TimerTask& task) {
  bool cancelled;
  bool drop_ref = false;
  bool revoked = false;
  const int buffered = settings_.use_inbox
                           ? Timer::Inboxes::CancelBuffered(task, settings_.id)
                           : -1;
  if (buffered >= 0) {
    cancelled = revoked = buffered == 1;
  } else {
    internal::MutexLock lock(mu_);
    cancelled = Cancels::CancelLocked(*this, task, drop_ref, revoked);
  }
  if (revoked) {
    internal::RunAfterRevokeHook();
    // Out of the inbox first: then the inbox's reference is this call's.
    Timer::Inboxes::WaitUntilRevokedOut(control_, task);
    drop_ref = true;
  }
  if (cancelled) Timer::Cancels::NotifyCancelled(task);
  if (drop_ref) task.Unref();  // The wheel's; the caller holds another.
  return cancelled;
}

void Timer::Cancels::NotifyCancelled(TimerTask& task) {
  try {
    task.OnCancelled();
  } catch (...) {
    // Not to on_callback_error: a handle may cancel after its timer is gone.
    internal::ReportUnhandledError(std::current_exception(),
                                   "a timer task's OnCancelled()",
                                   "a try/catch inside OnCancelled()");
  }
}

bool Timer::Cancels::CancelLocked(Timer& timer, TimerTask& task, bool& drop_ref,
                                  bool& revoked) {
  uint32_t state = State::Load(&task);
  // A pending task leaves its list before its state leaves kPending: once
  // the word is idle, a lock-free add (TryBuffer) may take the task and
  // write its link at once. Only this lock's holder clears kPending, so the
  // loop below is sure to take the pending branch.
  const bool unlinked = State::Owner(state) == timer.settings_.id &&
                        (state & State::kInbox) == 0 &&
                        (state & State::kPending) != 0 && !timer.shutdown_;
  if (unlinked) timer.wheel_.Unlink(&task);
  for (;;) {
    if (State::Owner(state) != timer.settings_.id)
      return false;  // Idle, or not ours.
    if ((state & State::kInbox) != 0) {
      // Buffered: the drain takes it out (and counts it cancelled); the
      // caller releases it.
      if ((state & State::kRevoked) != 0) return false;
      if (State::Cas(&task, state, state | State::kRevoked)) {
        revoked = true;
        return true;
      }
      continue;
    }
    // A pending task after Shutdown() is on Shutdown()'s list: swept.
    const bool pending = (state & State::kPending) != 0 && !timer.shutdown_;
    const bool queued = (state & State::kQueued) != 0;
    const bool running = (state & State::kRunning) != 0;
    if (!pending && !queued) {
      if (!running || (state & State::kStopped) != 0) return false;
      // Running, nothing waiting: stop re-adds until Run() returns.
      if (State::Cas(&task, state, state | State::kStopped)) return false;
      continue;
    }
    uint32_t flags = state & ~(State::kPending | State::kQueued);
    if (running) flags |= State::kStopped;
    // Before the word may go idle (a lock-free add may then write it).
    const int64_t due = task.due_nanos_;
    task.due_nanos_ = State::kCancelledDue;
    if (State::Cas(&task, state, State::Make(timer.settings_.id, flags))) break;
    task.due_nanos_ = due;
  }
  if ((state & State::kPending) != 0) {
    if (!unlinked) timer.wheel_.Unlink(&task);
    --timer.counters_.pending;
    drop_ref = !task.Embedded();
  } else {
    if (task.Embedded() &&
        internal::TimingWheel::AsNode(&task)->prev != nullptr) {
      internal::Unlink(internal::TimingWheel::AsNode(&task));
    }
    // Taken back from its batch, which drops its reference when it gets
    // there (or the running thread, for a deferred run).
    --timer.counters_.expired;
  }
  ++timer.counters_.cancelled;
  return true;
}

bool Timer::Cancels::IsPendingLocked(const Timer& timer,
                                     const TimerTask& task) {
  const uint32_t state = State::Load(&task);
  if (State::Owner(state) != timer.settings_.id) return false;
  if ((state & State::kInbox) != 0) return (state & State::kRevoked) == 0;
  return ((state & State::kPending) != 0 && !timer.shutdown_) ||
         (state & State::kQueued) != 0;
}

// The handle's control block holds the timer's lock (mu_ is control_->mu),
// which the analysis cannot see through the pointer.
bool TimerHandle::Cancel() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return false;
  // Buffered in its timer's inbox: no lock (a handle's task is only ever
  // added to its own timer).
  const int buffered =
      Timer::Inboxes::CancelBuffered(*task_, control_->timer_id);
  bool cancelled = buffered == 1;
  bool drop_ref = false;
  bool revoked = buffered == 1;
  if (buffered < 0) {
    internal::MutexLock lock(control_->mu);
    if (control_->timer != nullptr) {
      cancelled = Timer::Cancels::CancelLocked(*control_->timer, *task_,
                                               drop_ref, revoked);
    }
  }
  if (revoked) {
    internal::RunAfterRevokeHook();
    // Released now, as a cancelled pending task is: out of the inbox first.
    Timer::Inboxes::WaitUntilRevokedOut(control_, *task_);
    drop_ref = true;
  }
  if (cancelled) Timer::Cancels::NotifyCancelled(*task_);
  if (drop_ref) task_->Unref();  // The wheel's; the handle holds another.
  return cancelled;
}

bool TimerHandle::pending() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return false;
  internal::MutexLock lock(control_->mu);
  return control_->timer != nullptr &&
         Timer::Cancels::IsPendingLocked(*control_->timer, *task_);
}

}  // namespace timingwheel
