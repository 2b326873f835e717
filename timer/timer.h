// Copyright 2026 The timingwheel Authors.
//
// timer.h
// -----------------------------------------------------------------------------
//
// The header users include. `Timer` holds any number of "run this after d"
// tasks in a hierarchical timing wheel (see internal/timing_wheel.h for the
// algorithm) and runs each on an executor once it is due. This file defines
// `Timer` (schedule, add, cancel, advance, shut down) and `TimerBatchEntry`
// (one task of `Timer::AddBatch()`), and includes, so that this one include
// gives users everything, `TimerOptions` (timer_options.h: tick, wheel size,
// clock, executor, reaper, limits) and `TimerMetrics` (timer_metrics.h: a
// snapshot of the timer's counters).
//
// Rescheduling (`TimerHandle::Reschedule()`), absolute deadlines
// (`Timer::Now()`, `ScheduleAt()`, `AddAt()`), periodic tasks
// (`SchedulePeriodic()`, periodic_task.h) and batches (`AddBatch()`) keep
// the guarantees below; handles that cancel on destruction are in
// scoped_timer_handle.h.
//
// Guarantees
//   * Never early: a task runs only once the timer's clock has reached its due
//     time (the clock reading when it was added, plus its delay).
//   * Precise: the reaper sleeps until the earliest due instant, so lateness
//     is the thread's wake-up and scheduling delay, not a tick.
//   * Exactly once: every task scheduled either runs once or is cancelled
//     (by `Cancel()`, by `Shutdown()`, or because the executor dropped its
//     batch), never both, never twice, never lost.
//   * Never concurrently with itself, even on a thread pool; `Cancel()`
//     prevents a run until `Run()` starts, and stops a repeating task.
//   * Idle costs nothing: with nothing pending the reaper sleeps without a
//     timeout; with tasks pending it wakes once per distinct due instant.
//   * Callbacks never run under a lock of the timer, nor where they could
//     delay another task: they run on the executor. The default executor
//     lets the reaper run a due batch itself (no hand-off, one wake-up per
//     due instant); a standby thread takes over the flushing if a callback
//     is still running when the next task is due.
//   * O(1) add and cancel; no allocation beyond the task itself (40 bytes of
//     bookkeeping plus the callback's captures).
//
// Example:
//   auto timer = timingwheel::Timer::Create().value();
//   timingwheel::TimerHandle handle =
//       timer->Schedule(absl::Seconds(30), [] { CloseIdleConnection(); })
//           .value();
//   ...
//   handle.Cancel();  // Traffic arrived: the connection is not idle.

#ifndef TIMINGWHEEL_TIMER_TIMER_H_
#define TIMINGWHEEL_TIMER_TIMER_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "timer/clock.h"
#include "timer/executor.h"
#include "timer/internal/in_flight.h"
#include "timer/internal/inbox.h"
#include "timer/internal/inline_runs.h"
#include "timer/internal/mutex.h"
#include "timer/internal/timer_control.h"
#include "timer/internal/timer_settings.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wake_state.h"
#include "timer/periodic_task.h"
#include "timer/time_point.h"
#include "timer/timer_handle.h"
#include "timer/timer_metrics.h"  // IWYU pragma: export
#include "timer/timer_options.h"  // IWYU pragma: export
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {
class StandbyExecutor;
}  // namespace internal
class EmbeddedTimer;

// TimerBatchEntry
//
// One task for `Timer::AddBatch()`: `task` runs once `delay` has elapsed.
struct TimerBatchEntry {
  TaskPtr<TimerTask> task;
  absl::Duration delay;
};

// Timer
//
// A hierarchical timing wheel with a bucket delay queue, an optional reaper
// thread and an executor for callbacks. Create with `Timer::Create()`.
//
// Thread safety: every public member is thread-safe; `Schedule()`, `Add()`
// and `Cancel()` may be called from any number of threads, including from
// callbacks, while the reaper advances. A timer must not be destroyed from
// one of its own callbacks: the destructor would wait for that callback, so
// it aborts the process with a message saying so instead.
//
// Producer inboxes. `Schedule()` and `Add()` of an idle task may take no
// lock: what they promise then, and which adds always lock, is at
// `TimerOptions::producer_inboxes` (timer_options.h).
class Timer {
 public:
  // Timer::Create()
  //
  // Returns a new timer, or `absl::InvalidArgumentError` when `options` is
  // invalid (tick < 1ns, wheel size outside [2, 2^20], negative
  // max_pending, expected_pending or default_timeout), or
  // `absl::ResourceExhaustedError` with 2^25 - 1 timers alive or when the room
  // `expected_pending` asks for cannot be allocated.
  static absl::StatusOr<std::unique_ptr<Timer>> Create(
      TimerOptions options = TimerOptions());

  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Shuts the timer down (see `Shutdown()`); the tasks still pending are
  // cancelled and released. Handles it returned stay safe to use (they do
  // nothing). Called from one of this timer's own callbacks, it aborts the
  // process with a message naming the mistake (it cannot wait for itself).
  ~Timer();

