// Copyright 2026 The timingwheel Authors.
//
// timer_under_test.h
// -----------------------------------------------------------------------------
//
// The one small interface every timer the benchmarks compare sits behind:
// schedule with a delay, cancel, run its own thread(s), count its wake-ups.
// This file defines:
//
//   * `TimerId`: what `Schedule()` returns and `Cancel()` takes.
//   * `TimerUnderTest`: the interface.
//
// The implementations live next to it, one file each: heap_timer.h,
// round_wheel_timer.h, fixed_tick_wheel_timer.h, asio_timer.h, and
// timingwheel_timer.h (this project's `Timer`, with its own reaper or with a
// Kafka-style 200 ms polling loop). make_timers.h builds them by name.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_TIMER_UNDER_TEST_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_TIMER_UNDER_TEST_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace bench {

// TimerId
//
// Identifies one scheduled callback in the timer that returned it. Never 0.
using TimerId = uint64_t;

// TimerUnderTest
//
// A timer as the benchmarks see it. `Start()` launches its thread(s), named
// so that /proc/self/task/*/comm shows them; `Stop()` joins them and drops
// whatever is still pending. Every implementation counts `wakeups()`: each
// return of its timer thread from its wait (timeouts, notifications and
// spurious returns alike). Thread-safe after construction.
class TimerUnderTest {
 public:
  using Callback = absl::AnyInvocable<void()>;

  virtual ~TimerUnderTest() = default;

  // TimerUnderTest::name()
  //
  // A short label for tables and JSON ("heap", "round-wheel-1ms", ...).
  virtual std::string name() const = 0;

  // TimerUnderTest::Start()
  //
  // Starts the timer thread(s). Called once, before the first `Schedule()`.
  virtual void Start() = 0;

  // TimerUnderTest::Stop()
  //
  // Stops and joins the thread(s); pending callbacks never run. Idempotent.
  virtual void Stop() = 0;

  // TimerUnderTest::Schedule()
  //
  // Runs `callback` once `delay` has elapsed (on the implementation's own
  // thread or executor) and returns its id. Thread-safe.
  virtual TimerId Schedule(absl::Duration delay, Callback callback) = 0;

  // TimerUnderTest::Post()
  //
  // As `Schedule()`, for a callback that will never be cancelled: an
  // implementation may skip keeping its id (the benchmarks that only measure
  // firing use this, so that no id bookkeeping sits on the firing path).
  // Thread-safe.
  virtual void Post(absl::Duration delay, Callback callback) {
    Schedule(delay, std::move(callback));
  }

  // TimerUnderTest::Cancel()
  //
  // Prevents the callback `id` from running. Returns whether this call did.
  // Thread-safe.
  virtual bool Cancel(TimerId id) = 0;

  // TimerUnderTest::wakeups()
  //
  // Returns from the timer thread's wait so far. Thread-safe.
  virtual int64_t wakeups() const = 0;

  // TimerUnderTest::timer_thread_name()
  //
  // The pthread name of the thread that waits for due timers (the one whose
  // wake-ups `wakeups()` counts).
  virtual std::string timer_thread_name() const = 0;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_TIMER_UNDER_TEST_H_
