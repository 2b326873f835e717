// Copyright 2026 The timingwheel Authors.
//
// The node id's statements against a real PostgreSQL (store_node.cc):
// taking it again after a reconnect tells this process's own former
// session (ended, then taken) from another process's (left alone); a
// takeover ends a stale holder's sessions, all of them, and nothing of a
// live holder or of anyone else.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "durable/sql/store.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_test::WaitFor;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

constexpr int64_t kTtlUs = 1000 * 1000;

class StoreNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    std::unique_ptr<Store> setup = Connect("");
    ASSERT_NE(setup, nullptr);
    ASSERT_TRUE(setup->EnsureSchema(16).ok());
  }

  void TearDown() override {
    if (roles_.empty()) return;
    db_.reset();  // Drops the database (the roles' sessions end) first.
    auto admin = durable_testing::AdminConnInfo();
    if (!admin.ok()) return;
    for (const std::string& role : roles_) {
      (void)durable_testing::ExecSql(
          *admin, absl::StrCat("DROP ROLE IF EXISTS ", role));
    }
  }

  // Creates a login role named after `prefix` and this test's database,
  // dropped at the end, with `grants` run after it ("$R" names it).
  std::string CreateRole(const std::string& prefix,
                         const std::string& grants = "") {
    std::string role =
        absl::StrCat(prefix, db_->name().substr(db_->name().size() - 8));
    roles_.push_back(role);
    EXPECT_TRUE(durable_testing::ExecSql(
                    db_->conninfo(),
                    absl::StrCat("CREATE ROLE ", role, " LOGIN; ",
                                 absl::StrReplaceAll(grants, {{"$R", role}})))
                    .ok());
    return role;
  }

  // A connection tagged `tag` (none when empty), with a short lock timeout,
  // its search_path `schema` (the default when empty), as `user` (the
  // fixture's when empty).
  std::unique_ptr<Store> Connect(const std::string& tag,
                                 const std::string& schema = "",
                                 const std::string& user = "") {
    SessionLimits limits;
    limits.statement_timeout_ms = 2000;
    limits.lock_timeout_ms = 100;
    limits.application_name = tag;
    std::string conninfo = db_->conninfo();
    if (!schema.empty()) {
      absl::StrAppend(&conninfo, " options=-csearch_path=", schema);
    }
    if (!user.empty()) absl::StrAppend(&conninfo, " user=", user);
    auto store = Store::Connect(conninfo, limits);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Whether `store`'s session still answers.
  static bool Alive(Store& store) { return store.CheckSchema(16).ok(); }

  // The sessions tagged `tag` on this test's database (tests of other runs
  // share the server and the tags).
  int64_t Sessions(const std::string& tag) const {
    auto n = QueryInt(db_->conninfo(),
                      absl::StrCat("SELECT count(*) FROM pg_stat_activity "
                                   "WHERE datname = current_database() "
                                   "AND application_name = '",
                                   tag, "'"));
    return n.ok() ? *n : -1;
  }

  // The sessions tagged `tag` on this test's database younger than kTtlUs.
  int64_t YoungSessions(const std::string& tag) const {
    auto n =
        QueryInt(db_->conninfo(),
                 absl::StrCat("SELECT count(*) FROM pg_stat_activity "
                              "WHERE datname = current_database() "
                              "AND application_name = '",
                              tag, "' AND backend_start > clock_timestamp() - ",
                              kTtlUs, " * interval '1 microsecond'"));
    return n.ok() ? *n : -1;
  }

  std::unique_ptr<TestDatabase> db_;
  std::vector<std::string> roles_;  // Created by the test, dropped at the end.
};

TEST_F(StoreNodeTest, RelockEndsOwnFormerSessionAndLeavesAnothersAlone) {
  const std::string mine = "timingwheel scheduler 00000000000000aa";
  std::unique_ptr<Store> former = Connect(mine);
  ASSERT_TRUE(*former->LockNode("n1"));
  // This process's new session finds its former one holding the id.
  std::unique_ptr<Store> fresh = Connect(mine);
  auto relock = fresh->RelockNode("n1");
  ASSERT_TRUE(relock.ok()) << relock.status();
  EXPECT_EQ(*relock, NodeRelock::kOwnSession);
  ASSERT_TRUE(WaitFor([&] {
    auto again = fresh->RelockNode("n1");
    return again.ok() && *again == NodeRelock::kHeld;
  })) << "the former session's lock never freed";
  EXPECT_FALSE(Alive(*former));

  // Another process (another tag) finds it taken, and ends nothing.
  std::unique_ptr<Store> other =
      Connect("timingwheel scheduler 00000000000000bb");
  relock = other->RelockNode("n1");
  ASSERT_TRUE(relock.ok()) << relock.status();
  EXPECT_EQ(*relock, NodeRelock::kTakenByOther);
  EXPECT_TRUE(Alive(*fresh));
  // Taking it again while holding it is a no-op.
  relock = fresh->RelockNode("n1");
  ASSERT_TRUE(relock.ok());
  EXPECT_EQ(*relock, NodeRelock::kHeld);
}

