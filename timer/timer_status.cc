// Copyright 2026 The timingwheel Authors.
//
// Where a handle's callback or an embedded timer stands (`TaskStatus`) and
// when it is due: read from the task's state word and, for an idle task,
// from its due time, which a cancellation overwrites with
// `TaskState::kCancelledDue` (before the word goes idle) and a run leaves
// alone.

#include "timer/embedded_timer.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timer_control.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_handle.h"
#include "timer/timer_impl.h"

namespace timingwheel {

using State = internal::TaskState;

// The control block's lock is the timer's, which the analysis cannot see
// through the pointer.
TaskStatus Timer::TaskStatuses::StatusLocked(
    const internal::TimerControl* control,
    const TimerTask& task) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const uint32_t state = State::Load(&task);
  const Timer* const timer = control->timer;
  if (State::Owner(state) == control->timer_id && state != 0) {
    if ((state & State::kInbox) != 0) {
      return (state & State::kRevoked) != 0 ? TaskStatus::kCancelled
                                            : TaskStatus::kPending;
    }
    if ((state & State::kQueued) != 0) return TaskStatus::kPending;
    if ((state & State::kPending) != 0) {
      // After Shutdown(), a task still marked pending is on its sweep.
      if (timer == nullptr || timer->shutdown_) {
        return (state & State::kRunning) != 0 ? TaskStatus::kRunning
                                              : TaskStatus::kCancelled;
      }
      return TaskStatus::kPending;
    }
    if ((state & State::kRunning) != 0) return TaskStatus::kRunning;
  }
  return task.due_nanos_ == State::kCancelledDue ? TaskStatus::kCancelled
                                                 : TaskStatus::kRan;
}

TimePoint Timer::TaskStatuses::DeadlineLocked(
    const internal::TimerControl* control,
    const TimerTask& task) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const TaskStatus status = Timer::TaskStatuses::StatusLocked(control, task);
  const Timer* const timer = control->timer;
  if (timer == nullptr ||
      (status != TaskStatus::kPending && status != TaskStatus::kRunning)) {
    return TimePoint::Max();
  }
  const int64_t due = task.due_nanos_;
  if (due < 0 || due >= internal::kMaxNanos) return TimePoint::Max();
  // origin_ + due, saturated (clock readings may be negative).
  if (timer->origin_ > 0 && due > internal::kMaxNanos - timer->origin_) {
    return TimePoint::Max();
  }
  return TimePoint::FromNanos(timer->origin_ + due);
}

TaskStatus TimerHandle::status() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return TaskStatus::kNone;
  internal::MutexLock lock(control_->mu);
  return Timer::TaskStatuses::StatusLocked(control_, *task_);
}

TimePoint TimerHandle::Deadline() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return TimePoint::Max();
  internal::MutexLock lock(control_->mu);
  return Timer::TaskStatuses::DeadlineLocked(control_, *task_);
}

TaskStatus EmbeddedTimer::status() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (control_ == nullptr) return TaskStatus::kNone;
  internal::MutexLock lock(control_->mu);
  return Timer::TaskStatuses::StatusLocked(control_, *this);
}

TimePoint EmbeddedTimer::Deadline() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (control_ == nullptr) return TimePoint::Max();
  internal::MutexLock lock(control_->mu);
  return Timer::TaskStatuses::DeadlineLocked(control_, *this);
}

}  // namespace timingwheel
