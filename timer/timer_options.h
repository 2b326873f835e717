// Copyright 2026 The timingwheel Authors.
//
// timer_options.h
// -----------------------------------------------------------------------------
//
// `TimerOptions`: how a `Timer` is built (tick, wheel size, clock, executor,
// reaper, limits, hooks). Included by timer/timer.h, which users include;
// a plain struct with no behaviour of its own, safe to copy between threads
// like any value.

#ifndef TIMINGWHEEL_TIMER_TIMER_OPTIONS_H_
#define TIMINGWHEEL_TIMER_TIMER_OPTIONS_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <exception>
#include <functional>

#include "absl/time/time.h"
#include "timer/clock.h"
#include "timer/executor.h"

namespace timingwheel {

// TimerOptions
//
// How a `Timer` is built. Every field has a usable default.
struct TimerOptions {
  // The level-0 tick: how tasks are grouped into buckets, not when they run
  // (tasks run at their exact due time). Must be positive.
  absl::Duration tick = absl::Milliseconds(1);

  // Buckets per wheel level, in [2, 2^20]; powers of two index slots with a
  // mask instead of a division. Level 0 covers `tick * wheel_size`; each level
  // above covers `wheel_size` times more. 512 keeps 30-minute timers at a 1 ms
  // tick within three levels.
  int64_t wheel_size = 512;

  // The time source. Null means `Clock::Real()`. Not owned; must outlive the
  // timer.
  Clock* clock = nullptr;

  // Opt-in clock slack: relative delays (`Schedule()`, `Add()`,
  // `AddBatch()`, `Reschedule()`) count from the clock's coarse reading
  // (`Clock::CoarseNowNanos()`: `CLOCK_MONOTONIC_COARSE` for
  // `Clock::Real()`) plus its staleness bound (`CoarseStalenessNanos()`,
  // the kernel tick, 1 to 10 ms), instead of from a precise reading. The
  // trade: a cheaper clock read per add, for tasks that may run up to that
  // bound later than `delay` from the call, never earlier. Absolute
  // deadlines (`AddAt()`), the reaper's sleeps and the check that a task is
  // due use the precise clock either way. No effect on a clock whose
  // staleness bound is 0.
  bool coarse_clock = false;

  // Where callbacks run. Null means the timer's own: with the reaper and
  // the real clock, the reaper runs each due batch itself, and a standby
  // thread owned by the timer ("tw-executor", asleep otherwise) flushes and
  // runs the next due tasks if a callback is still running when they are
  // due; with another clock or without the reaper, callbacks run on that
  // thread.
  // Tasks that come due in the same wake-up are handed over as one
  // executor callback (up to 512 tasks) that runs them in due order, so a
  // thread pool spreads batches, not single tasks, over its threads. Not
  // owned; must outlive the timer. Shutdown() waits until every callback it
  // handed over has run or been destroyed: an executor that drops a
  // callback (destroys it without running it) releases its tasks, counted
  // cancelled (see executor.h).
  Executor* executor = nullptr;

  // Whether the timer runs its own reaper thread (named "tw-reaper"; the
  // default executor's thread is "tw-executor"), which sleeps until the
  // earliest due task and advances the wheel. False when the caller drives
  // the timer with `AdvanceClock()` (tests with a manual clock, or an owner
  // with its own reaper loop).
  bool start_reaper = true;

  // The delay of `Schedule(callback)` and `Add(task)` without a delay, for
  // a timer whose tasks mostly share one (Folly's `setDefaultTimeout()`:
  // the request timeout of a server, say). Zero (the default): not set;
  // those calls then fail with `absl::FailedPreconditionError`. Must not be
  // negative. A separate overload reads it, so the calls with a delay cost
  // nothing more. Tested by TimerDefaultTimeoutTest.
  absl::Duration default_timeout = absl::ZeroDuration();

  // The most tasks that may be pending at once; `Add()` and `Schedule()`
  // beyond it fail with `absl::ResourceExhaustedError`. 0 means no limit.
  int64_t max_pending = 0;

  // How many tasks of `Schedule()` to make room for at `Create()`. With
  // N > 0, `Create()` takes N * 48 bytes (a task whose callback captures up
  // to 8 bytes) for the process-wide task pool and touches every page of
  // it, so that scheduling up to N such tasks faults no page: the first
  // touch is paid here instead of on the adding thread. 0 (the default):
  // pages are faulted as tasks are created. The room is shared: the pool
  // (timer/internal/task_pool.h) reuses it for the tasks of every timer and
  // keeps it until the process exits (it is not returned when this timer
  // is destroyed), and it adds only what it lacks (its unused memory and
  // free task blocks of 40 and 48 bytes count), so timers created one after
  // another with the same N do not grow it. Must be >= 0.
  int64_t expected_pending = 0;

  // Whether `Schedule()` and `Add()` may buffer a task in a per-thread
  // producer inbox instead of taking the timer's lock ("Producer inboxes"
  // at `Timer` points here). On by default; ignored (every add locks) with
  // `max_pending > 0` or an `on_next_due_earlier` hook.
  //
  // `Schedule()` and `Add()` of an idle task (not pending, queued or running
  // anywhere) due no earlier than the deadline every sleeping reaper will wake
  // by (the published "floor") take no lock: the task is buffered and placed in
  // the wheel later, in batches, under the lock (when: docs/timer.md, "Producer
  // threads"), and first thing by every call that needs the wheel's view
  // (`AdvanceClock()`, `NextDueIn()`, `Metrics()`, `NumPending()`,
  // `Shutdown()`, a move, `TimeRemaining()`). A task due before the floor takes
  // the lock and wakes the reaper. `Cancel()` of a buffered task releases the
  // task and its captures before it returns, also when another thread's drain
  // took it first
  // (TimerInboxTest.CancelReleasesCapturesWhenAnotherDrainTookTheTask).
  // Never-early, exactly-once and per-thread order (tasks one thread adds for
  // the same instant run in the order added) hold as for locked adds; a
  // buffered task counts in `Metrics()`/`NumPending()` from the drain those
  // calls run first. Embedded timers, periodic tasks, `AddAt()`, `AddBatch()`,
  // moves of a pending task, re-adds from `Run()`, and every add of a timer
  // with `max_pending` or `on_next_due_earlier` take the lock. Off with
  // `TimerOptions::producer_inboxes = false`.
  bool producer_inboxes = true;

  // Called on the executor with the exception a task's `Run()` threw. The
  // executor goes on with other callbacks either way. An exception thrown by
  // the hook itself is swallowed. Without a hook, each distinct exception
  // type is reported once per process on stderr (its type and `what()`),
  // never swallowed silently; `TimerMetrics::callback_errors` counts all.
  std::function<void(std::exception_ptr)> on_callback_error;

  // Called after an `Add()`, `Schedule()`, `AddAt()`, `ScheduleAt()`,
  // `AddBatch()`, a `TimerHandle::Reschedule()`/`RescheduleAt()`, a periodic
  // task's re-arm or `PeriodicHandle::Reset()`/`ResetAfter()`/`ResetAt()`,
  // or `EmbeddedTimer::Schedule()` made the timer's next due
  // instant (`NextDueIn()`) earlier, on the adding thread, with no lock of
  // the timer held (it may call the timer).
  // For an owner that drives the timer from its own event loop
  // (`start_reaper = false`): wake the loop (write an eventfd or a pipe) so
  // that it recomputes its `epoll_wait` timeout. See event_loop.h.
  std::function<void()> on_next_due_earlier;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_OPTIONS_H_