TEST_F(StoreNodeTest, TakeOverEndsAStaleHoldersSessionsOnly) {
  const std::string stale_tag = "timingwheel scheduler 00000000000000cc";
  std::unique_ptr<Store> holder = Connect(stale_tag);
  std::unique_ptr<Store> holders_renewals = Connect(stale_tag);
  std::unique_ptr<Store> bystander =
      Connect("timingwheel scheduler 00000000000000dd");
  ASSERT_TRUE(*holder->LockNode("n2"));
  ASSERT_TRUE(*bystander->LockNode("n3"));
  // A heartbeat of n2 within the TTL: live, nothing ended.
  ASSERT_TRUE(holders_renewals->Renew("n2", {}, kTtlUs, 0, false).ok());
  std::unique_ptr<Store> replacement =
      Connect("timingwheel scheduler 00000000000000ee");
  EXPECT_FALSE(*replacement->LockNode("n2"));
  auto ended = replacement->TakeOverNode("n2", kTtlUs);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_FALSE(*ended);
  EXPECT_TRUE(Alive(*holder));
  EXPECT_TRUE(Alive(*holders_renewals));

  // Its heartbeat older than the TTL on the database's clock: stale.
  ASSERT_TRUE(durable_testing::ExecSql(
                  db_->conninfo(),
                  "UPDATE tw_node SET heartbeat_us = tw_now_us() - 2000000 "
                  "WHERE node_id = 'n2'")
                  .ok());
  // Its sessions older than the TTL too (younger, it may be starting).
  ASSERT_TRUE(WaitFor([&] { return YoungSessions(stale_tag) == 0; }));
  ended = replacement->TakeOverNode("n2", kTtlUs);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_TRUE(*ended);
  ASSERT_TRUE(WaitFor([&] { return Sessions(stale_tag) == 0; }))
      << "the stale holder's sessions were not all ended";
  EXPECT_TRUE(*replacement->LockNode("n2"));
  EXPECT_TRUE(Alive(*replacement));
  EXPECT_TRUE(Alive(*bystander));
}

// A holder that took the id and has written no heartbeat yet, its session
// younger than the TTL: a scheduler still starting, live; nothing ended.
TEST_F(StoreNodeTest, TakeOverLeavesAHolderStillStartingAlone) {
  const std::string tag = "timingwheel scheduler 00000000000000c1";
  std::unique_ptr<Store> starting = Connect(tag);
  ASSERT_TRUE(*starting->LockNode("n4"));
  std::unique_ptr<Store> second =
      Connect("timingwheel scheduler 00000000000000c2");
  EXPECT_FALSE(*second->LockNode("n4"));
  auto ended = second->TakeOverNode("n4", 60 * kTtlUs);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_FALSE(*ended);
  EXPECT_TRUE(Alive(*starting));
  EXPECT_EQ(Sessions(tag), 1);
}

