// Copyright 2026 The timingwheel Authors.
//
// step_clock.h
// -----------------------------------------------------------------------------
//
// What the micro benchmarks drive timers with instead of real time:
//
//   * `StepClock`: a `Clock` that moves only when told (`Set()`), for timers
//     created with `start_reaper = false` and advanced by hand.
//   * `InlineExecutor`: an `Executor` that runs callbacks on the caller's
//     thread, so an `AdvanceClock()` returns with its callbacks done.
//
// Benchmarks own these (rather than //timer:testing's ManualClock, which is
// testonly) so that the benchmark binaries stay ordinary binaries.

#ifndef TIMINGWHEEL_BENCHMARKS_STEP_CLOCK_H_
#define TIMINGWHEEL_BENCHMARKS_STEP_CLOCK_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

#include "timer/clock.h"
#include "timer/executor.h"

namespace timingwheel {
namespace bench {

// StepClock
//
// A clock whose time is set by the benchmark. Nothing may sleep on it for
// real: `WaitUntil()` returns after at most a millisecond of real time (a
// timer driven with `AdvanceClock(absl::ZeroDuration())` never calls it).
// Thread-safe.
class StepClock final : public Clock {
 public:
  int64_t NowNanos() override { return now_.load(std::memory_order_acquire); }
  void WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock, int64_t) override {
    cv.wait_for(lock, std::chrono::milliseconds(1));
  }

  // StepClock::Set()
  //
  // Sets the time in nanoseconds.
  void Set(int64_t now_nanos) {
    now_.store(now_nanos, std::memory_order_release);
  }

 private:
  std::atomic<int64_t> now_{0};
};

// InlineExecutor
//
// Runs every callback at once on the calling thread. Thread-safe.
class InlineExecutor final : public Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_STEP_CLOCK_H_
