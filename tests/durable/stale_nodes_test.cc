// Copyright 2026 The timingwheel Authors.
//
// Node rows (tw_node) of nodes gone for good are deleted, on both stores
// (two_store_fixture.h): `StoreApi::ForgetStaleNodes()` deletes a node whose
// heartbeat is older than asked and whose name no slot's lease carries, and
// keeps a node that still names a slot or beat recently; a scheduler's
// cleanup runs it with `max(retain_finished, kMinStaleNodeAge)`. A renewal
// says when the first other live node lapses unless it renews, or the
// first lease of an owner no longer live lapses (the renewer times a round
// to it). Nodes are aged by writing their heartbeat
// back in time, never by waiting.

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_options.h"
#include "durable/sql/store.h"
#include "durable/sql/store_api.h"
#include "durable/testing/fake_store.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_internal::StoreApi;

constexpr int kSlots = 2;
constexpr int64_t kSecondUs = int64_t{1000} * 1000;
constexpr int64_t kMinuteUs = int64_t{60} * 1000 * 1000;

class StaleNodesTest : public TwoStoreFixture {
 protected:
  std::unique_ptr<StoreApi> Open() {
    if (fake()) return std::make_unique<durable_testing::FakeStore>(fake_db_);
    auto store = durable_internal::Store::Connect(pg_->conninfo());
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The node rows' ids, in order, joined by commas.
  std::string NodeIds() {
    if (fake()) {
      std::vector<std::string> ids;
      for (const auto& [id, heartbeat_us] : fake_db_->Nodes()) {
        ids.push_back(id);
      }
      return absl::StrJoin(ids, ",");
    }
    auto text = durable_testing::QueryText(
        pg_->conninfo(),
        "SELECT coalesce(string_agg(node_id, ',' ORDER BY node_id), '') "
        "FROM tw_node");
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "?";
  }

  // Writes `node`'s last heartbeat `age_us` ago (the row is made if none).
  void Age(const std::string& node, int64_t age_us) {
    const int64_t at_us = absl::ToUnixMicros(absl::Now()) - age_us;
    if (fake()) {
      fake_db_->SetNodeHeartbeat(node, at_us);
      return;
    }
    ASSERT_TRUE(
        durable_testing::ExecSql(
            pg_->conninfo(),
            absl::StrCat("INSERT INTO tw_node VALUES ('", node, "', ", at_us,
                         ") ON CONFLICT (node_id) DO UPDATE "
                         "SET heartbeat_us = EXCLUDED.heartbeat_us"))
            .ok());
  }
};

TEST_P(StaleNodesTest, StaleNodesWhoseSlotsOthersTookAreForgotten) {
  std::unique_ptr<StoreApi> store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->EnsureSchema(kSlots).ok());
  // "holder" takes both slots, then goes silent: its name stays on them.
  ASSERT_TRUE(store->Renew("holder", {}, kMinuteUs, 0, false).ok());
  auto owned = store->Acquire("holder", kSlots, kMinuteUs, 10, 0, {});
  ASSERT_TRUE(owned.ok()) << owned.status();
  ASSERT_EQ(owned->size(), static_cast<size_t>(kSlots));
  Age("holder", 120 * kMinuteUs);
  // "gone-1" and "gone-2" hold nothing and were last seen 2 h and 3 h ago;
  // "recent" 10 minutes ago.
  Age("gone-1", 120 * kMinuteUs);
  Age("gone-2", 180 * kMinuteUs);
  Age("recent", 10 * kMinuteUs);
  ASSERT_EQ(NodeIds(), "gone-1,gone-2,holder,recent");

  // Stale for an hour, at most one: the oldest goes first.
  auto forgotten = store->ForgetStaleNodes(60 * kMinuteUs, 1);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, 1);
  EXPECT_EQ(NodeIds(), "gone-1,holder,recent");
  forgotten = store->ForgetStaleNodes(60 * kMinuteUs, 100);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, 1);
  // The holder still names both slots (its leases lapsed, nobody took
  // them: status shows that as a problem), and "recent" beat within the
  // hour.
  EXPECT_EQ(NodeIds(), "holder,recent");

  // Once another node took its slots, the holder is forgotten too; a
  // forgotten node that comes back is recorded by its next heartbeat.
  ASSERT_TRUE(store->Release("holder", *owned).ok());
  auto taken = store->Acquire("taker", kSlots, kMinuteUs, 10, 0, {});
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_EQ(taken->size(), static_cast<size_t>(kSlots));
  forgotten = store->ForgetStaleNodes(60 * kMinuteUs, 100);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, 1);
  EXPECT_EQ(NodeIds(), "recent");
  ASSERT_TRUE(store->Renew("gone-1", {}, kMinuteUs, 0, false).ok());
  EXPECT_EQ(NodeIds(), "gone-1,recent");
}

