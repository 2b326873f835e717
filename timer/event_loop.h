// Copyright 2026 The timingwheel Authors.
//
// event_loop.h
// -----------------------------------------------------------------------------
//
// Driving a `Timer` from your own `epoll`/`poll` loop instead of its reaper
// thread. This file defines `EpollTimeoutMs()`, which turns
// `Timer::NextDueIn()` into the timeout argument of `epoll_wait()`/`poll()`.
//
// The recipe (tests/examples/epoll_loop.cc is a complete program):
//
//   1. Create the timer with `start_reaper = false`, an executor of your
//      choice (one that runs callbacks inline on the loop thread is fine:
//      the timer calls it with no lock held), and `on_next_due_earlier` set
//      to wake the loop (write to an eventfd or a pipe registered in the
//      epoll set). The hook runs on the thread that added the timer, with no
//      lock of the timer held, only when that add made the next due instant
//      earlier: other threads' adds then shorten the loop's sleep.
//   2. Each turn: `epoll_wait(epfd, events, n,
//      timingwheel::EpollTimeoutMs(timer->NextDueIn()))`, handle the ready
//      descriptors (drain the eventfd), then
//      `timer->AdvanceClock(absl::ZeroDuration())`, which never blocks and
//      flushes everything due in one call: every task whose due time has
//      passed is handed to the executor, including tasks that callbacks
//      run during the call added and that are already due.
//
// Nothing runs early: the timeout is rounded up to whole milliseconds, and a
// wake-up before the due time (a signal, another descriptor, a bucket that
// must cascade first) only flushes what is due.

#ifndef TIMINGWHEEL_TIMER_EVENT_LOOP_H_
#define TIMINGWHEEL_TIMER_EVENT_LOOP_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <limits>

#include "absl/time/time.h"

namespace timingwheel {

// EpollTimeoutMs()
//
// Returns `next_due_in` (from `Timer::NextDueIn()`) as the millisecond
// timeout of `epoll_wait()` or `poll()`: rounded up, so the loop never wakes
// before the due time (1.2 ms gives 2; 1 ns gives 1); 0 for zero or
// negative (something is due: do not block); -1 for
// `absl::InfiniteDuration()` (nothing pending: block until a descriptor is
// ready, such as the eventfd that `TimerOptions::on_next_due_earlier`
// writes); at most `INT_MAX`.
inline int EpollTimeoutMs(absl::Duration next_due_in) {
  if (next_due_in == absl::InfiniteDuration()) return -1;
  if (next_due_in <= absl::ZeroDuration()) return 0;
  const absl::Duration max_ms =
      absl::Milliseconds(std::numeric_limits<int>::max());
  if (next_due_in >= max_ms) return std::numeric_limits<int>::max();
  return static_cast<int>(absl::ToInt64Milliseconds(
      absl::Ceil(next_due_in, absl::Milliseconds(1))));
}

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_EVENT_LOOP_H_
