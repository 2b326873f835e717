// Copyright 2026 The timingwheel Authors.
//
// What `twctl status` and the dashboard's overview both show
// (tools/twctl/status_summary.h): stale nodes, slots without a valid lease
// by last holder, overdue and failing kinds, slots per owner whose valid
// count is the node's `slots_held`. No database.

#include "tools/twctl/status_summary.h"

#include <string>

#include "gtest/gtest.h"

namespace timingwheel {
namespace twctl {
namespace {

AdminSlot Slot(int n, const std::string& owner, bool valid, int64_t epoch) {
  AdminSlot s;
  s.slot = n;
  s.owner = owner;
  s.lease_valid = valid;
  s.epoch = epoch;
  s.lease_until = absl::FromUnixSeconds(1000) + absl::Seconds(valid ? 5 : -5);
  return s;
}

AdminNode Node(const std::string& id, absl::Duration ago, int64_t held) {
  AdminNode n;
  n.node_id = id;
  n.since_heartbeat = ago;
  n.heartbeat = absl::FromUnixSeconds(1000) - ago;
  n.slots_held = held;
  return n;
}

// A node stopped (SIGSTOP) past the TTL: its leases lapsed, two of its
// slots taken over by another node. Every figure is from the snapshot.
StoreStatus StoppedNode() {
  StoreStatus s;
  s.db_now = absl::FromUnixSeconds(1000);
  s.slot_count = 6;
  s.slots = {Slot(0, "a", true, 3),  Slot(1, "a", true, 4),
             Slot(2, "b", false, 1), Slot(3, "b", false, 2),
             Slot(4, "", false, 0),  Slot(5, "a", true, 5)};
  s.slots_unowned = 3;
  s.nodes = {Node("a", absl::Seconds(1), 3), Node("b", absl::Seconds(42), 0)};
  AdminKind mail;
  mail.kind = "mail";
  mail.overdue = 2;
  mail.counts = {2, 0, 0, 0, 1};
  AdminKind bill;
  bill.kind = "bill";
  bill.registered = true;
  bill.overdue = 5;
  bill.counts = {5, 0, 0, 0, 3};
  AdminKind quiet;
  quiet.kind = "";
  quiet.registered = true;  // A scheduler with a default handler.
  quiet.counts = {0, 1, 0, 7, 0};
  s.kinds = {quiet, bill, mail};
  s.overdue = 7;
  s.oldest_overdue_due = s.db_now - absl::Seconds(30);
  return s;
}

TEST(StatusSummaryTest, StaleNodesLapsedSlotsAndKinds) {
  const StatusSummary sum = Summarize(StoppedNode(), absl::Seconds(10));
  EXPECT_FALSE(sum.healthy());
  ASSERT_EQ(sum.stale_nodes.size(), 1u);
  EXPECT_EQ(sum.stale_nodes[0].node_id, "b");
  EXPECT_EQ(sum.stale_nodes[0].since_heartbeat, absl::Seconds(42));
  EXPECT_EQ(sum.slots_without_lease, 3);
  ASSERT_EQ(sum.lapsed_owners.size(), 2u);
  EXPECT_EQ(sum.lapsed_owners[0].owner, "b");  // Last held by b.
  EXPECT_EQ(sum.lapsed_owners[0].lapsed, 2);
  EXPECT_EQ(sum.lapsed_owners[1].owner, "");  // Never held, listed last.
  EXPECT_EQ(sum.lapsed_owners[1].lapsed, 1);
  ASSERT_EQ(sum.overdue_kinds.size(), 2u);  // Most overdue first.
  EXPECT_EQ(sum.overdue_kinds[0].kind, "bill");
  EXPECT_EQ(sum.overdue_kinds[1].kind, "mail");
  ASSERT_EQ(sum.failing_kinds.size(), 2u);
  EXPECT_EQ(sum.failing_kinds[0].kind, "bill");
  ASSERT_EQ(sum.unhandled_kinds.size(), 1u);
  EXPECT_EQ(sum.unhandled_kinds[0].kind, "mail");
}

// Tasks a few milliseconds late in a busy store are no trouble; the
// oldest waiting past the lease TTL is.
TEST(StatusSummaryTest, OverdueIsTroubleOncePastTheLeaseTtl) {
  StoreStatus s = StoppedNode();
  s.oldest_overdue_due = s.db_now - absl::Milliseconds(2);
  EXPECT_TRUE(Summarize(s, absl::Seconds(10)).overdue_kinds.empty());
  s.oldest_overdue_due = s.db_now - absl::Seconds(10);
  EXPECT_TRUE(Summarize(s, absl::Seconds(10)).overdue_kinds.empty());
  s.oldest_overdue_due = s.db_now - absl::Seconds(11);
  EXPECT_EQ(Summarize(s, absl::Seconds(10)).overdue_kinds.size(), 2u);
}

// Default-kind tasks with no scheduler started with a default handler
// would be snoozed for ever: flagged like any kind without a handler.
TEST(StatusSummaryTest, TheDefaultKindWithoutAHandlerIsFlagged) {
  StoreStatus s = StoppedNode();
  s.kinds[0].registered = false;
  StatusSummary sum = Summarize(s, absl::Seconds(10));
  ASSERT_EQ(sum.unhandled_kinds.size(), 2u);
  EXPECT_EQ(sum.unhandled_kinds[0].kind, "");
  // Finished tasks alone are no trouble.
  s.kinds[0].counts = {0, 0, 0, 7, 0};
  sum = Summarize(s, absl::Seconds(10));
  ASSERT_EQ(sum.unhandled_kinds.size(), 1u);
  EXPECT_EQ(sum.unhandled_kinds[0].kind, "mail");
}

// A rolling deploy dropped a handler: the kind stays registered (by a
// scheduler gone now), and its tasks are put off by the schedulers that
// fire them. That is flagged; a registered kind whose tasks run is not.
TEST(StatusSummaryTest, AKindPutOffForWantOfAHandlerIsFlagged) {
  StoreStatus s = StoppedNode();
  s.kinds[0].put_off_no_handler = 1;  // Registered, with a default handler.
  StatusSummary sum = Summarize(s, absl::Seconds(10));
  ASSERT_EQ(sum.unhandled_kinds.size(), 2u);
  EXPECT_EQ(sum.unhandled_kinds[0].kind, "");
  EXPECT_EQ(sum.unhandled_kinds[1].kind, "mail");
  s.kinds[0].put_off_no_handler = 0;
  sum = Summarize(s, absl::Seconds(10));
  ASSERT_EQ(sum.unhandled_kinds.size(), 1u);
  EXPECT_EQ(sum.unhandled_kinds[0].kind, "mail");
}

// A node killed after others took over every slot it held is no trouble
// (its row stays, STALE, until a scheduler of that id shuts down); while
// a slot row names it, valid or lapsed, it is.
TEST(StatusSummaryTest, AStaleNodeIsTroubleOnlyWhileASlotNamesIt) {
  StoreStatus s = StoppedNode();
  s.nodes.push_back(Node("killed", absl::Minutes(6), 0));
  StatusSummary sum = Summarize(s, absl::Seconds(10));
  ASSERT_EQ(sum.stale_nodes.size(), 1u);
  EXPECT_EQ(sum.stale_nodes[0].node_id, "b");  // Two lapsed slots name b.
  s.slots[2].owner = s.slots[3].owner = "a";   // Taken over.
  s.slots[2].lease_valid = s.slots[3].lease_valid = true;
  s.slots_unowned = 1;
  sum = Summarize(s, absl::Seconds(10));
  EXPECT_TRUE(sum.stale_nodes.empty());
}

// The owner summary never contradicts the nodes table: a node's valid
// leases are its `slots_held`; lapsed ones are counted apart (the issue:
// 0 slots in one table, 342 in the other).
TEST(StatusSummaryTest, OwnersAgreeWithTheNodes) {
  const StoreStatus s = StoppedNode();
  const StatusSummary sum = Summarize(s, absl::Seconds(10));
  ASSERT_EQ(sum.owners.size(), 3u);
  EXPECT_EQ(sum.owners[0].owner, "a");
  EXPECT_EQ(sum.owners[0].valid, s.nodes[0].slots_held);
  EXPECT_EQ(sum.owners[0].lapsed, 0);
  EXPECT_EQ(sum.owners[0].min_epoch, 3);
  EXPECT_EQ(sum.owners[0].max_epoch, 5);
  EXPECT_EQ(sum.owners[0].min_lease_left, absl::Seconds(5));
  EXPECT_FALSE(sum.owners[0].stale);
  EXPECT_EQ(sum.owners[1].owner, "b");
  EXPECT_EQ(sum.owners[1].valid, s.nodes[1].slots_held);
  EXPECT_EQ(sum.owners[1].lapsed, 2);
  EXPECT_TRUE(sum.owners[1].stale);
  EXPECT_TRUE(sum.owners[1].has_node);
  EXPECT_EQ(sum.owners[2].owner, "");  // Nobody's, last.
  EXPECT_EQ(sum.owners[2].lapsed, 1);
  int64_t slots = 0;
  for (const OwnerSlots& o : sum.owners) slots += o.slots();
  EXPECT_EQ(slots, s.slot_count);
}

TEST(StatusSummaryTest, TheThresholdDecidesStaleness) {
  EXPECT_TRUE(Summarize(StoppedNode(), absl::Minutes(1)).stale_nodes.empty());
  EXPECT_EQ(
      Summarize(StoppedNode(), absl::Milliseconds(500)).stale_nodes.size(), 2u);
  StoreStatus fine;
  fine.slots = {Slot(0, "a", true, 1)};
  fine.nodes = {Node("a", absl::Seconds(1), 1)};
  EXPECT_TRUE(Summarize(fine).healthy());
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