  // Timer::Schedule()
  //
  // Runs `callback` (a callable `void()`) on the executor once `delay` has
  // elapsed on the timer's clock; never runs it early. A zero or negative
  // delay runs it on the next advance, never on the caller's thread; delays
  // beyond ~292 years saturate. Returns a handle that can cancel it, or
  // `absl::FailedPreconditionError` after `Shutdown()`, or
  // `absl::ResourceExhaustedError` past `max_pending` (the callback is then
  // destroyed without running). Thread-safe.
  template <typename F>
  absl::StatusOr<TimerHandle> Schedule(absl::Duration delay, F&& callback) {
    static_assert(std::is_invocable_v<std::decay_t<F>&>,
                  "Schedule: the callback must be callable as void()");
    auto* task =
        new internal::CallbackTask<std::decay_t<F>>(std::forward<F>(callback));
    task->InitRefs(2);  // The handle's and the wheel's: no atomic RMW.
    TaskPtr<TimerTask> handle_ref = TaskPtr<TimerTask>::Adopt(task);
    absl::Status status = AddInternal(task, delay, /*wheel_ref_taken=*/true,
                                      /*may_buffer=*/true);
    if (!status.ok()) return status;
    control_->RefForHandle();  // The handle's: it may outlive the timer.
    return TimerHandle(control_, std::move(handle_ref));
  }

  // Timer::Schedule()
  //
  // `Schedule(options.default_timeout, callback)`; fails with
  // `absl::FailedPreconditionError` (destroying the callback) when the
  // timer has no `default_timeout`. Thread-safe.
  template <typename F>
  absl::StatusOr<TimerHandle> Schedule(F&& callback) {
    if (settings_.default_timeout == absl::ZeroDuration()) {
      return NoDefaultTimeoutError();
    }
    return Schedule(settings_.default_timeout, std::forward<F>(callback));
  }

  // Timer::Add()
  //
  // Schedules `task` to run once `delay` has elapsed, with the same rules as
  // `Schedule()`. If `task` is still pending in this timer (or handed to the
  // executor, `Run()` not started), it is moved to the new due time (the
  // move counts as one add, not a cancel). Added while its `Run()` runs (a
  // task re-adding itself), it runs again once due, never concurrently with
  // itself. The timer holds a reference to the task while it is pending or
  // queued to run. Returns the same errors as `Schedule()`, and:
  //   * `absl::InvalidArgumentError` for a null task or one not created with
  //     `MakeTask()`;
  //   * `absl::FailedPreconditionError` when the task belongs to another
  //     timer (pending, queued or running there: see `TimerTask`);
  //   * `absl::CancelledError` when `Cancel()` stopped the task while its
  //     `Run()` runs (until `Run()` returns): how a repeating task ends.
  // Thread-safe.
  absl::Status Add(const TaskPtr<TimerTask>& task, absl::Duration delay);

  // Timer::Add()
  //
  // `Add(task, options.default_timeout)`; `absl::FailedPreconditionError`
  // when the timer has no `default_timeout`. Thread-safe.
  absl::Status Add(const TaskPtr<TimerTask>& task);

  // Timer::Add()
  //
  // As above, for a task the caller knows to be alive (a task re-adding
  // itself from its own `Run()`: `timer->Add(*this, period)`). The task
  // must have been created with `MakeTask()`: a stack or member object, or
  // one made with plain `new`, is refused with `absl::InvalidArgumentError`
  // (the timer would delete it). Thread-safe.
  absl::Status Add(TimerTask& task, absl::Duration delay) {
    return AddInternal(&task, delay, /*wheel_ref_taken=*/false,
                       /*may_buffer=*/true);
  }

  // Timer::Now()
  //
  // Returns the timer's clock reading (`Clock::NowNanos()`) as a
  // `TimePoint`: the base for absolute deadlines (`ScheduleAt()`,
  // `AddAt()`, `TimerHandle::RescheduleAt()`). `ScheduleAt(Now() + d, f)`
  // is due when `Schedule(d, f)` would be. Monotonic, not wall time.
  // Thread-safe; takes no lock.
  TimePoint Now() const {
    return TimePoint::FromNanos(settings_.clock->NowNanos());
  }