TEST_P(StaleNodesTest, ASchedulersCleanupForgetsANodeGoneForLong) {
  DurableOptions options = Options("worker", kSlots);
  options.retain_finished = absl::Milliseconds(200);  // Cleanup every 100 ms.
  std::unique_ptr<DurableScheduler> scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(WaitFor([&] { return scheduler->Metrics().slots_owned > 0; }));
  // Gone for just under kMinStaleNodeAge (far past retain_finished): kept.
  // Gone for longer: forgotten.
  const int64_t min_age_us = absl::ToInt64Microseconds(kMinStaleNodeAge);
  Age("nearly", min_age_us - 10 * kMinuteUs);
  Age("long-gone", min_age_us + kMinuteUs);
  EXPECT_TRUE(WaitFor([&] { return NodeIds() == "nearly,worker"; }))
      << NodeIds();
  scheduler->Shutdown();
}

// Renewal::next_lapse_in_us: the first other live node's heartbeat plus
// the TTL, from now; none (max) with no other live node; a lapsed node
// and the renewing node itself never count.
TEST_P(StaleNodesTest, ARenewalSaysWhenTheFirstPeerLapses) {
  std::unique_ptr<StoreApi> store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->EnsureSchema(kSlots).ok());
  auto alone = store->Renew("a", {}, kMinuteUs, 0, false);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_EQ(alone->next_lapse_in_us, std::numeric_limits<int64_t>::max());
  Age("b", 20 * kSecondUs);    // Lapses in 40 s.
  Age("c", 50 * kSecondUs);    // Lapses in 10 s: the first.
  Age("gone", 2 * kMinuteUs);  // Lapsed.
  auto renewal = store->Renew("a", {}, kMinuteUs, 0, false);
  ASSERT_TRUE(renewal.ok()) << renewal.status();
  EXPECT_EQ(renewal->live_nodes, 3);
  EXPECT_LE(renewal->next_lapse_in_us, 10 * kSecondUs);
  EXPECT_GT(renewal->next_lapse_in_us, 9 * kSecondUs);
}

// Renewal::next_lapse_in_us also covers a lease that outlives its owner's
// heartbeat (taken after it, as a scheduler's first balancing round takes
// its slots after its first heartbeat): a peer killed then lapses before
// its leases, and the survivor's round timed to its heartbeat alone found
// every lease still valid and took the slots a whole round (TTL / 3)
// later. The renewal names the lease's lapse instead, so a round comes
// then (and wakes the balancing round: LeaseRenewer::lapses()).
TEST_P(StaleNodesTest, ARenewalSaysWhenALeaseOutlivingItsOwnerLapses) {
  std::unique_ptr<StoreApi> store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->EnsureSchema(kSlots).ok());
  ASSERT_TRUE(store->Renew("victim", {}, kMinuteUs, 0, false).ok());
  // The victim's heartbeat is 30 s old when it takes both slots (a minute's
  // lease each), then it dies.
  Age("victim", 30 * kSecondUs);
  auto owned = store->Acquire("victim", kSlots, kMinuteUs, 10, 0, {});
  ASSERT_TRUE(owned.ok()) << owned.status();
  ASSERT_EQ(owned->size(), static_cast<size_t>(kSlots));
  auto live = store->Renew("survivor", {}, kMinuteUs, 0, false);
  ASSERT_TRUE(live.ok()) << live.status();
  EXPECT_EQ(live->live_nodes, 2);
  EXPECT_LE(live->next_lapse_in_us, 30 * kSecondUs);  // Its heartbeat.
  EXPECT_GT(live->next_lapse_in_us, 29 * kSecondUs);
  // Its heartbeat lapsed: no node is live but the survivor, yet the
  // leases run for about a minute more, and the renewal says so.
  Age("victim", 2 * kMinuteUs);
  auto lapsed = store->Renew("survivor", {}, kMinuteUs, 0, false);
  ASSERT_TRUE(lapsed.ok()) << lapsed.status();
  EXPECT_EQ(lapsed->live_nodes, 1);
  EXPECT_LE(lapsed->next_lapse_in_us, kMinuteUs);
  EXPECT_GT(lapsed->next_lapse_in_us, 50 * kSecondUs);
  // Nothing of the victim's is free yet; released, nothing may come free.
  auto early = store->Acquire("survivor", kSlots, kMinuteUs, 10, 0, {});
  ASSERT_TRUE(early.ok()) << early.status();
  EXPECT_TRUE(early->empty());
  ASSERT_TRUE(store->Release("victim", *owned).ok());
  auto released = store->Renew("survivor", {}, kMinuteUs, 0, false);
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(released->next_lapse_in_us, std::numeric_limits<int64_t>::max());
}

TW_TWO_STORE_SUITE(StaleNodesTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
