// Copyright 2026 The timingwheel Authors.
//
// loop_timer.h
// -----------------------------------------------------------------------------
//
// `LoopTimer`: the thread loop the hand-written baselines share. The thread
// collects what is due, runs it outside the lock, then sleeps until the
// deadline its subclass names (the earliest timer for a heap, the end of the
// next tick for a fixed-tick wheel), counting every return from that sleep.
// Without `Start()` the same logic is driven by hand with `RunDue()` on an
// injected clock, which is how the micro benchmarks count touches.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_LOOP_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_LOOP_TIMER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/baselines/timer_under_test.h"
#include "timer/clock.h"

namespace timingwheel {
namespace bench {

// LoopTimer
//
// Base of the baselines that run callbacks on their own single thread.
// Subclasses implement the two `*Locked()` hooks, called with `mu_` held.
// Thread-safe.
class LoopTimer : public TimerUnderTest {
 public:
  ~LoopTimer() override;

  void Start() override;
  void Stop() override;
  int64_t wakeups() const override {
    return wakeups_.load(std::memory_order_relaxed);
  }
  std::string timer_thread_name() const override { return thread_name_; }

  // LoopTimer::RunDue()
  //
  // Runs every callback due at the clock's current time on the calling
  // thread. For driving the timer by hand (without `Start()`).
  void RunDue();

  // LoopTimer::touches()
  //
  // How many times a timer was placed into a slot or visited by the tick
  // (initial placement included; the final expiry visit not). Thread-safe.
  int64_t touches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return touches_;
  }

 protected:
  // `clock` null means `Clock::Real()`; `thread_name` at most 15 chars.
  LoopTimer(std::string thread_name, Clock* clock);

  // Moves the callbacks due at `now` (clock nanos) into `out`.
  virtual void CollectDueLocked(int64_t now, std::vector<Callback>& out) = 0;

  // The clock time the thread sleeps until; `kInfiniteFutureNanos` for none.
  virtual int64_t NextWakeLocked() = 0;

  // Wakes the thread if it sleeps past `deadline` (for subclasses that sleep
  // until their earliest timer).
  void WakeIfSleepingPastLocked(int64_t deadline) {
    if (sleeping_ && deadline < sleeping_until_) {
      sleeping_ = false;
      cv_.notify_one();
    }
  }

  Clock* const clock_;
  mutable std::mutex mu_;
  int64_t touches_ = 0;  // Guarded by mu_.

 private:
  void Loop();

  const std::string thread_name_;
  std::condition_variable cv_;
  bool stop_ = false;  // Guarded by mu_.
  bool sleeping_ = false;
  int64_t sleeping_until_ = 0;
  std::atomic<int64_t> wakeups_{0};
  std::thread thread_;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_LOOP_TIMER_H_
