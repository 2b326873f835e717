// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/tick_wheel_base.h"

#include <utility>

#include "benchmarks/baselines/deadline.h"

namespace timingwheel {
namespace bench {

TickWheelBase::TickWheelBase(std::string thread_name, Clock* clock,
                             absl::Duration tick, int64_t wheel_size,
                             int64_t slots)
    : LoopTimer(std::move(thread_name), clock),
      tick_nanos_(absl::ToInt64Nanoseconds(tick)),
      wheel_size_(wheel_size),
      start_(clock_->NowNanos()),
      slots_(static_cast<size_t>(slots), kNil) {}

TimerId TickWheelBase::Schedule(absl::Duration delay, Callback callback) {
  const int64_t now = clock_->NowNanos();
  const int64_t due = DeadlineAfter(now, delay) - start_;
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t index = pool_.Allocate();
  Node& node = pool_[index];
  node.callback = std::move(callback);
  node.expire_tick = due / tick_nanos_;
  PlaceLocked(index);
  ++touches_;
  return pool_.IdOf(index);
}

bool TickWheelBase::Cancel(TimerId id) {
  Callback dropped;  // Destroyed outside the lock.
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t index = pool_.Find(id);
  if (index == kNil) return false;
  UnlinkLocked(index);
  dropped = std::move(pool_[index].callback);
  pool_.Free(index);
  return true;
}

void TickWheelBase::LinkLocked(uint32_t slot, uint32_t index) {
  Node& node = pool_[index];
  node.slot = slot;
  node.prev = kNil;
  node.next = slots_[slot];
  if (node.next != kNil) pool_[node.next].prev = index;
  slots_[slot] = index;
}

void TickWheelBase::UnlinkLocked(uint32_t index) {
  Node& node = pool_[index];
  if (node.prev != kNil) {
    pool_[node.prev].next = node.next;
  } else {
    slots_[node.slot] = node.next;
  }
  if (node.next != kNil) pool_[node.next].prev = node.prev;
  node.prev = node.next = node.slot = kNil;
}

void TickWheelBase::ExpireLocked(uint32_t index, std::vector<Callback>& out) {
  UnlinkLocked(index);
  out.push_back(std::move(pool_[index].callback));
  pool_.Free(index);
}

void TickWheelBase::CollectDueLocked(int64_t now, std::vector<Callback>& out) {
  while (start_ + (tick_ + 1) * tick_nanos_ <= now) {
    ProcessTickLocked(out);
    ++tick_;
  }
}

int64_t TickWheelBase::NextWakeLocked() {
  return start_ + (tick_ + 1) * tick_nanos_;
}

}  // namespace bench
}  // namespace timingwheel
