// Copyright 2026 The timingwheel Authors.

#include "timer/clock.h"

#include <chrono>

namespace timingwheel {
namespace {

// SteadyClock: `Clock` over std::chrono::steady_clock (CLOCK_MONOTONIC).
class SteadyClock final : public Clock {
 public:
  // steady_clock is CLOCK_MONOTONIC (libstdc++ on Linux), whose time base
  // CLOCK_MONOTONIC_COARSE shares.
  int64_t NowNanos() override { return internal::ReadMonotonic(); }

  int64_t CoarseNowNanos() override {
    return CoarseStaleness() > 0 ? internal::ReadMonotonicCoarse()
                                 : internal::ReadMonotonic();
  }

  int64_t CoarseStalenessNanos() const override { return CoarseStaleness(); }

 private:
  // The coarse clock's resolution: how far behind CLOCK_MONOTONIC it may
  // be. 0 when the kernel has no such clock (then the precise one is read).
  static int64_t CoarseStaleness() {
    static const int64_t staleness = [] {
      timespec res;
      if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0) return int64_t{0};
      return static_cast<int64_t>(res.tv_sec) * 1000000000 + res.tv_nsec;
    }();
    return staleness;
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