  // Timer::ScheduleAt()
  //
  // Runs `callback` once the timer's clock reads `deadline` or later (see
  // `Now()`); never early. A deadline already passed runs it on the next
  // advance, never on the caller's thread; `TimePoint::Max()` never runs it.
  // Reads no clock. Otherwise as `Schedule()` (same errors). Thread-safe.
  template <typename F>
  absl::StatusOr<TimerHandle> ScheduleAt(TimePoint deadline, F&& callback) {
    static_assert(std::is_invocable_v<std::decay_t<F>&>,
                  "ScheduleAt: the callback must be callable as void()");
    auto* task =
        new internal::CallbackTask<std::decay_t<F>>(std::forward<F>(callback));
    task->InitRefs(2);  // The handle's and the wheel's.
    TaskPtr<TimerTask> handle_ref = TaskPtr<TimerTask>::Adopt(task);
    absl::Status status = AddAtInternal(task, deadline,
                                        /*wheel_ref_taken=*/true);
    if (!status.ok()) return status;
    control_->RefForHandle();  // The handle's.
    return TimerHandle(control_, std::move(handle_ref));
  }

  // Timer::AddAt()
  //
  // As `Add()`, due at `deadline` on the timer's clock (see `ScheduleAt()`).
  // Thread-safe.
  absl::Status AddAt(const TaskPtr<TimerTask>& task, TimePoint deadline);

  // Timer::AddBatch()
  //
  // Adds (or moves) every entry's task as `Add()` would, with one clock
  // reading shared by all of them and one acquisition of the timer's lock:
  // per task, the wheel's O(1) placement only. Stops at the first entry that
  // `Add()` would refuse and returns that error; the entries before it were
  // added (`*added`, when not null, receives how many), the others were not.
  // The lock is held for the whole batch, so adds, cancels and the reaper
  // wait behind it: keep batches to thousands, not millions. Thread-safe.
  // Example: docs/timer.md, "Rescheduling, deadlines, periodic tasks,
  // batches".
  absl::Status AddBatch(absl::Span<const TimerBatchEntry> entries,
                        size_t* added = nullptr);

  // Timer::SchedulePeriodic()
  //
  // Runs `callback` (a callable `void()`) every `period` on the executor,
  // the first time `period` from now: at fixed rate, without drift (run k
  // is due at start + k * period, whatever the runs take) and never
  // overlapping itself (one scheduling at a time). A run that ends after the
  // next due time (it overran, or the executor was late by more than a
  // period) skips the missed runs: the next run is due at the first
  // multiple of the period at or after the time the late run ended, so runs
  // are never made up in a burst. Never early, like every task.
  // `SchedulePeriodic(period, PeriodicOptions(), callback)`. Tested by
  // PeriodicTest.
  //
  // Returns a handle whose `Cancel()` guarantees that no run starts after it
  // returns (see `PeriodicHandle`), or `absl::InvalidArgumentError` for a
  // period that is not positive, or the errors of `Schedule()`. An exception
  // from `callback` goes to `on_callback_error` and the task keeps its
  // schedule. The task ends with `Cancel()` or `Shutdown()`. Thread-safe.
  template <typename F>
  absl::StatusOr<PeriodicHandle> SchedulePeriodic(absl::Duration period,
                                                  F&& callback) {
    return SchedulePeriodic(period, PeriodicOptions(),
                            std::forward<F>(callback));
  }

  // Timer::SchedulePeriodic()
  //
  // As above, with `options`: what follows a late run (`options.missed`:
  // skip, burst or delay; see `MissedRuns`) and the first run's due time
  // (`options.start`, the grid's origin; now or passed: at the next
  // advance). Same errors; one task for the series' whole life, 64 bytes
  // plus the callback's captures. Tested by PeriodicPolicyTest. Example
  // (options, `Reset()`): docs/timer.md, "Rescheduling, deadlines, periodic
  // tasks, batches".
  template <typename F>
  absl::StatusOr<PeriodicHandle> SchedulePeriodic(
      absl::Duration period, const PeriodicOptions& options, F&& callback) {
    static_assert(std::is_invocable_v<std::decay_t<F>&>,
                  "SchedulePeriodic: the callback must be callable as void()");
    auto* task = new internal::PeriodicTask<std::decay_t<F>>(
        this, std::forward<F>(callback));
    task->InitRefs(2);  // The handle's and the wheel's.
    TaskPtr<TimerTask> handle_ref = TaskPtr<TimerTask>::Adopt(task);
    absl::Status status = AddPeriodic(task, period, options);
    if (!status.ok()) return status;
    control_->RefForHandle();  // The handle's.
    return PeriodicHandle(TimerHandle(control_, std::move(handle_ref)));
  }

