// Copyright 2026 The timingwheel Authors.
//
// timer_handle.h
// -----------------------------------------------------------------------------
//
// `TimerHandle` is what `Timer::Schedule()` returns: a way to cancel,
// reschedule or inspect the scheduled callback. Dropping a handle does not
// cancel anything (see `ScopedTimerHandle` in scoped_timer_handle.h for one
// that does). A handle may outlive its timer: it then does nothing
// (`Cancel()` returns false). This file also defines `RescheduleResult` and
// `TaskStatus`.

#ifndef TIMINGWHEEL_TIMER_TIMER_HANDLE_H_
#define TIMINGWHEEL_TIMER_TIMER_HANDLE_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <utility>

#include "absl/time/time.h"
#include "timer/internal/timer_control.h"
#include "timer/time_point.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer;

// RescheduleResult
//
// What `TimerHandle::Reschedule()` did.
enum class RescheduleResult {
  // The callback was waiting to run (in the wheel, or handed to the
  // executor with its run not started) and now waits for the new due time
  // instead: one run, not two.
  kMoved,
  // The callback had run, was running, or had been cancelled: it is
  // scheduled again and will run (once more) at the new due time. A
  // callback rescheduled while it runs runs again after it returns, never
  // concurrently with itself.
  kRearmed,
  // Refused: `Cancel()` stopped the callback while it runs; it can be
  // rescheduled once that run has returned.
  kStopped,
  // Refused: the timer already holds `max_pending` tasks.
  kOverLimit,
  // Refused: the handle is empty, or its timer was shut down or destroyed.
  kTimerGone,
};

// TaskStatus
//
// Where a scheduled callback (or an embedded timer) stands: what
// `TimerHandle::status()` and `EmbeddedTimer::status()` return. A snapshot:
// it may change right after the call returns. Tested by TaskStatusTest.
enum class TaskStatus {
  // The handle is empty (or the embedded timer was never scheduled).
  kNone,
  // Waiting to run: in the timer, or handed to the executor with `Run()`
  // not started (what `pending()` reports). Also while a run is in progress
  // if another run is already waiting (a periodic task re-armed, a
  // callback rescheduled from inside itself).
  kPending,
  // Its run is in progress and no other run is waiting.
  kRunning,
  // Its last scheduling ran (`Run()` returned, or threw).
  kRan,
  // Its last scheduling was cancelled before its run started: by
  // `Cancel()`, `Timer::CancelAll()`, `Timer::Shutdown()` or the timer's
  // destruction (which cancel what is pending), or by an executor that
  // dropped its batch.
  kCancelled,
};

// TimerHandle
//
// Refers to one scheduled callback. `Cancel()` is O(1), idempotent and
// callable from any thread. Destroying or resetting the handle does not
// cancel the callback. A handle keeps the callback's (small) task object
// alive and a small control block of its timer (not the timer itself): used
// after its timer was destroyed, it is harmless (`Cancel()` and `pending()`
// return false), so an object that cancels its handle in its destructor may
// outlive the timer. Thread-compatible: one handle must not be used from two
// threads at once, but copies of it may.
class TimerHandle {
 public:
  // An empty handle: `Cancel()` returns false.
  TimerHandle() = default;
  TimerHandle(const TimerHandle& other)
      : control_(other.control_), task_(other.task_) {
    if (control_ != nullptr) control_->Ref();
  }
  TimerHandle(TimerHandle&& other) noexcept
      : control_(std::exchange(other.control_, nullptr)),
        task_(std::move(other.task_)) {}
  TimerHandle& operator=(TimerHandle other) noexcept {
    std::swap(control_, other.control_);
    std::swap(task_, other.task_);
    return *this;
  }
  ~TimerHandle() {
    if (control_ != nullptr) control_->UnrefForHandle();
  }

