// Copyright 2026 The timingwheel Authors.

#include "durable/slot_leases.h"

#include <algorithm>
#include <set>

namespace timingwheel {
namespace durable_internal {

std::vector<SlotEpoch> SlotLeases::owned() const {
  std::vector<SlotEpoch> out;
  out.reserve(owned_.size());
  for (const auto& [slot, epoch] : owned_) out.push_back({slot, epoch});
  return out;
}

absl::StatusOr<SlotLeases::Changes> SlotLeases::Tick(
    StoreApi& store, const std::function<bool(int)>& may_release) {
  Changes changes;
  absl::StatusOr<Renewal> round =
      store.Renew(node_id_, owned(), ttl_us_, horizon_us_);
  if (!round.ok()) return round.status();
  std::set<int> kept(round->renewed.begin(), round->renewed.end());
  for (auto it = owned_.begin(); it != owned_.end();) {
    if (kept.count(it->first) == 0) {
      changes.lost.push_back(it->first);
      it = owned_.erase(it);
    } else {
      ++it;
    }
  }

  const int64_t nodes = std::max<int64_t>(1, round->live_nodes);
  const int64_t share = (slot_count_ + nodes - 1) / nodes;
  const int64_t have = static_cast<int64_t>(owned_.size());
  if (have > share) {
    // Give the surplus up from the top, skipping slots with running attempts.
    int64_t surplus = have - share;
    for (auto it = owned_.rbegin(); it != owned_.rend() && surplus > 0; ++it) {
      if (may_release(it->first)) {
        changes.released.push_back({it->first, it->second});
        --surplus;
      }
    }
    if (!changes.released.empty()) {
      absl::Status status = store.Release(node_id_, changes.released);
      if (!status.ok()) return status;
      for (const SlotEpoch& s : changes.released) owned_.erase(s.slot);
    }
  } else if (have < share) {
    absl::StatusOr<std::vector<SlotEpoch>> got =
        store.Acquire(node_id_, static_cast<int>(share - have), ttl_us_,
                      max_attempts_, horizon_us_);
    if (!got.ok()) return got.status();
    for (const SlotEpoch& s : *got) owned_[s.slot] = s.epoch;
    changes.acquired = *std::move(got);
  }
  return changes;
}

absl::Status SlotLeases::ReleaseAll(StoreApi& store) {
  if (owned_.empty()) return absl::OkStatus();
  absl::Status status = store.Release(node_id_, owned());
  if (status.ok()) owned_.clear();
  return status;
}

std::vector<int> SlotLeases::Forget() {
  std::vector<int> slots;
  for (const auto& [slot, epoch] : owned_) slots.push_back(slot);
  owned_.clear();
  return slots;
}

}  // namespace durable_internal
}  // namespace timingwheel
