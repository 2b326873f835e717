// Copyright 2026 The timingwheel Authors.

#include "durable/engine/slot_leases.h"

#include <algorithm>

namespace timingwheel {
namespace durable_internal {

std::vector<SlotEpoch> SlotLeases::owned() const {
  internal::MutexLock lock(mu_);
  std::vector<SlotEpoch> out;
  out.reserve(owned_.size());
  for (const auto& [slot, epoch] : owned_) out.push_back({slot, epoch});
  return out;
}

size_t SlotLeases::size() const {
  internal::MutexLock lock(mu_);
  return owned_.size();
}

std::vector<int> SlotLeases::DropLost(const std::vector<SlotEpoch>& lost) {
  internal::MutexLock lock(mu_);
  std::vector<int> dropped;
  for (const SlotEpoch& s : lost) {
    auto it = owned_.find(s.slot);
    if (it != owned_.end() && it->second == s.epoch) {
      dropped.push_back(s.slot);
      owned_.erase(it);
    }
  }
  return dropped;
}

absl::StatusOr<SlotLeases::Changes> SlotLeases::Balance(
    StoreApi& store, int64_t live_nodes, bool may_acquire, int max_acquire,
    const std::function<bool(int)>& may_release,
    absl::Span<const LiveAttempt> live) {
  Changes changes;
  const int64_t nodes = std::max<int64_t>(1, live_nodes);
  const int64_t share = (slot_count_ + nodes - 1) / nodes;
  const std::vector<SlotEpoch> held = owned();
  const int64_t have = static_cast<int64_t>(held.size());
  if (have > share) {
    // Give the surplus up from the top, skipping slots with running attempts.
    int64_t surplus = have - share;
    for (auto it = held.rbegin(); it != held.rend() && surplus > 0; ++it) {
      if (may_release(it->slot)) {
        changes.released.push_back(*it);
        --surplus;
      }
    }
    if (!changes.released.empty()) {
      absl::Status status = store.Release(node_id_, changes.released);
      if (!status.ok()) return status;
      internal::MutexLock lock(mu_);
      for (const SlotEpoch& s : changes.released) owned_.erase(s.slot);
    }
  } else if (have < share && may_acquire) {
    const int64_t asked =
        std::min<int64_t>(share - have, std::max(1, max_acquire));
    absl::StatusOr<std::vector<SlotEpoch>> got =
        store.Acquire(node_id_, static_cast<int>(asked), ttl_us_, max_attempts_,
                      horizon_us_, live);
    if (!got.ok()) return got.status();
    changes.wants_more =
        static_cast<int64_t>(got->size()) == asked && have + asked < share;
    internal::MutexLock lock(mu_);
    for (const SlotEpoch& s : *got) owned_[s.slot] = s.epoch;
    changes.acquired = *std::move(got);
  }
  return changes;
}

std::vector<int> SlotLeases::Forget() {
  internal::MutexLock lock(mu_);
  std::vector<int> slots;
  for (const auto& [slot, epoch] : owned_) slots.push_back(slot);
  owned_.clear();
  return slots;
}

}  // namespace durable_internal
}  // namespace timingwheel
