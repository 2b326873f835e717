// Copyright 2026 The timingwheel Authors.
//
// periodic_task.h
// -----------------------------------------------------------------------------
//
// Periodic tasks (see `Timer::SchedulePeriodic()`, which is how they are
// made; include timer.h), in the manner of Tokio's `Interval`. This file
// defines:
//
//   * `MissedRuns`: what a series does after a late run (skip, burst, delay).
//   * `PeriodicOptions`: that policy and the instant of the first run.
//   * `PeriodicHandle`: what `SchedulePeriodic()` returns; `Cancel()` ends
//     the series with the guarantee that no run starts after it returns;
//     `Reset()`, `ResetAfter()` and `ResetAt()` move its next run.
//   * `internal::PeriodicTask<F>`: the task that runs a callback and re-adds
//     itself at its next due time on the fixed-rate grid.
//   * `internal::NextPeriodicDue()`: the policy's arithmetic, on its own.
//
// The grid. Run k of a series is due at `start + k * period` (`start`: one
// period after `SchedulePeriodic()`, or `PeriodicOptions::start`; fixed
// rate: whatever the runs take, the due times do not drift). A run is late when
// it ends after the next grid point; `MissedRuns` says what comes next.
// With a period of 10 ms, a first run due at 10 ms that ends at 45 ms (so
// the runs due at 20, 30 and 40 ms were missed):
//
//   kSkip  (default)  next at 50 ms: the first grid point at or after 45.
//   kBurst            runs due at 20, 30 and 40 ms run at once, back to
//                     back (each as soon as the previous returns, never
//                     concurrently), then 50 ms, 60 ms, ... on the grid.
//   kDelay            next at 55 ms, one period after the late run ended;
//                     the grid restarts there (65 ms, 75 ms, ...).
//
// A periodic task is one `TimerTask` scheduled once at a time: it re-adds
// itself at the end of each run, so it never runs concurrently with itself
// and costs one task for its whole life (no allocation per run). Its
// cancellation is the timer's "Cancel stops a repeating task" rule: a
// `Cancel()` while the task waits removes it; one while it runs (from another
// thread, or from the callback itself) makes its re-add fail. A reset
// (`PeriodicHandle::Reset()`) moves the waiting run, or, while a run is in
// progress, tells the re-add at its end where to go: it never adds a
// second scheduling.

#ifndef TIMINGWHEEL_TIMER_PERIODIC_TASK_H_
#define TIMINGWHEEL_TIMER_PERIODIC_TASK_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "absl/time/time.h"
#include "timer/time_point.h"
#include "timer/timer_handle.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer;

// MissedRuns
//
// What a periodic series does after a late run: one that ends after the
// next due time on its grid (it overran, or it started late because the
// executor or the clock's advance was late). A run that ends exactly at the
// next due time is on time. Tokio's `MissedTickBehavior`, measured from the
// end of the late run.
enum class MissedRuns {
  // The next run is due at the first grid point at or after the late run's
  // end: missed runs are dropped, the grid is kept. The default.
  // Tested by PeriodicPolicyTest.Skip*.
  kSkip,
  // Every missed run still runs, back to back: each is due as soon as the
  // previous one returns (at the next advance; never concurrently, never
  // before its own grid point), until the series is back on the grid.
  // Tested by PeriodicPolicyTest.Burst*.
  kBurst,
  // The next run is due one period after the late run ended, and the grid
  // restarts there. Tested by PeriodicPolicyTest.Delay*.
  kDelay,
};

// PeriodicOptions
//
// How `Timer::SchedulePeriodic()` runs a series. Every field has a usable
// default (today's behaviour: skip, first run one period after the call).
struct PeriodicOptions {
  // What follows a late run (see `MissedRuns`).
  MissedRuns missed = MissedRuns::kSkip;

  // The first run's due time on the timer's clock (see `Timer::Now()`); the
  // grid is then `start + k * period` (Tokio's `interval_at`). Now or in the
  // past: the first run is due at once (on the next advance; with kBurst,
  // the grid points already passed after it run back to back too). Unset:
  // one period after the call. A start before the timer was created keeps
  // its grid, counted from the last grid point before the timer's creation
  // (earlier runs are not made up, even with kBurst).
  // Tested by PeriodicPolicyTest.Start*.
  std::optional<TimePoint> start;
};

namespace internal {

// The longest period a series repeats with: 2^61 - 1 ns, about 73 years. A
// longer one runs its first run only (its next run is never due).
inline constexpr int64_t kMaxPeriodNanos = (int64_t{1} << 61) - 1;

// NextPeriodicDue()
//
// The due time, on the grid, of the run after the one due at `due`, for a
// run that ended at `now` (all relative to the timer's origin; `period` is
// positive; `due` may be negative, down to `-period`, for a grid that began
// before the timer). Never earlier than `due + period`; saturates at
// kMaxNanos, which never comes. Pure: tested by
// PeriodicPolicyTest.NextPeriodicDue*.
constexpr int64_t NextPeriodicDue(MissedRuns missed, int64_t due,
                                  int64_t period, int64_t now) {
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  if (period >= kMaxPeriodNanos || due > kNever - period) return kNever;
  const int64_t next = due + period;
  if (next >= now) return next;  // On time.
  switch (missed) {
    case MissedRuns::kBurst:
      return next;  // Due at once.
    case MissedRuns::kDelay:
      return now > kNever - period ? kNever : now + period;
    case MissedRuns::kSkip:
      break;
  }
  // The first grid point at or after `now` (next >= 0: due > -period).
  const int64_t behind = now - next;
  const int64_t periods = behind / period + (behind % period != 0 ? 1 : 0);
  if (periods > (kNever - next) / period) return kNever;
  return next + periods * period;
}

// PeriodicTaskBase: the re-adding part of a periodic task, independent of
// the callback's type: 24 bytes over a `TimerTask`'s 40 (the timer, the
// grid point, and the period packed with the policy and a reset mark). The
// timer sets the schedule before the first add; afterwards every field is
// read and written under the timer's lock.
class PeriodicTaskBase : public TimerTask {
 protected:
  explicit PeriodicTaskBase(Timer* timer)
      : timer_(timer), period_nanos_(0), missed_(0), reset_(0) {}

