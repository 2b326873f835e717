// Copyright 2026 The timingwheel Authors.
//
// The entry points of Timer beyond Schedule/Add/Cancel: absolute
// deadlines, rescheduling through a handle, batches and periodic tasks.
// Each ends in Timer::AddLocked() (timer.cc), the one place that places a
// task, so they keep its rules: never early, exactly once, O(1).

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "timer/internal/mutex.h"
#include "timer/internal/task_state.h"
#include "timer/internal/wheel_math.h"
#include "timer/periodic_task.h"
#include "timer/time_point.h"
#include "timer/timer.h"
#include "timer/timer_handle.h"
#include "timer/timer_impl.h"

namespace timingwheel {

absl::Status Timer::AddAtInternal(TimerTask* task, TimePoint deadline,
                                  bool wheel_ref_taken) {
  if (!wheel_ref_taken && !task->Counted()) {
    return Timer::Placement::NotCountedError(*task);
  }
  const int64_t due = Clocks::RelativeOf(*this, deadline);
  bool drop_ref = false;
  bool earlier = false;
  absl::Status status;
  {
    internal::MutexLock lock(mu_);
    Inboxes::DrainMineLocked(*this);  // This thread's buffered adds go first.
    status =
        Placement::AddLocked(*this, task, due, 0, wheel_ref_taken, drop_ref,
                             /*moved=*/nullptr, &earlier);
  }
  if (drop_ref) task->Unref();  // Never the last: the caller holds one.
  if (earlier && settings_.on_next_due_earlier) settings_.on_next_due_earlier();
  return status;
}

absl::Status Timer::AddAt(const TaskPtr<TimerTask>& task, TimePoint deadline) {
  if (task == nullptr) {
    return absl::InvalidArgumentError("timingwheel: AddAt() of a null task");
  }
  return AddAtInternal(task.get(), deadline, /*wheel_ref_taken=*/false);
}

absl::Status Timer::AddBatch(absl::Span<const TimerBatchEntry> entries,
                             size_t* added) {
  size_t count = 0;
  bool earlier = false;
  absl::Status status;
  const int64_t clock_now =
      Clocks::ClockRelative(*this);  // One reading for all.
  {
    internal::MutexLock lock(mu_);
    Inboxes::DrainMineLocked(*this);  // This thread's buffered adds go first.
    for (const TimerBatchEntry& entry : entries) {
      if (entry.task == nullptr) {
        status = absl::InvalidArgumentError(
            "timingwheel: AddBatch() of a null task");
        break;
      }
      if (!entry.task->Counted()) {
        status = Timer::Placement::NotCountedError(*entry.task);
        break;
      }
      bool drop_ref = false;  // Stays false: no reference was counted.
      status = Placement::AddLocked(*this, entry.task.get(), clock_now,
                                    internal::DelayToNanos(entry.delay),
                                    /*wheel_ref_taken=*/false, drop_ref,
                                    /*moved=*/nullptr, &earlier);
      if (!status.ok()) break;
      ++count;
    }
  }
  if (added != nullptr) *added = count;
  // Once for the batch, even when it stopped at a refused entry.
  if (earlier && settings_.on_next_due_earlier) settings_.on_next_due_earlier();
  return status;
}

absl::Status Timer::AddPeriodic(internal::PeriodicTaskBase* task,
                                absl::Duration period,
                                const PeriodicOptions& options) {
  if (period <= absl::ZeroDuration()) {
    task->Unref();  // The wheel's, never counted; the handle's remains.
    return absl::InvalidArgumentError(
        "timingwheel: SchedulePeriodic() needs a positive period, got " +
        absl::FormatDuration(period));
  }
  // Set before the task is visible to any other thread.
  const int64_t period_nanos = internal::DelayToNanos(period);
  const TimePoint first =
      options.start.has_value() ? *options.start : Now() + period;
  task->SetSchedule(period_nanos, options.missed,
                    Periodic::PeriodicGridOf(*this, first, period_nanos));
  return AddAtInternal(task, first, /*wheel_ref_taken=*/true);
}

int64_t Timer::Periodic::PeriodicGridOf(const Timer& timer, TimePoint deadline,
                                        int64_t period) {
  if (deadline.nanos() >= timer.origin_) {
    return Timer::Clocks::RelativeOf(timer, deadline);
  }
  // The grid points are deadline + k * period; the last one at or before
  // the origin is `origin_ - (origin_ - deadline) % period`. The
  // difference fits in uint64, not always int64.
  const uint64_t before = static_cast<uint64_t>(timer.origin_) -
                          static_cast<uint64_t>(deadline.nanos());
  return -static_cast<int64_t>(before % static_cast<uint64_t>(period));
}

bool Timer::Periodic::ResetPeriodicLocked(Timer& timer,
                                          internal::PeriodicTaskBase& task,
                                          PeriodicHandle::ResetKind kind,
                                          int64_t nanos, bool& drop_ref,
                                          bool* earlier) {
  using State = internal::TaskState;
  if (timer.shutdown_) return false;
  const uint32_t state = State::Load(&task);
  // Idle (its series ended: a periodic task is pending, queued or running
  // from its first add until then), or stopped by Cancel() while it runs.
  if (State::Owner(state) != timer.settings_.id ||
      (state & State::kStopped) != 0) {
    return false;
  }
  const int64_t period = task.period_nanos();
  int64_t grid;
  switch (kind) {
    case PeriodicHandle::ResetKind::kPeriod:
      grid = period >= internal::kMaxPeriodNanos
                 ? internal::kMaxNanos
                 : internal::SaturatingAdd(Timer::Clocks::NowRelative(timer),
                                           period);
      break;
    case PeriodicHandle::ResetKind::kAfter:
      grid = internal::SaturatingAdd(Timer::Clocks::NowRelative(timer), nanos);
      break;
    case PeriodicHandle::ResetKind::kAt:
    default:
      grid =
          Periodic::PeriodicGridOf(timer, TimePoint::FromNanos(nanos), period);
      break;
  }
  if ((state & (State::kPending | State::kQueued)) != 0) {
    // Waiting (a run in progress may have re-armed it already): move it.
    task.SetReset(grid, /*running=*/false);
    return Timer::Placement::AddLocked(timer, &task, grid, 0,
                                       /*wheel_ref_taken=*/false, drop_ref,
                                       /*moved=*/nullptr, earlier)
        .ok();
  }
  if ((state & State::kRunning) != 0) {
    task.SetReset(grid, /*running=*/true);  // For the re-arm at its end.
    return true;
  }
  return false;
}

void Timer::Periodic::RearmPeriodic(Timer& timer,
                                    internal::PeriodicTaskBase& task) {
  bool drop_ref = false;
  bool earlier = false;
  {
    internal::MutexLock lock(timer.mu_);
    Inboxes::DrainMineLocked(timer);  // This thread's buffered adds go first.
    // Fixed rate: from this run's grid point, not from now; a late run
    // follows the series' MissedRuns (see NextPeriodicDue()).
    const int64_t next = task.TakeNextDue(Timer::Clocks::NowRelative(timer));
    // Refused after Cancel() (kStopped) or Shutdown(): the series ends.
    Timer::Placement::AddLocked(timer, &task, next, 0,
                                /*wheel_ref_taken=*/false, drop_ref,
                                /*moved=*/nullptr, &earlier)
        .IgnoreError();
  }
  if (drop_ref) task.Unref();
  // The re-arming thread runs the task's callback: the timer is alive.
  if (earlier && timer.settings_.on_next_due_earlier) {
    timer.settings_.on_next_due_earlier();
  }
}

void internal::PeriodicTaskBase::Rearm() {
  Timer::Periodic::RearmPeriodic(*timer_, *this);
}

// As in TimerHandle::RescheduleInternal(): the control block holds the
// timer's lock, which the analysis cannot see through the pointer.
bool Timer::Periodic::ResetPeriodic(
    internal::TimerControl* control, internal::PeriodicTaskBase& task,
    PeriodicHandle::ResetKind kind,
    int64_t nanos) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  bool drop_ref = false;
  bool earlier = false;
  bool reset = false;
  // A copy of the timer's hook, taken under the lock: the timer may be
  // destroyed once it is released (a handle may outlive it).
  std::function<void()> on_earlier;
  {
    internal::MutexLock lock(control->mu);
    Timer* const timer = control->timer;
    if (timer == nullptr) return false;
    Timer::Inboxes::DrainMineLocked(
        *timer);  // This thread's buffered adds go first.
    reset = Periodic::ResetPeriodicLocked(*timer, task, kind, nanos, drop_ref,
                                          &earlier);
    if (earlier) on_earlier = timer->settings_.on_next_due_earlier;
  }
  if (drop_ref) task.Unref();  // Not reached: no reference was counted.
  if (on_earlier) on_earlier();
  return reset;
}

