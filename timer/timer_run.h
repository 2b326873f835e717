// Copyright 2026 The timingwheel Authors.
//
// timer_run.h
// -----------------------------------------------------------------------------
//
// `Timer::Runner`: running (or releasing) a batch handed to the executor.
// It promises that a task runs only if its kQueued claim is still there
// (a cancel or a move takes it back), never concurrently with itself (a run
// deferred meanwhile runs on the thread that holds the claim), that a
// callback's exception goes to `on_callback_error`, and that `Shutdown()`
// learns when the last callback in flight has finished. Implemented in
// timer_run.cc (with `Timer::CallbackScope`).
//
// Threads: the executor's threads (or the reaper, for inline batches),
// without the timer's lock.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_RUN_H_
#define TIMINGWHEEL_TIMER_TIMER_RUN_H_

#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::Runner {
 public:
  // Runs `batch` on the executor, then drops the wheel's references.
  static void RunBatch(Timer& timer, std::vector<TimerTask*>& batch);
  // Runs `task`, whose kQueued this thread claimed, then any run deferred to
  // this thread meanwhile. Returns how many deferred references it dropped.
  static int64_t RunClaimed(Timer& timer, TimerTask* task);
  // Calls `task->Run()`; an exception goes to settings_.on_callback_error.
  static void InvokeRun(Timer& timer, TimerTask* task);
  // Releases a batch the executor destroyed without running: its tasks are
  // cancelled. Called without mu_.
  static void ReleaseBatch(Timer& timer, std::vector<TimerTask*>& batch);
  // Decrements in_flight_ by `count` and wakes Shutdown() at zero.
  static void FinishInFlight(Timer& timer, int64_t count);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_RUN_H_
