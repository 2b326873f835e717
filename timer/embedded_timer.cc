// Copyright 2026 The timingwheel Authors.
//
// Embedded timers in the timer: how they differ from counted tasks.
//
//   * No reference: the timer holds an embedded timer only on its owner's
//     promise to cancel it (its destructor does) before it goes.
//   * Queued to run: a batch handed to the executor holds a null slot for
//     it, and the task itself waits on the timer's `embedded_ready_` list
//     (its list links are free once it left the wheel). A slot, when the
//     batch runs, claims the front of that list under the timer's lock.
//     Destroying or cancelling a queued embedded timer so unlinks it in O(1)
//     and never waits for the executor to reach a batch (which could be
//     queued behind the very callback that destroys it).
//   * Running: claimed and released under the timer's lock; the release is
//     the last time the timer touches it, and a thread waiting to destroy it
//     (on the control block's condition variable) wakes after it.
//   * Destroyed from inside its own run: a thread-local frame tells the
//     running slot not to touch it after `Run()` returns.

#include "timer/embedded_timer.h"

#include "absl/base/macros.h"
#include "absl/time/time.h"
#include "timer/internal/bucket.h"
#include "timer/internal/mutex.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timer_control.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer_impl.h"

namespace timingwheel {
namespace {

using State = internal::TaskState;

// The embedded timers whose Run() the current thread is inside, innermost
// first (an inline executor may nest runs).
struct EmbeddedRunFrame {
  const TimerTask* task;
  bool destroyed;
  EmbeddedRunFrame* outer;
};
thread_local EmbeddedRunFrame* embedded_runs = nullptr;

// Whether the current thread is inside `task`'s Run(); with `destroying`,
// marks those runs so that they do not touch it after Run() returns.
bool InOwnRun(const TimerTask* task, bool destroying) {
  bool found = false;
  for (EmbeddedRunFrame* frame = embedded_runs; frame != nullptr;
       frame = frame->outer) {
    if (frame->task != task) continue;
    found = true;
    if (destroying) frame->destroyed = true;
  }
  return found;
}

}  // namespace

void Timer::EmbeddedSlots::RunEmbeddedSlot(Timer& timer) {
  TimerTask* task;
  {
    internal::MutexLock lock(timer.mu_);
    // Empty when the timer embedded timers this slot stood for were
    // cancelled, moved, or claimed by an earlier slot.
    if (internal::ListEmpty(&timer.embedded_ready_)) return;
    task = internal::TimingWheel::AsTask(timer.embedded_ready_.next);
    internal::Unlink(timer.embedded_ready_.next);
    ABSL_ASSERT((State::Load(task) & State::kQueued) != 0);
    // Not claimed: running on another thread, which runs it again when its
    // Run() returns (never concurrently with itself).
    if (State::TryClaimForRun(task) != State::Claim::kClaimed) return;
  }
  for (;;) {
    EmbeddedRunFrame frame{task, false, embedded_runs};
    embedded_runs = &frame;
    Runner::InvokeRun(timer, task);
    embedded_runs = frame.outer;
    if (frame.destroyed) return;  // Gone: never touched again.
    internal::MutexLock lock(timer.mu_);
    if (State::FinishRun(task) == State::RunEnd::kAgain) {
      // Re-queued while it ran: it may still be on embedded_ready_ (a later
      // slot would then find it gone) or handed on by a slot.
      if (internal::TimingWheel::AsNode(task)->prev != nullptr) {
        internal::Unlink(internal::TimingWheel::AsNode(task));
      }
      continue;
    }
    EmbeddedSlots::NotifyEmbeddedWaiters(timer);
    return;
  }
}

// mu_ is control_->mu, which the analysis cannot see through the pointer.
void Timer::EmbeddedSlots::NotifyEmbeddedWaiters(Timer& timer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (timer.control_->embedded_waiters > 0) {
    timer.control_->embedded_done.notify_all();
  }
}

// The control block's lock is the timer's (mu_ is control->mu), which the
// analysis cannot see through the pointer.
bool Timer::EmbeddedSlots::CancelEmbedded(internal::TimerControl* control,
                                          TimerTask* task, bool destroying)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const bool own_run = InOwnRun(task, destroying);
  internal::MutexLock lock(control->mu);
  Timer* const timer = control->timer;
  if (timer == nullptr) return false;  // Destroyed: nothing of it is left.
  bool drop_ref = false;               // Never set for an embedded timer.
  bool revoked = false;  // Never set: embedded timers are never buffered.
  const bool cancelled =
      Timer::Cancels::CancelLocked(*timer, *task, drop_ref, revoked);
  // Still kPending after a cancel: Shutdown() took it off the wheel and is
  // walking its list outside the lock; wait until it let go (it runs no
  // user code meanwhile). A run in progress on another thread is waited
  // for too, not one up this thread's stack (it cannot wait for itself; a
  // destroyed one is not touched again, see RunEmbeddedSlot).
  const uint32_t busy =
      own_run ? State::kPending : State::kPending | State::kRunning;
  if ((State::Load(task) & busy) != 0) {
    ++control->embedded_waiters;
    // The timer cannot finish its destructor while the run is in flight,
    // but this thread may wake after it did: touch only the control block
    // and the task from here on.
    control->embedded_done.wait(lock.native(), [task, busy] {
      return (State::Load(task) & busy) == 0;
    });
    --control->embedded_waiters;
  }
  return cancelled;
}

