// Copyright 2026 The timingwheel Authors.
//
// The registry of task kinds against a real PostgreSQL (store_kinds.cc):
// registering confirms a scheduler's kinds and forgets the ones nobody
// confirmed within the retention (never with a negative one), and an
// insert trusts a kind it found registered only for its connection's
// trust window.

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/sql/store.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

constexpr int kSlots = 16;
constexpr int64_t kHourUs = int64_t{3600} * 1000 * 1000;

class StoreKindsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    store_ = Connect(SessionLimits());
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->EnsureSchema(kSlots).ok());
  }

  std::unique_ptr<Store> Connect(const SessionLimits& limits) {
    auto store = Store::Connect(db_->conninfo(), limits);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  absl::Status InsertOfKind(Store& store, const std::string& id,
                            const std::string& kind) {
    ScheduleRequest request;
    request.id = id;
    request.payload = "p";
    request.kind = kind;
    request.delay = absl::Hours(1);
    auto row = ToInsertRow(request, kSlots, RequestLimits());
    if (!row.ok()) return row.status();
    Inserter inserter;
    inserter.slot_count = kSlots;
    return store.Insert(inserter, {&*row, 1}).status();
  }

  // Moves every registration `hours` back on the database's clock.
  void AgeRegistrations(int hours) {
    ASSERT_TRUE(ExecSql(db_->conninfo(),
                        absl::StrCat("UPDATE tw_kind SET registered_us = "
                                     "tw_now_us() - ",
                                     hours * kHourUs))
                    .ok());
  }

  int64_t Registered(const std::string& kind) {
    auto n = QueryInt(
        db_->conninfo(),
        absl::StrCat("SELECT count(*) FROM tw_kind WHERE kind = '", kind, "'"));
    return n.ok() ? *n : -1;
  }

  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreKindsTest, RegisteringForgetsOnlyKindsNobodyConfirmedInTime) {
  const std::vector<std::string> old_kinds = {"email", "sms", "fax"};
  auto forgotten = store_->RegisterKinds("a", old_kinds, kHourUs);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, 0);
  ASSERT_TRUE(InsertOfKind(*store_, "waiting-fax", "fax").ok());
  AgeRegistrations(2);
  // Never, with a negative retention: nothing forgotten.
  forgotten = store_->RegisterKinds("b", {"email"}, -1);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, 0);
  EXPECT_EQ(Registered("sms"), 1);
  // Within the retention of three hours: nothing forgotten either.
  forgotten = store_->RegisterKinds("b", {"email"}, 3 * kHourUs);
  ASSERT_TRUE(forgotten.ok());
  EXPECT_EQ(*forgotten, 0);
  // Past one hour: the kinds not confirmed now go, the confirmed stays.
  AgeRegistrations(2);
  forgotten = store_->RegisterKinds("b", {"email"}, kHourUs);
  ASSERT_TRUE(forgotten.ok());
  EXPECT_EQ(*forgotten, 2);
  EXPECT_EQ(Registered("email"), 1);
  EXPECT_EQ(Registered("sms"), 0);
  EXPECT_EQ(Registered("fax"), 0);
  // Scheduling a forgotten kind is refused, naming the option; its task
  // stored before stays.
  std::unique_ptr<Store> fresh = Connect(SessionLimits());
  absl::Status status = InsertOfKind(*fresh, "new-fax", "fax");
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_NE(status.message().find("forget_kinds_after"), std::string::npos)
      << status;
  EXPECT_EQ(*QueryInt(db_->conninfo(),
                      "SELECT count(*) FROM tw_timer WHERE kind = 'fax'"),
            1);
  // Registered again, it is accepted again.
  ASSERT_TRUE(store_->RegisterKinds("c", {"fax"}, kHourUs).ok());
  EXPECT_TRUE(InsertOfKind(*fresh, "new-fax", "fax").ok());
}

