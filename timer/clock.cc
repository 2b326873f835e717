// Copyright 2026 The timingwheel Authors.

#include "timer/clock.h"

#include <chrono>

namespace timingwheel {
namespace {

// SteadyClock: `Clock` over std::chrono::steady_clock (CLOCK_MONOTONIC).
class SteadyClock final : public Clock {
 public:
  int64_t NowNanos() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock,
                 int64_t deadline_nanos) override {
    if (deadline_nanos == kInfiniteFutureNanos) {
      cv.wait(lock);
      return;
    }
    cv.wait_until(lock, std::chrono::steady_clock::time_point(
                            std::chrono::nanoseconds(deadline_nanos)));
  }
};

}  // namespace

Clock* Clock::Real() {
  static Clock* const clock = new SteadyClock();
  return clock;
}

}  // namespace timingwheel
