// Copyright 2026 The timingwheel Authors.
//
// round_wheel_timer.h
// -----------------------------------------------------------------------------
//
// `RoundWheelTimer`: baseline 2, a Netty-style `HashedWheelTimer`. One level
// of `wheel_size` slots with round counters: a timer due in tick `e` sits in
// slot `e % wheel_size` with `(e - current) / wheel_size` rounds to go, and
// the thread, waking at the end of every tick, visits every timer of the
// slot it passes (decrementing rounds, or expiring it at zero). So a timer of
// delay `d` is visited about `d / (tick * wheel_size)` times, and the thread
// wakes every tick even when nothing is pending. Callbacks run on the thread.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_ROUND_WHEEL_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_ROUND_WHEEL_TIMER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/baselines/tick_wheel_base.h"

namespace timingwheel {
namespace bench {

// RoundWheelTimer
//
// Thread-safe. Its thread is named "bl-round".
class RoundWheelTimer final : public TickWheelBase {
 public:
  explicit RoundWheelTimer(absl::Duration tick, int64_t wheel_size = 512,
                           Clock* clock = nullptr);
  ~RoundWheelTimer() override { Stop(); }

  std::string name() const override;

 private:
  void PlaceLocked(uint32_t index) override;
  void ProcessTickLocked(std::vector<Callback>& out) override;

  const absl::Duration tick_length_;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_ROUND_WHEEL_TIMER_H_
