// Copyright 2026 The timingwheel Authors.
//
// scoped_timer_handle.h
// -----------------------------------------------------------------------------
//
// `ScopedTimerHandle` cancels its callback when it is destroyed: the
// "timeout owned by a request" pattern, where the request's end must take
// its timeout with it. Move-only, like `std::unique_ptr`. Made from a
// `TimerHandle` (a one-shot callback) or a `PeriodicHandle` (a periodic task,
// which its destruction then ends). Safe to destroy after its timer is gone
// (it then does nothing).
//
// Example:
//   struct Request {
//     timingwheel::ScopedTimerHandle timeout;
//   };
//   request->timeout = timingwheel::ScopedTimerHandle(
//       timer->Schedule(absl::Seconds(5), [] { Fail(); }).value());
//   // Destroying `request` cancels the timeout if it has not run.

#ifndef TIMINGWHEEL_TIMER_SCOPED_TIMER_HANDLE_H_
#define TIMINGWHEEL_TIMER_SCOPED_TIMER_HANDLE_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <utility>

#include "absl/time/time.h"
#include "timer/periodic_task.h"
#include "timer/time_point.h"
#include "timer/timer_handle.h"

namespace timingwheel {

// ScopedTimerHandle
//
// Owns a `TimerHandle` and cancels it on destruction, on move-assignment
// over it and on `reset()`. Cancelling has `TimerHandle::Cancel()`'s (or
// `PeriodicHandle::Cancel()`'s) guarantee: a run not started never starts;
// a run in progress is not waited for. Thread-compatible.
class ScopedTimerHandle {
 public:
  // An empty handle.
  ScopedTimerHandle() = default;
  // Takes over `handle`; its callback is cancelled when this is destroyed.
  explicit ScopedTimerHandle(TimerHandle handle) : handle_(std::move(handle)) {}
  // Takes over a periodic task; destroying this ends the series.
  explicit ScopedTimerHandle(PeriodicHandle handle)
      : handle_(std::move(handle.handle_)) {}

  ScopedTimerHandle(const ScopedTimerHandle&) = delete;
  ScopedTimerHandle& operator=(const ScopedTimerHandle&) = delete;
  ScopedTimerHandle(ScopedTimerHandle&& other) noexcept
      : handle_(std::move(other.handle_)) {
    other.handle_ = TimerHandle();
  }
  // Cancels the callback this handle owned, then takes over `other`'s.
  ScopedTimerHandle& operator=(ScopedTimerHandle&& other) noexcept {
    if (this != &other) {
      handle_.Cancel();
      handle_ = std::move(other.handle_);
      other.handle_ = TimerHandle();
    }
    return *this;
  }
  ~ScopedTimerHandle() { handle_.Cancel(); }

  // ScopedTimerHandle::Cancel()
  //
  // As `TimerHandle::Cancel()`; the handle keeps referring to the callback
  // (it can be rescheduled).
  bool Cancel() { return handle_.Cancel(); }

  // ScopedTimerHandle::Reschedule() / RescheduleAt()
  //
  // As `TimerHandle::Reschedule()` / `RescheduleAt()`. Not for periodic
  // tasks (their next run is set by their period).
  RescheduleResult Reschedule(absl::Duration delay) {
    return handle_.Reschedule(delay);
  }
  RescheduleResult RescheduleAt(TimePoint deadline) {
    return handle_.RescheduleAt(deadline);
  }

  // ScopedTimerHandle::pending() / TimeRemaining() / valid()
  //
  // As `TimerHandle`'s.
  bool pending() const { return handle_.pending(); }
  absl::Duration TimeRemaining() const { return handle_.TimeRemaining(); }
  bool valid() const { return handle_.valid(); }

  // ScopedTimerHandle::reset()
  //
  // Cancels the callback and empties the handle.
  void reset() {
    handle_.Cancel();
    handle_ = TimerHandle();
  }

  // ScopedTimerHandle::release()
  //
  // Returns the handle without cancelling: the callback no longer belongs
  // to this object. Leaves it empty.
  TimerHandle release() { return std::exchange(handle_, TimerHandle()); }

  // ScopedTimerHandle::get()
  //
  // The handle, for calls this class does not forward.
  const TimerHandle& get() const { return handle_; }

 private:
  TimerHandle handle_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_SCOPED_TIMER_HANDLE_H_
