// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/status_summary.h"

#include <algorithm>
#include <map>
#include <utility>

namespace timingwheel {
namespace twctl {

StatusSummary Summarize(const StoreStatus& s, absl::Duration stale_after) {
  StatusSummary out;
  out.stale_after = stale_after;
  out.slots_without_lease = s.slots_unowned;
  std::map<std::string, const AdminNode*> nodes;
  for (const AdminNode& n : s.nodes) nodes[n.node_id] = &n;
  std::map<std::string, OwnerSlots> owners;
  for (const AdminSlot& slot : s.slots) {
    OwnerSlots& o = owners[slot.owner];
    if (o.slots() == 0) o.min_epoch = o.max_epoch = slot.epoch;
    o.min_epoch = std::min(o.min_epoch, slot.epoch);
    o.max_epoch = std::max(o.max_epoch, slot.epoch);
    if (slot.lease_valid) {
      ++o.valid;
      const absl::Duration left = slot.lease_until - s.db_now;
      o.min_lease_left =
          o.min_lease_left ? std::min(*o.min_lease_left, left) : left;
    } else {
      ++o.lapsed;
    }
  }
  for (auto& [owner, o] : owners) {
    o.owner = owner;
    auto node = nodes.find(owner);
    if (!owner.empty() && node != nodes.end()) {
      o.has_node = true;
      o.since_heartbeat = node->second->since_heartbeat;
      o.stale = o.since_heartbeat > stale_after;
    }
    if (o.lapsed > 0) out.lapsed_owners.push_back(o);
    if (!owner.empty()) out.owners.push_back(o);
  }
  // A stale node is trouble while a slot row still names it (its valid
  // leases block the slots; its lapsed ones wait for a takeover); once
  // every slot it held was taken over, it is only a STALE row of the nodes.
  for (const AdminNode& n : s.nodes) {
    if (n.since_heartbeat <= stale_after) continue;
    auto owned = owners.find(n.node_id);
    if (n.slots_held > 0 ||
        (owned != owners.end() && owned->second.slots() > 0)) {
      out.stale_nodes.push_back({n.node_id, n.since_heartbeat, n.slots_held});
    }
  }
  auto none = owners.find("");
  if (none != owners.end()) out.owners.push_back(none->second);
  if (none != owners.end() && none->second.lapsed > 0) {
    // The empty owner sorts first in the map; list it last, as in `owners`.
    out.lapsed_owners.erase(out.lapsed_owners.begin());
    out.lapsed_owners.push_back(none->second);
  }
  // Overdue is trouble once a task has waited past its due time for longer
  // than the lease TTL (an owner, or a takeover, should have started it);
  // a busy store's tasks a few milliseconds late are not.
  const bool late = !s.oldest_overdue_due.has_value() ||
                    s.db_now - *s.oldest_overdue_due > stale_after;
  for (const AdminKind& k : s.kinds) {
    if (k.overdue > 0 && late) out.overdue_kinds.push_back(k);
    if (k.counts[static_cast<int>(TaskState::kFailed)] > 0) {
      out.failing_kinds.push_back(k);
    }
    if ((!k.registered && k.unfinished() > 0) || k.put_off_no_handler > 0) {
      out.unhandled_kinds.push_back(k);
    }
  }
  std::stable_sort(out.overdue_kinds.begin(), out.overdue_kinds.end(),
                   [](const AdminKind& a, const AdminKind& b) {
                     return a.overdue > b.overdue;
                   });
  constexpr int kFailed = static_cast<int>(TaskState::kFailed);
  std::stable_sort(out.failing_kinds.begin(), out.failing_kinds.end(),
                   [](const AdminKind& a, const AdminKind& b) {
                     return a.counts[kFailed] > b.counts[kFailed];
                   });
  return out;
}

}  // namespace twctl
}  // namespace timingwheel