bool PeriodicHandle::ResetInternal(ResetKind kind, int64_t nanos) {
  if (handle_.task_ == nullptr) return false;
  // Only SchedulePeriodic() makes a PeriodicHandle.
  return Timer::Periodic::ResetPeriodic(
      handle_.control_,
      static_cast<internal::PeriodicTaskBase&>(*handle_.task_), kind, nanos);
}

bool PeriodicHandle::Reset() { return ResetInternal(ResetKind::kPeriod, 0); }

bool PeriodicHandle::ResetAfter(absl::Duration delay) {
  return ResetInternal(ResetKind::kAfter, internal::DelayToNanos(delay));
}

bool PeriodicHandle::ResetAt(TimePoint deadline) {
  return ResetInternal(ResetKind::kAt, deadline.nanos());
}

// The handle's control block holds the timer's lock (mu_ is control_->mu),
// which the analysis cannot see through the pointer.
RescheduleResult TimerHandle::RescheduleInternal(bool relative, int64_t nanos)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return RescheduleResult::kTimerGone;
  bool drop_ref = false;
  bool moved = false;
  bool earlier = false;
  // A copy of the timer's hook, taken under the lock: the timer may be
  // destroyed once it is released (a handle may outlive it).
  std::function<void()> on_earlier;
  absl::Status status;
  {
    internal::MutexLock lock(control_->mu);
    Timer* const timer = control_->timer;
    if (timer == nullptr) return RescheduleResult::kTimerGone;
    Timer::Inboxes::DrainMineLocked(
        *timer);  // This thread's buffered adds go first.
    const int64_t base = relative ? Timer::Clocks::ClockRelative(*timer)
                                  : Timer::Clocks::RelativeOf(
                                        *timer, TimePoint::FromNanos(nanos));
    status = Timer::Placement::AddLocked(
        *timer, task_.get(), base, relative ? nanos : 0,
        /*wheel_ref_taken=*/false, drop_ref, &moved, &earlier);
    if (earlier) on_earlier = timer->settings_.on_next_due_earlier;
  }
  if (drop_ref) task_->Unref();  // Not reached: no reference was counted.
  if (on_earlier) on_earlier();
  if (status.ok()) {
    return moved ? RescheduleResult::kMoved : RescheduleResult::kRearmed;
  }
  switch (status.code()) {
    case absl::StatusCode::kCancelled:
      return RescheduleResult::kStopped;
    case absl::StatusCode::kResourceExhausted:
      return RescheduleResult::kOverLimit;
    default:  // Shut down.
      return RescheduleResult::kTimerGone;
  }
}

