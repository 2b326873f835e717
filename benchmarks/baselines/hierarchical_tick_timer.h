// Copyright 2026 The timingwheel Authors.
//
// hierarchical_tick_timer.h
// -----------------------------------------------------------------------------
//
// `HierarchicalTickTimer`: baseline 3, a classic hierarchical timing wheel
// (Varghese and Lauck; the Linux kernel's pre-2016 timer wheel) driven by a
// fixed tick, without a delay queue of buckets. Level `L` has `wheel_size`
// slots of `wheel_size^L` ticks; a timer `delta` ticks away sits in the
// lowest level with `delta < wheel_size^(L+1)`. Every tick the thread wakes,
// cascades the upper levels' current slots down when the level below wraps,
// and expires level 0's slot. A timer moves at most once per level, but the
// thread wakes every tick, due or not. Callbacks run on the thread.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_HIERARCHICAL_TICK_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_HIERARCHICAL_TICK_TIMER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/baselines/tick_wheel_base.h"

namespace timingwheel {
namespace bench {

// HierarchicalTickTimer
//
// Thread-safe. Its thread is named "bl-hier".
class HierarchicalTickTimer final : public TickWheelBase {
 public:
  // Levels beyond the last reachable one are clamped to the top level,
  // whose timers are simply re-placed when its slot comes round.
  static constexpr int kLevels = 6;

  explicit HierarchicalTickTimer(absl::Duration tick, int64_t wheel_size = 512,
                                 Clock* clock = nullptr);
  ~HierarchicalTickTimer() override { Stop(); }

  std::string name() const override;

 private:
  void PlaceLocked(uint32_t index) override;
  void ProcessTickLocked(std::vector<Callback>& out) override;

  const absl::Duration tick_length_;
  std::vector<int64_t> span_;  // Ticks per slot at each level.
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_HIERARCHICAL_TICK_TIMER_H_
