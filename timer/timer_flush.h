// Copyright 2026 The timingwheel Authors.
//
// timer_flush.h
// -----------------------------------------------------------------------------
//
// `Timer::Flusher`: the flush of due tasks and their hand-over in batches.
// It promises that every task due at the flush's time leaves the wheel,
// counted expired and in flight, in due order, and reaches the executor (or
// the reaper's inline batches) in batches, with the lock released between
// chunks of `internal::kFlushChunk` tasks. Implemented in timer_flush.cc.
//
// Threads: whichever thread flushes (one at a time: see
// `wake_.flusher_active`), with the timer's `mu_` held, except `Dispatch()`.
//
// A part of `Timer`, private to //timer:timer (listed in its srcs): a
// nested class of static functions on the `Timer` they are given, so that
// they reach its state as its members do. Users never include this file.

#ifndef TIMINGWHEEL_TIMER_TIMER_FLUSH_H_
#define TIMINGWHEEL_TIMER_TIMER_FLUSH_H_

#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class Timer::Flusher {
 public:
  // Flushes every bucket due at `now`; releases mu_ between chunks (and
  // holds it again on return).
  static void FlushDue(Timer& timer, int64_t now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Moves the expired tasks out of `expired`, sorted by due time, counting
  // them expired and in flight.
  static std::vector<TimerTask*> TakeExpired(Timer& timer,
                                             std::vector<TimerTask*>& expired)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(timer.mu_);
  // Hands `batch` (whose wheel references it takes over) to the executor as
  // one callback. Called without mu_.
  static void Dispatch(Timer& timer, std::vector<TimerTask*> batch);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_FLUSH_H_