RescheduleResult TimerHandle::Reschedule(absl::Duration delay) {
  return RescheduleInternal(/*relative=*/true, internal::DelayToNanos(delay));
}

RescheduleResult TimerHandle::RescheduleAt(TimePoint deadline) {
  return RescheduleInternal(/*relative=*/false, deadline.nanos());
}

absl::Duration TimerHandle::TimeRemaining() const
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return absl::InfiniteDuration();
  internal::MutexLock lock(control_->mu);
  Timer* const timer = control_->timer;
  // A buffered task's due time is the drain's to read: place it first.
  if (timer != nullptr) Timer::Inboxes::DrainInboxesLocked(*timer);
  if (timer == nullptr || !Timer::Cancels::IsPendingLocked(*timer, *task_)) {
    return absl::InfiniteDuration();
  }
  const uint32_t state = internal::TaskState::Load(task_.get());
  if ((state & internal::TaskState::kQueued) != 0) {
    return absl::ZeroDuration();  // Due: handed to the executor.
  }
  const int64_t due = task_->due_nanos_;
  if (due == internal::kMaxNanos) return absl::InfiniteDuration();
  const int64_t now = Timer::Clocks::NowRelative(*timer);
  return due <= now ? absl::ZeroDuration() : absl::Nanoseconds(due - now);
}

}  // namespace timingwheel