  // Timer::Cancel()
  //
  // Prevents `task`'s next run if `Run()` has not started: it is removed
  // from the wheel, or taken back from a batch handed to the executor. O(1).
  // If `task`'s `Run()` is running, it also stops the task for good: until
  // `Run()` returns, adding it again fails with `absl::CancelledError`, so a
  // task that re-adds itself (a heartbeat) ends with one `Cancel()` from any
  // thread, or from its own `Run()`.
  //
  // Returns true if this call prevented a run; false if no run was waiting
  // (never added, running with nothing re-added, ran, already cancelled,
  // swept by `Shutdown()`, or the task belongs to another timer, which this
  // call then leaves alone). Thread-safe. Example (a repeating task that
  // re-adds itself, ended by one `Cancel()`): docs/timer.md, "Schedule and
  // cancel".
  bool Cancel(TimerTask& task);

  // Timer::CancelAll()
  //
  // Cancels every pending task and keeps the timer (Folly's `cancelAll()`,
  // Tokio's `DelayQueue::clear()`): each is counted cancelled, released
  // (its captures destroyed) before this returns, and told with
  // `TimerTask::OnCancelled()` (on this thread, with no lock held); their
  // handles read `TaskStatus::kCancelled`. Returns how many it cancelled.
  // Tasks added after it starts (by other threads, or by `OnCancelled()`)
  // are kept. What is past pending is left alone: tasks already handed to
  // the executor (due, `Run()` not started) still run, and a task whose
  // `Run()` is running goes on; one that re-adds itself from `Run()` (a
  // periodic task re-arming) is pending again afterwards: to end those,
  // cancel them by handle or shut the timer down. Embedded timers pending
  // in it are cancelled too (see `EmbeddedTimer::status()`). Holds the
  // timer's lock for O(pending tasks). Returns 0 after `Shutdown()`.
  // Thread-safe; callable from callbacks. Tested by TimerCancelAllTest.
  int64_t CancelAll();

  // Timer::PeekNext()
  //
  // The task that is due first (Tokio's `DelayQueue::peek()`): its due
  // instant on the timer's clock (see `Now()`), a handle to it and the task
  // itself (both empty for an `EmbeddedTimer`, which is identified by
  // `embedded`). Of tasks due at the same instant, one of them (the one
  // that runs first when they share a bucket). `std::nullopt` when nothing
  // is pending (tasks that never come due, at `TimePoint::Max()`, are not
  // reported), or after `Shutdown()`. Changes nothing; reads the tasks of
  // the buckets that could hold an earlier one (O(tasks in those buckets)),
  // so it suits an occasional look, not a per-event loop. A snapshot.
  // Thread-safe. Tested by TimerPeekTest.
  struct Peeked {
    TimePoint due;
    TimerHandle handle;
    TaskPtr<TimerTask> task;
    const EmbeddedTimer* embedded = nullptr;
  };
  std::optional<Peeked> PeekNext();

  // Timer::AdvanceClock()
  //
  // Waits up to `timeout` (on the timer's clock) until the earliest bucket is
  // due, moves the wheel's time forward to the clock's time (never
  // backwards), and flushes every bucket that is due: due tasks go to the
  // executor, the others are placed again lower in the wheel. Returns whether
  // any bucket was flushed; false on timeout or after `Shutdown()`. A zero
  // timeout flushes what is due now without waiting (and returns false at
  // once if another thread, such as the reaper, is flushing). One thread
  // flushes at a time. Meant for timers created with `start_reaper = false`;
  // with the reaper running it merely competes with it. Thread-safe.
  bool AdvanceClock(absl::Duration timeout);

  // Timer::Shutdown()
  //
  // Stops accepting tasks (adds then fail with FailedPrecondition), stops and
  // joins the reaper, waits for every callback already handed to the
  // executor to finish (or to be dropped by it), stops the default
  // executor, and returns the tasks that were still pending, cancelled: each
  // counted once in `TimerMetrics::cancelled`, none of them will run.
  // Callers may inspect, run or drop them. No callback of this timer runs
  // after it returns. The pending tasks are collected under the timer's
  // lock in O(buckets) and released outside it.
  //
  // Called from one of this timer's own callbacks, it cannot wait for that
  // callback (nor for callbacks queued behind it on the same executor), so
  // those may still run after it returns; it never deadlocks. Idempotent:
  // later calls return nothing. Thread-safe.
  std::vector<TaskPtr<TimerTask>> Shutdown();

  // Timer::Metrics()
  //
  // Returns a snapshot of the counters. Thread-safe.
  TimerMetrics Metrics() const;