TEST_F(StoreKindsTest, AKindFoundRegisteredIsTrustedForTheWindowOnly) {
  ASSERT_TRUE(store_->RegisterKinds("a", {"email"}, kHourUs).ok());
  SessionLimits trusting;  // The default window: a minute.
  SessionLimits asking;
  asking.known_kinds_for_ms = 0;
  std::unique_ptr<Store> cached = Connect(trusting);
  std::unique_ptr<Store> checked = Connect(asking);
  ASSERT_TRUE(InsertOfKind(*cached, "c1", "email").ok());
  ASSERT_TRUE(InsertOfKind(*checked, "k1", "email").ok());
  AgeRegistrations(2);
  ASSERT_TRUE(store_->RegisterKinds("b", {}, kHourUs).ok());
  ASSERT_EQ(Registered("email"), 0);
  // Within its window the first still trusts what it found; the second
  // asks every time.
  EXPECT_TRUE(InsertOfKind(*cached, "c2", "email").ok());
  EXPECT_TRUE(absl::IsNotFound(InsertOfKind(*checked, "k2", "email")));
}

// A recurring schedule's occurrences are written under its kind: a kind
// that a schedule names is never forgotten, however stale.
TEST_F(StoreKindsTest, AKindAScheduleNamesIsNeverForgotten) {
  ASSERT_TRUE(store_->RegisterKinds("a", {"report", "sms"}, kHourUs).ok());
  ASSERT_TRUE(ExecSql(db_->conninfo(), R"sql(
INSERT INTO tw_schedule (name, slot, every_us, anchor_us, cron, zone, payload,
  overlap, catch_up, grace_us, max_runs, paused, last_us, plan_us, next_us,
  created_us, updated_us, kind)
VALUES ('nightly', 0, 86400000000, 0, '', '', 'p', 0, 0, 0, 1, false, 0,
        tw_now_us(), tw_now_us(), 0, 0, 'report'))sql")
                  .ok());
  AgeRegistrations(2);
  auto forgotten = store_->RegisterKinds("b", {}, kHourUs);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, 1);
  EXPECT_EQ(Registered("report"), 1);
  EXPECT_EQ(Registered("sms"), 0);
}

// Two schedulers registering at once, each with a kind the other finds
// stale, while a third session holds a stale row (a gate): neither waits
// for the other nor for the gate (they deadlocked, and the loser's kind was
// deleted), and both kinds stay registered.
TEST_F(StoreKindsTest, TwoRegistrationsAtOnceNeverWaitForEachOther) {
  ASSERT_TRUE(store_->RegisterKinds("old", {"w", "x", "z"}, -1).ok());
  AgeRegistrations(2);
  PGconn* gate = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(gate), CONNECTION_OK);
  PGresult* held = PQexec(
      gate, "BEGIN; SELECT kind FROM tw_kind WHERE kind = 'w' FOR UPDATE");
  ASSERT_EQ(PQresultStatus(held), PGRES_TUPLES_OK);
  PQclear(held);
  SessionLimits limits;
  limits.statement_timeout_ms = 5000;
  std::unique_ptr<Store> a = Connect(limits);
  std::unique_ptr<Store> b = Connect(limits);
  auto from_a = std::async(std::launch::async, [&] {
    return a->RegisterKinds("a", {"x"}, kHourUs);
  });
  auto from_b = std::async(std::launch::async, [&] {
    return b->RegisterKinds("b", {"z"}, kHourUs);
  });
  // Bounded: the gate is still held; a registration that waited for it
  // would end only at its statement timeout, with an error.
  ASSERT_EQ(from_a.wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  ASSERT_EQ(from_b.wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  absl::StatusOr<int64_t> ra = from_a.get(), rb = from_b.get();
  PQclear(PQexec(gate, "COMMIT"));
  PQfinish(gate);
  EXPECT_TRUE(ra.ok()) << ra.status();
  EXPECT_TRUE(rb.ok()) << rb.status();
  EXPECT_EQ(Registered("x"), 1);
  EXPECT_EQ(Registered("z"), 1);
  EXPECT_EQ(Registered("w"), 1);  // Held by the gate: passed over.
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
