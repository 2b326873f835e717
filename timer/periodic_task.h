// Copyright 2026 The timingwheel Authors.
//
// periodic_task.h
// -----------------------------------------------------------------------------
//
// Periodic tasks (see `Timer::SchedulePeriodic()`, which is how they are
// made; include timer.h). This file defines:
//
//   * `PeriodicHandle`: what `SchedulePeriodic()` returns; `Cancel()` ends
//     the series with the guarantee that no run starts after it returns.
//   * `internal::PeriodicTask<F>`: the task that runs a callback and re-adds
//     itself at its next due time on the fixed-rate grid.
//
// A periodic task is one `TimerTask` scheduled once at a time: it re-adds
// itself at the end of each run, so it never runs concurrently with itself
// and costs one task for its whole life (no allocation per run). Its
// cancellation is the timer's "Cancel stops a repeating task" rule: a
// `Cancel()` while the task waits removes it; one while it runs (from another
// thread, or from the callback itself) makes its re-add fail.

#ifndef TIMINGWHEEL_TIMER_PERIODIC_TASK_H_
#define TIMINGWHEEL_TIMER_PERIODIC_TASK_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <utility>

#include "timer/timer_handle.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer;

namespace internal {

// PeriodicTaskBase: the re-adding part of a periodic task, independent of
// the callback's type. The timer sets `period_nanos_` before the first add;
// the grid is the task's own due time (the previous run's), read and
// written under the timer's lock.
class PeriodicTaskBase : public TimerTask {
 protected:
  explicit PeriodicTaskBase(Timer* timer) : timer_(timer) {}

  // Re-adds this task at its next due time; refused (silently: the series
  // ends) after `Cancel()` or `Shutdown()`. Called at the end of `Run()`.
  void Rearm();

 private:
  friend class timingwheel::Timer;

  // The timer outlives every run of its tasks (its destructor waits).
  Timer* const timer_;
  int64_t period_nanos_ = 0;
};

// PeriodicTask: runs `F` and re-adds itself, also when `F` throws (the
// exception then goes on to the timer's error hook).
template <typename F>
class PeriodicTask final : public PeriodicTaskBase, private CallbackStorage<F> {
 public:
  template <typename G>
  PeriodicTask(Timer* timer, G&& callback)
      : PeriodicTaskBase(timer),
        CallbackStorage<F>(std::forward<G>(callback)) {}

  void Run() override {
    try {
      this->callback()();
    } catch (...) {
      Rearm();
      throw;
    }
    Rearm();
  }
};

}  // namespace internal

// PeriodicHandle
//
// Refers to a task made by `Timer::SchedulePeriodic()`. Dropping it does not
// stop the task (a `ScopedTimerHandle` made from it does). Like
// `TimerHandle`, it may outlive its timer (then it does nothing), and it is
// thread-compatible: one handle must not be used from two threads at once,
// but copies of it may.
class PeriodicHandle {
 public:
  // An empty handle: `Cancel()` does nothing.
  PeriodicHandle() = default;

  // PeriodicHandle::Cancel()
  //
  // Ends the series: no run starts after `Cancel()` returns, including when
  // it is called from inside the callback (the run in progress then
  // finishes, and no other starts). A run in progress on another thread may
  // still be finishing when it returns: `Cancel()` never waits for a run, so
  // it cannot deadlock (to wait for every run, shut the timer down).
  // Idempotent; does nothing once the timer is shut down or destroyed.
  // Thread-safe with respect to the timer. O(1).
  void Cancel() { handle_.Cancel(); }

  // PeriodicHandle::scheduled()
  //
  // Returns whether the next run is waiting (in the timer, or handed to the
  // executor and not started). False while a run is in progress (it
  // re-adds the task as it ends), after `Cancel()`, and once the timer is
  // shut down or destroyed. A snapshot. Thread-safe.
  bool scheduled() const { return handle_.pending(); }

  // PeriodicHandle::TimeRemaining()
  //
  // How long until the next run is due; `absl::InfiniteDuration()` when
  // none is waiting (see `scheduled()`). Thread-safe.
  absl::Duration TimeRemaining() const { return handle_.TimeRemaining(); }

  // PeriodicHandle::valid()
  //
  // Returns whether the handle refers to a periodic task.
  bool valid() const { return handle_.valid(); }

 private:
  friend class Timer;
  friend class ScopedTimerHandle;
  explicit PeriodicHandle(TimerHandle handle) : handle_(std::move(handle)) {}

  TimerHandle handle_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_PERIODIC_TASK_H_
