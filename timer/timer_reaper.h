// Copyright 2026 The timingwheel Authors.
//
// timer_reaper.h
// -----------------------------------------------------------------------------
//
// `Timer::Reaper`: the reaper thread's loop, the wake-up of sleepers an add
// would make oversleep, and the inline runs of the default executor with
// their watchdog. It promises that a sleeping flusher wakes by the earliest
// due instant, and that a callback the reaper runs itself never delays the
// next due instant by more than a wake-up: the standby's watchdog takes over
// the flushing (see internal/standby_executor.h). Implemented in
// timer_reaper.cc (with `Timer::AdvanceClock()`).
//
// Threads: `ReaperLoop()` and `RunInlineBatches()` run on the reaper thread,
// `OnWatchdog()` on the standby thread, both without the timer's lock; the
// `...Locked` functions run with the timer's `mu_` held, on any thread.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_REAPER_H_
#define TIMINGWHEEL_TIMER_TIMER_REAPER_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "timer/timer.h"

namespace timingwheel {

class Timer::Reaper {
 public:
  // The reaper thread's body, until Shutdown().
  static void ReaperLoop(Timer& timer);
  // Runs, on the reaper thread, the batches its last flush kept for itself
  // (inline_.batches), with the standby's watchdog armed to the next due
  // instant meanwhile; or hands them to the standby when the next due
  // instant comes before they would end (by inline_.run_ns_per_task, plus a
  // margin). Called without mu_.
  static void RunInlineBatches(Timer& timer);
  // Arms the standby's watchdog to relative time `key` (kMaxNanos: no
  // deadline yet) and makes an Add() due earlier than it notify (see
  // AddLocked). Unless `force`, only ever moves the deadline earlier.
  static void ArmWatchdogLocked(Timer& timer, int64_t key, bool force)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // On the standby thread when the watchdog expires: the reaper is still
  // inside callbacks at a due instant, so this thread flushes and runs what
  // is due (queued to itself), then re-arms the watchdog while the reaper
  // is still busy.
  static void OnWatchdog(Timer& timer);
  // Wakes the sleepers (and re-arms the watchdog) if the wheel's earliest
  // key is now before the deadline they sleep for.
  static void NotifySleepersIfEarlierLocked(Timer& timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_REAPER_H_
