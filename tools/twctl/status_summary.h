// Copyright 2026 The timingwheel Authors.
//
// status_summary.h
// -----------------------------------------------------------------------------
//
// What is wrong with a store, and its slots per owner, computed once from
// one `StoreStatus` snapshot. `twctl status` and the dashboard's overview
// (`twctl serve`) both print this, so that they always agree: a node's
// slots held under a valid lease are the same number in every table of
// both (the owner summary counts valid and lapsed leases apart).
//
// This file defines:
//
//   * `kDefaultStaleAfter`: when a node's heartbeat is stale, unless told.
//   * `OwnerSlots`, `StaleNode`, `StatusSummary`, `Summarize()`.
//
// Pure functions of their arguments; thread-safe.
// Tests: tests/tools/twctl/status_summary_test.cc (StatusSummaryTest.*).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_STATUS_SUMMARY_H_
#define TIMINGWHEEL_TOOLS_TWCTL_STATUS_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "durable/admin_store.h"

namespace timingwheel {
namespace twctl {

// The default lease TTL (DurableOptions::lease_ttl): a node whose last
// heartbeat is older than this has stopped renewing (stopped, hung or cut
// off). The store does not record the schedulers' TTL: an operator whose
// schedulers use another passes it (`--lease-ttl`).
inline constexpr absl::Duration kDefaultStaleAfter = absl::Seconds(10);

// OwnerSlots: the slots whose lease row names one owner (the last holder,
// when the lease has lapsed); `owner` empty for slots never taken or
// released.
struct OwnerSlots {
  std::string owner;
  int64_t valid = 0;   // Held under a valid lease (AdminNode::slots_held).
  int64_t lapsed = 0;  // Lease expired: nobody holds them now.
  int64_t min_epoch = 0;
  int64_t max_epoch = 0;
  std::optional<absl::Duration> min_lease_left;  // Over valid leases.
  // The owner's node row: absent (no heartbeat row), live or stale.
  bool has_node = false;
  bool stale = false;
  absl::Duration since_heartbeat;  // When `has_node`.
  int64_t slots() const { return valid + lapsed; }
};

// StaleNode: a node whose heartbeat is older than the threshold and that a
// slot row still names (a valid lease, or a lapsed one not taken over yet).
// A node killed after every slot it held was taken over is no trouble: the
// nodes table still shows its row as STALE (only a graceful shutdown
// deletes a node row).
struct StaleNode {
  std::string node_id;
  absl::Duration since_heartbeat;
  int64_t slots_held = 0;  // Still under a valid lease.
};

// StatusSummary: trouble first, then the per-owner and per-kind views.
struct StatusSummary {
  absl::Duration stale_after;
  // Nodes whose heartbeat is older than `stale_after` and that a slot row
  // still names, by node id.
  std::vector<StaleNode> stale_nodes;
  // Owners with slots whose lease has lapsed (`lapsed` > 0), the empty
  // owner (never held, or released) included; by owner.
  std::vector<OwnerSlots> lapsed_owners;
  int64_t slots_without_lease = 0;  // == StoreStatus::slots_unowned.
  // Kinds with overdue tasks (`AdminKind::overdue` > 0), most overdue
  // first, when the oldest overdue task (`StoreStatus::oldest_overdue_due`)
  // has waited longer than `stale_after` (none otherwise).
  std::vector<AdminKind> overdue_kinds;
  // Kinds with FAILED tasks, most failed first.
  std::vector<AdminKind> failing_kinds;
  // Kinds with unfinished tasks and no handler registered (the default
  // kind too: a scheduler with DurableOptions::handler registers it), and
  // kinds with tasks put off because the scheduler that took them had no
  // handler for them (`AdminKind::put_off_no_handler`: a registration
  // stays after its scheduler left).
  std::vector<AdminKind> unhandled_kinds;
  // Every owner named by a lease row (the empty owner last), by owner.
  std::vector<OwnerSlots> owners;
  // True when nothing above is wrong.
  bool healthy() const {
    return stale_nodes.empty() && slots_without_lease == 0 &&
           overdue_kinds.empty() && failing_kinds.empty() &&
           unhandled_kinds.empty();
  }
};

// Summarize()
//
// The summary of `status`, judging heartbeats older than `stale_after`
// stale (`since_heartbeat > stale_after`).
StatusSummary Summarize(const StoreStatus& status,
                        absl::Duration stale_after = kDefaultStaleAfter);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_STATUS_SUMMARY_H_