  // TimerHandle::Cancel()
  //
  // Prevents the callback from running if its run has not started (also
  // once it has been handed to the executor). Returns true if this call
  // prevented the run; false if it already ran, is running, was already
  // cancelled, the timer was shut down or destroyed, or the handle is empty.
  // Thread-safe with respect to the timer.
  bool Cancel();

  // TimerHandle::pending()
  //
  // Returns whether the callback is still waiting to run (in the timer, or
  // handed to the executor and not started): whether `Cancel()` would
  // prevent it. False once the timer is shut down or destroyed. A snapshot:
  // it may change right after the call returns. Thread-safe.
  bool pending() const;

  // TimerHandle::Reschedule()
  //
  // Makes the callback due `delay` from now on the timer's clock (the same
  // rules as `Timer::Schedule()`: never early, a zero or negative delay runs
  // it on the next advance). A waiting callback is moved (`kMoved`): O(1),
  // no allocation, one lock acquisition, and cheaper than `Cancel()` plus a
  // new `Schedule()`, which allocates a task; one that already ran or was
  // cancelled is scheduled again (`kRearmed`), also without allocating.
  // Returns what happened; the refusals leave everything as it was. The
  // timer counts a reschedule as one add (`TimerMetrics::added`).
  // Thread-safe with respect to the timer (a handle itself is
  // thread-compatible).
  //
  // Example (an idle timeout pushed back by traffic):
  //   handle.Reschedule(absl::Seconds(30));
  RescheduleResult Reschedule(absl::Duration delay);

  // TimerHandle::RescheduleAt()
  //
  // As `Reschedule()`, for the instant `deadline` on the timer's clock (see
  // `Timer::Now()`); a deadline already passed runs the callback on the next
  // advance. Never early: it runs once the clock reads `deadline` or later.
  RescheduleResult RescheduleAt(TimePoint deadline);

  // TimerHandle::TimeRemaining()
  //
  // Returns how long until the callback is due on the timer's clock: zero
  // when it is due (or handed to the executor, not started), and
  // `absl::InfiniteDuration()` when it is not waiting to run (it ran, is
  // running, was cancelled, the timer is gone, or the handle is empty). A
  // snapshot, like `pending()`. Thread-safe.
  absl::Duration TimeRemaining() const;

  // TimerHandle::status()
  //
  // Tells why a callback is no longer pending: whether it ran, is running,
  // or was cancelled (see `TaskStatus`). `kNone` for an empty handle. Keeps
  // working after its timer was destroyed (what was pending then reads
  // `kCancelled`). Thread-safe.
  TaskStatus status() const;

  // TimerHandle::Deadline()
  //
  // The instant on the timer's clock (see `Timer::Now()`) the callback is
  // due at while it is pending, or was due at while it runs;
  // `TimePoint::Max()` otherwise (it ran, was cancelled, its timer is gone,
  // the handle is empty), and for a callback that never comes due. A
  // snapshot. Thread-safe.
  TimePoint Deadline() const;

  // TimerHandle::valid()
  //
  // Returns whether the handle refers to a callback.
  bool valid() const { return task_ != nullptr; }

  // Whether two handles refer to the same callback (copies of one handle,
  // or a handle and `Timer::PeekNext()`'s).
  friend bool operator==(const TimerHandle& a, const TimerHandle& b) {
    return a.task_ == b.task_;
  }
  friend bool operator!=(const TimerHandle& a, const TimerHandle& b) {
    return !(a == b);
  }

 private:
  friend class Timer;
  friend class PeriodicHandle;
  // Reschedule() (`nanos` is the delay, from the clock's reading) and
  // RescheduleAt() (`nanos` is the deadline on the clock).
  RescheduleResult RescheduleInternal(bool relative, int64_t nanos);
  // Takes over a reference to `control` that the caller counted.
  TimerHandle(internal::TimerControl* control, TaskPtr<TimerTask> task)
      : control_(control), task_(std::move(task)) {}

  internal::TimerControl* control_ = nullptr;
  TaskPtr<TimerTask> task_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_HANDLE_H_
