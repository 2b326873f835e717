// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/hierarchical_tick_timer.h"

#include <limits>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace bench {

HierarchicalTickTimer::HierarchicalTickTimer(absl::Duration tick,
                                             int64_t wheel_size, Clock* clock)
    : TickWheelBase("bl-hier", clock, tick, wheel_size, kLevels * wheel_size),
      tick_length_(tick) {
  int64_t span = 1;
  for (int level = 0; level < kLevels; ++level) {
    span_.push_back(span);
    span = span > std::numeric_limits<int64_t>::max() / wheel_size
               ? std::numeric_limits<int64_t>::max()
               : span * wheel_size;
  }
}

std::string HierarchicalTickTimer::name() const {
  return absl::StrCat("hier-tick-", absl::FormatDuration(tick_length_));
}

void HierarchicalTickTimer::PlaceLocked(uint32_t index) {
  Node& node = pool_[index];
  if (node.expire_tick < tick_) node.expire_tick = tick_;
  const int64_t delta = node.expire_tick - tick_;
  int level = 0;
  while (level + 1 < kLevels && delta / wheel_size_ >= span_[level]) ++level;
  const int64_t slot = (node.expire_tick / span_[level]) % wheel_size_;
  LinkLocked(static_cast<uint32_t>(level * wheel_size_ + slot), index);
}

void HierarchicalTickTimer::ProcessTickLocked(std::vector<Callback>& out) {
  // Cascade each level whose lower neighbour wraps at this tick, lowest
  // first: its timers land in lower levels (never in a slot already passed).
  for (int level = 1; level < kLevels; ++level) {
    if (tick_ % span_[level] != 0) break;
    const int64_t slot = (tick_ / span_[level]) % wheel_size_;
    uint32_t index = slots_[static_cast<size_t>(level * wheel_size_ + slot)];
    while (index != kNil) {
      const uint32_t next = pool_[index].next;
      UnlinkLocked(index);
      PlaceLocked(index);
      ++touches_;
      index = next;
    }
  }
  uint32_t index = slots_[static_cast<size_t>(tick_ % wheel_size_)];
  while (index != kNil) {
    const uint32_t next = pool_[index].next;
    ExpireLocked(index, out);
    index = next;
  }
}

}  // namespace bench
}  // namespace timingwheel
