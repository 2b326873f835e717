// Copyright 2026 The timingwheel Authors.
//
// tick_wheel_base.h
// -----------------------------------------------------------------------------
//
// `TickWheelBase`: what the two fixed-tick wheel baselines share. Tick `t`
// covers clock times [start + t * tick, start + (t + 1) * tick); a timer due
// in tick `t` expires when tick `t` is processed, at its end, so it is never
// early and up to one tick (plus the thread's wake-up delay) late. The
// thread wakes at the end of every tick whether or not anything is due:
// that is the cost these baselines show. Slots are intrusive doubly linked
// lists of pool indices (O(1) insert and cancel).

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_TICK_WHEEL_BASE_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_TICK_WHEEL_BASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/baselines/loop_timer.h"
#include "benchmarks/baselines/node_pool.h"

namespace timingwheel {
namespace bench {

// TickWheelBase
//
// Subclasses place nodes (`PlaceLocked()`) and process one tick
// (`ProcessTickLocked()`). Thread-safe.
class TickWheelBase : public LoopTimer {
 public:
  TimerId Schedule(absl::Duration delay, Callback callback) override;
  bool Cancel(TimerId id) override;

 protected:
  struct Node {
    uint32_t generation = 0;
    bool live = false;
    uint32_t prev = kNil;
    uint32_t next = kNil;
    uint32_t slot = kNil;  // Index into slots_.
    int64_t expire_tick = 0;
    int64_t rounds = 0;  // Revolutions left (round wheel only).
    Callback callback;
  };

  // `slots` lists in all (levels times wheel size).
  TickWheelBase(std::string thread_name, Clock* clock, absl::Duration tick,
                int64_t wheel_size, int64_t slots);

  // Links fresh or re-placed node `index` (its expire_tick set) into a slot.
  virtual void PlaceLocked(uint32_t index) = 0;
  // Processes tick `tick_` (cascades, round counting, expiry).
  virtual void ProcessTickLocked(std::vector<Callback>& out) = 0;

  void LinkLocked(uint32_t slot, uint32_t index);
  void UnlinkLocked(uint32_t index);
  // Unlinks node `index`, moves its callback to `out` and frees it.
  void ExpireLocked(uint32_t index, std::vector<Callback>& out);

  const int64_t tick_nanos_;
  const int64_t wheel_size_;
  const int64_t start_;
  int64_t tick_ = 0;  // The next tick to process.
  NodePool<Node> pool_;
  std::vector<uint32_t> slots_;  // Head node of each list, or kNil.

 private:
  void CollectDueLocked(int64_t now, std::vector<Callback>& out) override;
  int64_t NextWakeLocked() override;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_TICK_WHEEL_BASE_H_
