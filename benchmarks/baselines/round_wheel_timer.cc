// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/round_wheel_timer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace bench {

RoundWheelTimer::RoundWheelTimer(absl::Duration tick, int64_t wheel_size,
                                 Clock* clock)
    : TickWheelBase("bl-round", clock, tick, wheel_size, wheel_size),
      tick_length_(tick) {}

std::string RoundWheelTimer::name() const {
  return absl::StrCat("round-wheel-", absl::FormatDuration(tick_length_));
}

void RoundWheelTimer::PlaceLocked(uint32_t index) {
  Node& node = pool_[index];
  // As Netty: rounds from the current tick; a timer already due goes to the
  // current slot with no rounds left.
  node.rounds = std::max<int64_t>(0, (node.expire_tick - tick_) / wheel_size_);
  const int64_t ticks = std::max(node.expire_tick, tick_);
  LinkLocked(static_cast<uint32_t>(ticks % wheel_size_), index);
}

void RoundWheelTimer::ProcessTickLocked(std::vector<Callback>& out) {
  uint32_t index = slots_[static_cast<size_t>(tick_ % wheel_size_)];
  while (index != kNil) {
    Node& node = pool_[index];
    const uint32_t next = node.next;
    if (node.rounds <= 0) {
      ExpireLocked(index, out);
    } else {
      --node.rounds;
      ++touches_;
    }
    index = next;
  }
}

}  // namespace bench
}  // namespace timingwheel