// A scheduler still starting under another database user (the id held,
// no heartbeat yet), judged by a replacement allowed to end its sessions
// (pg_signal_backend) but not to read when they started (no
// pg_read_all_stats: backend_start is NULL to it): never ended, and the
// replacement is refused naming the missing grant.
TEST_F(StoreNodeTest, TakeOverNeverEndsAHolderWhoseStartItCannotRead) {
  const std::string starting_role = CreateRole(
      "tw_start_", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO $R");
  const std::string taker_role =
      CreateRole("tw_taker_",
                 "GRANT pg_signal_backend TO $R; "
                 "GRANT SELECT ON ALL TABLES IN SCHEMA public TO $R");
  const std::string tag = "timingwheel scheduler 00000000000000e1";
  std::unique_ptr<Store> starting = Connect(tag, "", starting_role);
  ASSERT_NE(starting, nullptr);
  ASSERT_TRUE(*starting->LockNode("n8"));
  std::unique_ptr<Store> taker =
      Connect("timingwheel scheduler 00000000000000e2", "", taker_role);
  ASSERT_NE(taker, nullptr);
  EXPECT_FALSE(*taker->LockNode("n8"));
  auto ended = taker->TakeOverNode("n8", 60 * kTtlUs);
  EXPECT_TRUE(absl::IsPermissionDenied(ended.status())) << ended.status();
  EXPECT_NE(ended.status().message().find("pg_read_all_stats"),
            std::string::npos)
      << ended.status();
  EXPECT_TRUE(Alive(*starting)) << "a scheduler still starting was ended";
  EXPECT_EQ(Sessions(tag), 1);
  // With a heartbeat it is a live duplicate, whoever can read what: not
  // ended, and no permission error (the caller refuses it as live).
  ASSERT_TRUE(
      durable_testing::ExecSql(db_->conninfo(),
                               "INSERT INTO tw_node VALUES ('n8', tw_now_us())")
          .ok());
  ended = taker->TakeOverNode("n8", 60 * kTtlUs);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_FALSE(*ended);
  EXPECT_TRUE(Alive(*starting));
}

// An ordinary role that can connect holds a node id's locks under the tag
// of a live scheduler of another id (pg_stat_activity shows every tag).
// When the id's replacement ends that stale holder, it ends the holder's
// sessions and the holder's own tagged sessions, never the live
// scheduler's sessions of another role that the copied tag names.
TEST_F(StoreNodeTest, TakeOverEndsNoOtherRolesSessionsByACopiedTag) {
  const std::string role = CreateRole("tw_spoof_");
  const std::string live_tag = "timingwheel scheduler 00000000000000d1";
  std::unique_ptr<Store> live = Connect(live_tag);
  ASSERT_NE(live, nullptr);
  ASSERT_TRUE(*live->LockNode("n6"));
  std::unique_ptr<Store> spoof = Connect(live_tag, "", role);
  ASSERT_NE(spoof, nullptr);
  ASSERT_TRUE(*spoof->LockNode("n5"));
  ASSERT_TRUE(WaitFor([&] { return YoungSessions(live_tag) == 0; }));
  std::unique_ptr<Store> replacement =
      Connect("timingwheel scheduler 00000000000000d2");
  EXPECT_FALSE(*replacement->LockNode("n5"));
  auto ended = replacement->TakeOverNode("n5", kTtlUs);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_TRUE(*ended);
  ASSERT_TRUE(WaitFor([&] { return *replacement->LockNode("n5"); }))
      << "the spoofing holder was not ended";
  EXPECT_TRUE(Alive(*live)) << "a live scheduler of another role was ended "
                               "by a tag copied from it";
  EXPECT_EQ(Sessions(live_tag), 1);
}

// Two deployments in two schemas of one database, each with a scheduler
// named "w1": the one starting second must not end the first (it is live
// in its own schema, whatever this schema's tw_node says), only be refused.
TEST_F(StoreNodeTest, TakeOverLeavesTheSameIdInAnotherSchemaAlone) {
  ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(),
                                       "CREATE SCHEMA tw_a; CREATE SCHEMA tw_b")
                  .ok());
  const std::string a_tag = "timingwheel scheduler 00000000000000a1";
  std::unique_ptr<Store> a = Connect(a_tag, "tw_a");
  std::unique_ptr<Store> a_renewals = Connect(a_tag, "tw_a");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->EnsureSchema(16).ok());
  ASSERT_TRUE(*a->LockNode("w1"));
  ASSERT_TRUE(a_renewals->Renew("w1", {}, kTtlUs, 0, false).ok());

  std::unique_ptr<Store> b =
      Connect("timingwheel scheduler 00000000000000b1", "tw_b");
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->EnsureSchema(16).ok());
  EXPECT_FALSE(*b->LockNode("w1"));
  // tw_b has no heartbeat of w1: stale in tw_b's eyes, but not tw_b's.
  auto ended = b->TakeOverNode("w1", kTtlUs);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(Sessions(a_tag), 2) << "a live scheduler of another schema "
                                   "was ended";
  EXPECT_TRUE(Alive(*a));
  EXPECT_TRUE(Alive(*a_renewals));
  EXPECT_FALSE(*b->LockNode("w1"));
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
