// Copyright 2026 The timingwheel Authors.
//
// The entry points of issue 11 beyond Schedule/Add/Cancel: absolute
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

namespace timingwheel {
int64_t Timer::RelativeOf(TimePoint deadline) const {
  if (deadline == TimePoint::Max()) return internal::kMaxNanos;
  if (deadline.nanos() <= origin_) return 0;
  // As in ClockRelative(): the difference fits in uint64, not always int64.
  const uint64_t elapsed =
      static_cast<uint64_t>(deadline.nanos()) - static_cast<uint64_t>(origin_);
  constexpr int64_t kLatest = internal::kMaxNanos - 1;
  return elapsed > static_cast<uint64_t>(kLatest)
             ? kLatest
             : static_cast<int64_t>(elapsed);
}

absl::Status Timer::AddAtInternal(TimerTask* task, TimePoint deadline,
                                  bool wheel_ref_taken) {
  if (!wheel_ref_taken && !task->Counted()) return NotCountedError(*task);
  const int64_t due = RelativeOf(deadline);
  bool drop_ref = false;
  bool earlier = false;
  absl::Status status;
  {
    internal::MutexLock lock(mu_);
    DrainMineLocked();  // This thread's buffered adds go first.
    status = AddLocked(task, due, 0, wheel_ref_taken, drop_ref,
                       /*moved=*/nullptr, &earlier);
  }
  if (drop_ref) task->Unref();  // Never the last: the caller holds one.
  if (earlier && on_next_due_earlier_) on_next_due_earlier_();
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
  const int64_t clock_now = ClockRelative();  // One reading for all.
  {
    internal::MutexLock lock(mu_);
    DrainMineLocked();  // This thread's buffered adds go first.
    for (const TimerBatchEntry& entry : entries) {
      if (entry.task == nullptr) {
        status = absl::InvalidArgumentError(
            "timingwheel: AddBatch() of a null task");
        break;
      }
      if (!entry.task->Counted()) {
        status = NotCountedError(*entry.task);
        break;
      }
      bool drop_ref = false;  // Stays false: no reference was counted.
      status = AddLocked(entry.task.get(), clock_now,
                         internal::DelayToNanos(entry.delay),
                         /*wheel_ref_taken=*/false, drop_ref,
                         /*moved=*/nullptr, &earlier);
      if (!status.ok()) break;
      ++count;
    }
  }
  if (added != nullptr) *added = count;
  // Once for the batch, even when it stopped at a refused entry.
  if (earlier && on_next_due_earlier_) on_next_due_earlier_();
  return status;
}

absl::Status Timer::AddPeriodic(internal::PeriodicTaskBase* task,
                                absl::Duration period) {
  if (period <= absl::ZeroDuration()) {
    task->Unref();  // The wheel's, never counted; the handle's remains.
    return absl::InvalidArgumentError(
        "timingwheel: SchedulePeriodic() needs a positive period, got " +
        absl::FormatDuration(period));
  }
  // Set before the task is visible to any other thread.
  task->period_nanos_ = internal::DelayToNanos(period);
  return AddInternal(task, period, /*wheel_ref_taken=*/true);
}

void Timer::RearmPeriodic(internal::PeriodicTaskBase& task) {
  bool drop_ref = false;
  bool earlier = false;
  {
    internal::MutexLock lock(mu_);
    DrainMineLocked();  // This thread's buffered adds go first.
    const int64_t period = task.period_nanos_;
    const int64_t now = NowRelative();
    // Fixed rate: from the previous due time (this run's), not from now.
    int64_t next = internal::SaturatingAdd(task.due_nanos_, period);
    if (next < now) {
      // Overran: skip the missed runs, to the first grid point >= now.
      const int64_t behind = now - next;
      const int64_t periods = behind / period + (behind % period != 0 ? 1 : 0);
      next = internal::SaturatingAdd(
          next, internal::SaturatingMultiply(periods, period));
    }
    // Refused after Cancel() (kStopped) or Shutdown(): the series ends.
    AddLocked(&task, next, 0, /*wheel_ref_taken=*/false, drop_ref,
              /*moved=*/nullptr, &earlier)
        .IgnoreError();
  }
  if (drop_ref) task.Unref();
  // The re-arming thread runs the task's callback: the timer is alive.
  if (earlier && on_next_due_earlier_) on_next_due_earlier_();
}

void internal::PeriodicTaskBase::Rearm() { timer_->RearmPeriodic(*this); }

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
    timer->DrainMineLocked();  // This thread's buffered adds go first.
    const int64_t base = relative
                             ? timer->ClockRelative()
                             : timer->RelativeOf(TimePoint::FromNanos(nanos));
    status =
        timer->AddLocked(task_.get(), base, relative ? nanos : 0,
                         /*wheel_ref_taken=*/false, drop_ref, &moved, &earlier);
    if (earlier) on_earlier = timer->on_next_due_earlier_;
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
  if (timer != nullptr) timer->DrainInboxesLocked();
  if (timer == nullptr || !timer->IsPendingLocked(*task_)) {
    return absl::InfiniteDuration();
  }
  const uint32_t state = internal::TaskState::Load(task_.get());
  if ((state & internal::TaskState::kQueued) != 0) {
    return absl::ZeroDuration();  // Due: handed to the executor.
  }
  const int64_t due = task_->due_nanos_;
  if (due == internal::kMaxNanos) return absl::InfiniteDuration();
  const int64_t now = timer->NowRelative();
  return due <= now ? absl::ZeroDuration() : absl::Nanoseconds(due - now);
}

}  // namespace timingwheel