  // Re-adds this task at its next due time; refused (silently: the series
  // ends) after `Cancel()` or `Shutdown()`. Called at the end of `Run()`.
  void Rearm();

 private:
  friend class timingwheel::Timer;

  // Sets the period (capped at kMaxPeriodNanos), the policy and the grid
  // point of the first run.
  void SetSchedule(int64_t period_nanos, MissedRuns missed, int64_t grid) {
    period_nanos_ = static_cast<uint64_t>(
        period_nanos < kMaxPeriodNanos ? period_nanos : kMaxPeriodNanos);
    missed_ = static_cast<uint64_t>(missed);
    reset_ = 0;
    grid_nanos_ = grid;
  }
  int64_t period_nanos() const { return static_cast<int64_t>(period_nanos_); }

  // At the end of a run, at `now`: the due time of the next run, which
  // becomes the grid point. After a reset during the run, the reset's
  // instant (due at once if it has passed); otherwise the policy's.
  int64_t TakeNextDue(int64_t now) {
    if (reset_ == 0) {
      grid_nanos_ =
          NextPeriodicDue(static_cast<MissedRuns>(missed_), grid_nanos_,
                          static_cast<int64_t>(period_nanos_), now);
    }
    reset_ = 0;
    return grid_nanos_;
  }

  // A reset to `grid`: of a waiting run (which the caller moves there), or,
  // with `running`, of the re-arm at the end of the run in progress.
  void SetReset(int64_t grid, bool running) {
    grid_nanos_ = grid;
    reset_ = running ? 1 : 0;
  }

  // The timer outlives every run of its tasks (its destructor waits).
  Timer* const timer_;
  // The grid point of the run waiting or in progress (relative to the
  // timer's origin), or, with reset_, of the run after the one in progress.
  int64_t grid_nanos_ = 0;
  // One word: the period, the MissedRuns, and whether a reset came during
  // the run in progress.
  uint64_t period_nanos_ : 61;
  uint64_t missed_ : 2;
  uint64_t reset_ : 1;
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

  // PeriodicHandle::status()
  //
  // `TaskStatus::kPending` while the next run waits, `kRunning` while a
  // run is in progress (it re-arms as it ends), `kCancelled` once the series
  // was ended by `Cancel()`, `Timer::CancelAll()` or `Shutdown()` while its
  // next run waited, `kNone` for an empty handle (see `TaskStatus`; a series
  // that `Cancel()` stopped during a run reads `kRan` after that run).
  // Thread-safe. Tested by TaskStatusTest.PeriodicHandle.
  TaskStatus status() const { return handle_.status(); }

  // PeriodicHandle::Reset()
  //
  // Moves the next run to one period from now; the grid continues from
  // there (run k after it is due k periods later). While a run is in
  // progress, the run in progress is not repeated: the re-arm at its end
  // puts the next run at the new time instead of the policy's (at once, if
  // the new time has passed by then). Returns true if the series' next run
  // is now due at the new time (or will be, once the run in progress
  // ends); false, changing nothing, when the series has ended (`Cancel()`,
  // `Shutdown()`, an executor that dropped its run, the timer destroyed)
  // or the handle is empty. Never makes the series run concurrently with
  // itself. Thread-safe with respect to the timer (a handle itself is
  // thread-compatible). Tested by PeriodicPolicyTest.Reset*.
  bool Reset();

  // PeriodicHandle::ResetAfter()
  //
  // As `Reset()`, with the next run `delay` from now (zero or negative: at
  // the next advance). Tokio's `reset_after`.
  bool ResetAfter(absl::Duration delay);

  // PeriodicHandle::ResetAt()
  //
  // As `Reset()`, with the next run at `deadline` on the timer's clock (see
  // `Timer::Now()`; passed: at the next advance), and the grid
  // `deadline + k * period`. Tokio's `reset_at`.
  bool ResetAt(TimePoint deadline);

  // PeriodicHandle::valid()
  //
  // Returns whether the handle refers to a periodic task.
  bool valid() const { return handle_.valid(); }

 private:
  friend class Timer;
  friend class ScopedTimerHandle;
  explicit PeriodicHandle(TimerHandle handle) : handle_(std::move(handle)) {}

  // Reset() (kPeriod), ResetAfter() (kAfter: `nanos` is the delay) and
  // ResetAt() (kAt: `nanos` is the deadline on the clock).
  enum class ResetKind { kPeriod, kAfter, kAt };
  bool ResetInternal(ResetKind kind, int64_t nanos);

  TimerHandle handle_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_PERIODIC_TASK_H_