EmbeddedTimer::~EmbeddedTimer() {
  if (control_ == nullptr) return;
  Timer::EmbeddedSlots::CancelEmbedded(control_, this, /*destroying=*/true);
  control_->Unref();
}

absl::Status EmbeddedTimer::Schedule(Timer& timer, absl::Duration delay) {
  if (control_ != timer.control_) {
    if (control_ != nullptr) {
      // Busy in the previous timer: that timer still holds it. Only calls
      // on this object make it busy there, so an idle reading stays true.
      if (State::Owner(State::Load(this)) != 0) {
        return absl::FailedPreconditionError(
            "timingwheel: the EmbeddedTimer is pending, queued or running on "
            "another Timer; Cancel() it first");
      }
      control_->Unref();
    }
    timer.control_->Ref();
    control_ = timer.control_;
  }
  return timer.AddInternal(this, delay, /*wheel_ref_taken=*/true);
}

bool EmbeddedTimer::Cancel() {
  if (control_ == nullptr) return false;
  return Timer::EmbeddedSlots::CancelEmbedded(control_, this,
                                              /*destroying=*/false);
}

bool EmbeddedTimer::IsScheduled() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (control_ == nullptr) return false;
  internal::MutexLock lock(control_->mu);
  return control_->timer != nullptr &&
         Timer::Cancels::IsPendingLocked(*control_->timer, *this);
}

// As TimerHandle::TimeRemaining() (an embedded timer is never buffered in
// a producer inbox: no drain first).
absl::Duration EmbeddedTimer::TimeRemaining() const
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (control_ == nullptr) return absl::InfiniteDuration();
  internal::MutexLock lock(control_->mu);
  Timer* const timer = control_->timer;
  if (timer == nullptr || !Timer::Cancels::IsPendingLocked(*timer, *this)) {
    return absl::InfiniteDuration();
  }
  if ((State::Load(this) & State::kQueued) != 0) {
    return absl::ZeroDuration();  // Due: handed to the executor.
  }
  const int64_t due = due_nanos_;
  if (due == internal::kMaxNanos) return absl::InfiniteDuration();
  const int64_t now = Timer::Clocks::NowRelative(*timer);
  return due <= now ? absl::ZeroDuration() : absl::Nanoseconds(due - now);
}

}  // namespace timingwheel