  // Timer::NumPending()
  //
  // Returns the number of pending tasks. Thread-safe.
  int64_t NumPending() const;

  // Timer::NextDueIn()
  //
  // How long from now (on the timer's clock) until the timer next has work
  // for `AdvanceClock()`: `absl::InfiniteDuration()` when nothing is
  // pending, `absl::ZeroDuration()` when something is due now. Never later
  // than the earliest pending task's due time; it may be earlier (a bucket
  // that must cascade first), in which case the advance runs nothing early
  // and the next call returns the rest. For an owner's event loop: see
  // `EpollTimeoutMs()` in event_loop.h. Thread-safe.
  absl::Duration NextDueIn();

  // Timer::clock()
  //
  // The clock this timer reads.
  Clock& clock() const { return *settings_.clock; }

 private:
  friend class TimerHandle;
  friend class internal::PeriodicTaskBase;
  friend class EmbeddedTimer;
  friend class PeriodicHandle;
  // The parts of the timer, one job each (see timer_impl.h for the list).
  class Inboxes;        // Producer inboxes, floor: timer_inbox.h.
  class Reaper;         // Reaper, wake-ups, inline runs: timer_reaper.h.
  class Flusher;        // Flush into batches: timer_flush.h.
  class Runner;         // Running a batch: timer_run.h.
  class EmbeddedSlots;  // Embedded timers: timer_embedded.h.
  class Periodic;       // Periodic re-arms, resets: timer_periodic.h.
  class Placement;      // Placing a task in the wheel: timer_add.h.
  class Cancels;        // Taking a task back: timer_cancel.h.
  class Clocks;         // Clock readings as relative ns: timer_clock.h.
  class TaskStatuses;   // A handle's view of its task: timer_status.h.
  class CallbackScope;  // A thread inside a callback: timer_run.cc.
  class Batch;          // A batch as executor callback: timer_impl.h.

  Timer(const TimerOptions& options, int64_t tick_nanos, uint32_t id);

  // Adds or moves `task`. With `wheel_ref_taken`, the caller already counted
  // the wheel's reference (dropped here if the add fails).
  // With `may_buffer`, an idle counted task may go to the producer inbox
  // (Schedule() and Add() only).
  absl::Status AddInternal(TimerTask* task, absl::Duration delay,
                           bool wheel_ref_taken = false,
                           bool may_buffer = false);
  // The error of Schedule(callback) and Add(task) without default_timeout.
  static absl::Status NoDefaultTimeoutError();
  // The entry points of timer_scheduling.cc.
  absl::Status AddAtInternal(TimerTask* task, TimePoint deadline,
                             bool wheel_ref_taken);
  absl::Status AddPeriodic(internal::PeriodicTaskBase* task,
                           absl::Duration period,
                           const PeriodicOptions& options);

  // What the options fixed for the timer's life (read without the lock).
  const internal::TimerSettings settings_;
  // The lock and liveness that handles share (one reference is the timer's).
  internal::TimerControl* const control_;
  // The default executor (null with TimerOptions::executor).
  std::unique_ptr<internal::StandbyExecutor> owned_executor_;
  Executor* const executor_;
  const int64_t origin_;  // The clock's reading at creation: relative 0.

  internal::Mutex& mu_;         // control_->mu.
  std::condition_variable cv_;  // The flusher sleeps on it; Add wakes it.
  internal::TimingWheel wheel_ ABSL_GUARDED_BY(mu_);
  // Embedded timers handed to the executor, Run() not started, in due order.
  // A batch holds a null slot for each instead of a pointer, so that an
  // embedded timer destroyed while queued is simply unlinked from here.
  internal::ListNode embedded_ready_ ABSL_GUARDED_BY(mu_);
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  internal::WakeState wake_ ABSL_GUARDED_BY(mu_);  // Flusher, sleepers.
  // The producer inboxes (see above), and whether Shutdown() closed them.
  internal::Inbox inbox_;
  bool inbox_closed_ ABSL_GUARDED_BY(mu_) = false;
  TimerMetrics counters_ ABSL_GUARDED_BY(mu_);
  internal::Watchdog watchdog_ ABSL_GUARDED_BY(mu_);  // Of inline runs.
  internal::InlineRuns inline_;  // The reaper's own runs of due batches.
  std::atomic<int64_t> callback_errors_{0};
  // Callbacks handed to the executor and not finished: Shutdown() never
  // returns while one is still running.
  internal::InFlightCallbacks in_flight_;
  // Serializes the joining part of Shutdown() between threads.
  std::mutex shutdown_mu_;
  std::thread reaper_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_H_
