// Copyright 2026 The timingwheel Authors.
//
// The store against a real PostgreSQL: schema creation and version checks,
// byte-exact ids and payloads (hostile ones too), fencing by epoch, and
// errors that never show the password.

#include "durable/sql/store.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/client/request.h"
#include "durable/sql/redact.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::StoreInspector;
using durable_testing::TestDatabase;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    auto store = Store::Connect(db_->conninfo());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    absl::Status schema = store_->EnsureSchema(kSlots);
    ASSERT_TRUE(schema.ok()) << schema;
  }

  InsertRow Row(const std::string& id, const std::string& payload,
                int64_t delay_us = 0) {
    ScheduleRequest request;
    request.id = id;
    request.payload = payload;
    request.delay = absl::Microseconds(delay_us);
    auto row = ToInsertRow(request, kSlots, RequestLimits());
    EXPECT_TRUE(row.ok()) << row.status();
    return *row;
  }

  StoreInspector Inspect() const { return StoreInspector(db_->conninfo()); }

  Inserter Client() {
    Inserter inserter;
    inserter.slot_count = kSlots;
    return inserter;
  }

  static constexpr int kSlots = 16;
  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreTest, SchemaIsCreatedOnceAndChecked) {
  EXPECT_EQ(*Inspect().CountSlots(), kSlots);
  // A second creator finds it and agrees.
  EXPECT_TRUE(store_->EnsureSchema(kSlots).ok());
  // Another slot count is refused.
  absl::Status other = store_->EnsureSchema(kSlots * 2);
  EXPECT_TRUE(absl::IsFailedPrecondition(other)) << other;
  EXPECT_NE(other.message().find("slot"), absl::string_view::npos);
}

TEST_F(StoreTest, NewerSchemaIsRefused) {
  ASSERT_TRUE(Inspect().ForceSchemaVersion(kSchemaVersion + 1).ok());
  absl::Status status = store_->EnsureSchema(kSlots);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_NE(status.message().find("newer"), absl::string_view::npos) << status;
}

// A store made by the version-1 schema, holding live tasks, is upgraded in
// place: nothing lost, and new versions never repeat an old (id, version).
TEST(StoreMigrationTest, VersionOneStoreIsUpgradedWithNothingLost) {
  auto db = TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  const std::string& conninfo = (*db)->conninfo();
  ASSERT_TRUE(ExecSql(conninfo, R"sql(
CREATE TABLE tw_meta (key text PRIMARY KEY, value bigint NOT NULL);
CREATE FUNCTION tw_now_us() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$;
CREATE TABLE tw_timer (
  task_id bytea PRIMARY KEY, slot integer NOT NULL, due_us bigint NOT NULL,
  state smallint NOT NULL, version bigint NOT NULL DEFAULT 0,
  epoch bigint NOT NULL DEFAULT 0, attempt integer NOT NULL DEFAULT 0,
  payload bytea NOT NULL, last_error bytea, finished_us bigint);
CREATE INDEX tw_timer_live ON tw_timer (slot, due_us) WHERE state < 3;
CREATE INDEX tw_timer_finished ON tw_timer (slot, finished_us)
  WHERE state >= 3;
CREATE TABLE tw_slot_lease (slot integer PRIMARY KEY, owner text,
  epoch bigint NOT NULL DEFAULT 0, lease_until_us bigint NOT NULL DEFAULT 0);
CREATE TABLE tw_node (node_id text PRIMARY KEY, heartbeat_us bigint NOT NULL);
INSERT INTO tw_meta VALUES ('schema_version', 1), ('slot_count', 8);
INSERT INTO tw_slot_lease (slot) SELECT generate_series(0, 7);
INSERT INTO tw_timer (task_id, slot, due_us, state, version, payload)
  SELECT ('old-' || i)::bytea, i % 8, tw_now_us() + 3600000000, 0, 40,
         'p'::bytea FROM generate_series(1, 100) i;
)sql")
                  .ok());
  auto store = Store::Connect(conninfo);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->EnsureSchema(8).ok());
  StoreInspector inspector(conninfo);
  EXPECT_EQ(*inspector.SchemaVersion(), kSchemaVersion);
  EXPECT_EQ(*inspector.CountTasks(), 100);
  // The sequence the migration creates (the schema itself, as
  // migrations_test reads it).
  EXPECT_GT(*QueryInt(conninfo, "SELECT nextval('tw_version_seq')"), 40);
  // A second process starting at once finds it upgraded.
  ASSERT_TRUE((*store)->EnsureSchema(8).ok());
}

TEST_F(StoreTest, HostileIdsAndPayloadsRoundTripByteExact) {
  const std::string nul_id("a\0b'; DROP TABLE tw_timer; --", 30);
  const std::string hostile[] = {
      "it's",           "back\\slash\\\\",    "\"quoted\"",
      nul_id,           std::string("\0", 1), "$1",
      "'\\x00'::bytea", "\xff\xfe not utf-8"};
  const std::string big_payload(1 << 20, '\0');
  std::string payload_with_everything = "'\\\"" + std::string("\0\0", 2);
  for (const std::string& id : hostile) {
    InsertRow row =
        Row(id, id == nul_id ? big_payload : payload_with_everything + id);
    ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok()) << id;
  }
  EXPECT_EQ(*Inspect().CountTasks(), 8);
  for (const std::string& id : hostile) {
    auto info = store_->Get(id);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->state, TaskState::kPending);
    EXPECT_EQ(info->slot, SlotFor(id, kSlots));
  }
  // Claim them all and check the payloads come back byte-exact.
  auto got = store_->Acquire("node-a", kSlots, 10'000'000, 3, 3'600'000'000);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), static_cast<size_t>(kSlots));
  auto claimed = store_->ClaimDue("node-a", *got, 1'000'000, 100);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->tasks.size(), 8u);
  auto fired = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(fired.ok()) << fired.status();
  ASSERT_EQ(fired->started.size(), 8u);
  for (const Started& s : fired->started) {
    EXPECT_EQ(s.task.payload, s.task.id == nul_id
                                  ? big_payload
                                  : payload_with_everything + s.task.id);
    EXPECT_EQ(s.task.attempt, 1);
  }
  // The table survived the "DROP TABLE" id.
  EXPECT_EQ(*Inspect().CountTasks(), 8);
}

TEST_F(StoreTest, DuplicateIdIsAlreadyExistsUnlessIdenticalRetry) {
  InsertRow row = Row("dup", "payload", 5'000'000);
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  // Identical retry (same payload; delays are relative): OK, no new row.
  EXPECT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  InsertRow other = Row("dup", "another payload", 5'000'000);
  absl::Status status = store_->Insert(Client(), {&other, 1}).status();
  EXPECT_TRUE(absl::IsAlreadyExists(status)) << status;
  // A batch with a conflict stores nothing.
  InsertRow fresh = Row("fresh", "x");
  InsertRow batch[] = {fresh, other};
  EXPECT_TRUE(absl::IsAlreadyExists(store_->Insert(Client(), batch).status()));
  EXPECT_TRUE(absl::IsNotFound(store_->Get("fresh").status()));
  EXPECT_EQ(*Inspect().CountTasks(), 1);
  // A batch of new ids and an identical retry (the first form fails on the
  // existing id, the second skips it): OK, the new ones stored once.
  InsertRow again[] = {Row("new-1", "x"), row, Row("new-2", "y")};
  EXPECT_TRUE(store_->Insert(Client(), again).ok());
  EXPECT_TRUE(store_->Get("new-1").ok());
  EXPECT_TRUE(store_->Get("new-2").ok());
  EXPECT_EQ(*Inspect().CountTasks(), 3);
}

TEST_F(StoreTest, OldEpochWritesChangeNothing) {
  InsertRow row = Row("fenced", "p");
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  auto a_slots =
      store_->Acquire("node-a", kSlots, 10'000'000, 3, 3'600'000'000);
  ASSERT_TRUE(a_slots.ok());
  auto claimed = store_->ClaimDue("node-a", *a_slots, 1'000'000, 100);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->tasks.size(), 1u);
  auto started = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(started.ok());
  ASSERT_EQ(started->started.size(), 1u);

  // node-a stalls past its lease (made to expire now); node-b takes over.
  ASSERT_TRUE(Inspect().ExpireLeases().ok());
  auto b_slots =
      store_->Acquire("node-b", kSlots, 10'000'000, 3, 3'600'000'000);
  ASSERT_TRUE(b_slots.ok());
  ASSERT_EQ(b_slots->size(), static_cast<size_t>(kSlots));
  for (const SlotEpoch& s : *b_slots) {
    EXPECT_EQ(s.epoch, 2);  // Each takeover increments the epoch.
  }
  // The RUNNING row was re-stamped PENDING under node-b's epoch.
  auto info = store_->Get("fenced");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, TaskState::kPending);

  // node-a wakes up: its completion, renewal, claims and fires change
  // nothing.
  Completion done;
  done.id = "fenced";
  done.version = started->started[0].version;
  done.outcome = Outcome::kSuccess;
  auto completed = store_->Complete({&done, 1}, 1'000'000, AttemptLog());
  ASSERT_TRUE(completed.ok());
  EXPECT_EQ(completed->written, 0);
  auto renewed = store_->Renew("node-a", *a_slots, 10'000'000, 3'600'000'000,
                               /*leaving=*/false);
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(renewed->renewed.empty());
  auto a_claim = store_->ClaimDue("node-a", *a_slots, 1'000'000, 100);
  ASSERT_TRUE(a_claim.ok());
  EXPECT_TRUE(a_claim->tasks.empty());
  auto a_fire = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(a_fire.ok());
  EXPECT_TRUE(a_fire->started.empty());
  EXPECT_EQ(store_->Get("fenced")->state, TaskState::kPending);

  // node-b runs it: exactly one SUCCESS.
  auto b_claim = store_->ClaimDue("node-b", *b_slots, 1'000'000, 100);
  ASSERT_TRUE(b_claim.ok());
  ASSERT_EQ(b_claim->tasks.size(), 1u);
  // Now SCHEDULED under epoch 2: node-a's stale wheel entry (epoch 1) fires
  // and starts nothing; neither does node-a naming the new epoch.
  EXPECT_TRUE(store_->StartRunning("node-a", claimed->tasks)->started.empty());
  EXPECT_TRUE(store_->StartRunning("node-a", b_claim->tasks)->started.empty());
  auto b_fire = store_->StartRunning("node-b", b_claim->tasks);
  ASSERT_TRUE(b_fire.ok());
  ASSERT_EQ(b_fire->started.size(), 1u);
  // node-a's fire never started a handler (nothing marked it started), so
  // node-b runs the same attempt number.
  EXPECT_EQ(b_fire->started[0].task.attempt, 1);
  done.version = b_fire->started[0].version;
  auto b_done = store_->Complete({&done, 1}, 1'000'000, AttemptLog());
  ASSERT_TRUE(b_done.ok());
  EXPECT_EQ(b_done->written, 1);
  EXPECT_EQ(store_->Get("fenced")->state, TaskState::kSuccess);
}

// The fire matches the row's epoch, not only its owner: a row committed
// SCHEDULED under an epoch the same node no longer holds starts nothing.
TEST_F(StoreTest, RenewHeartbeatsRenewsAndCountsLiveNodesInOneStatement) {
  // A first round with nothing owned still records the heartbeat.
  auto first = store_->Renew("node-a", {}, 10'000'000, 3'600'000'000,
                             /*leaving=*/false);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->live_nodes, 1);
  EXPECT_TRUE(first->renewed.empty());

  auto a_slots = store_->Acquire("node-a", 2, 10'000'000, 3, 3'600'000'000);
  ASSERT_TRUE(a_slots.ok());
  ASSERT_EQ(a_slots->size(), 2u);
  ASSERT_TRUE(store_
                  ->Renew("node-b", {}, 10'000'000, 3'600'000'000,
                          /*leaving=*/false)
                  .ok());

  // node-a sees node-b, keeps both slots, and its lease moved forward.
  ASSERT_TRUE(Inspect().SetLeasesOf("node-a", 2'000'000).ok());
  auto round = store_->Renew("node-a", *a_slots, 10'000'000, 3'600'000'000,
                             /*leaving=*/false);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(round->live_nodes, 2);
  std::vector<int> renewed = round->renewed;
  std::sort(renewed.begin(), renewed.end());
  EXPECT_EQ(renewed,
            (std::vector<int>{(*a_slots)[0].slot, (*a_slots)[1].slot}));
  EXPECT_EQ(
      *Inspect().CountSlots(
          durable_testing::LeaseMatch().Owner("node-a").LeaseBeyond(5'000'000)),
      2);

  // A node whose heartbeat is older than the TTL is not counted.
  ASSERT_TRUE(Inspect().ExpireNode("node-b").ok());
  round = store_->Renew("node-a", *a_slots, 10'000'000, 3'600'000'000,
                        /*leaving=*/false);
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->live_nodes, 1);
  EXPECT_EQ(round->renewed.size(), 2u);
}

TEST_F(StoreTest, FireMatchesTheEpochNotOnlyTheOwner) {
  InsertRow row = Row("stale", "p");
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  auto first = store_->Acquire("node-a", kSlots, 10'000'000, 3, 1'000'000);
  ASSERT_TRUE(first.ok());
  auto claimed = store_->ClaimDue("node-a", *first, 1'000'000, 100);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->tasks.size(), 1u);
  // node-a loses every slot and takes them back (epoch 2); a load of the
  // old epoch commits its row SCHEDULED under epoch 1 afterwards.
  ASSERT_TRUE(Inspect().ExpireLeases().ok());
  auto second = store_->Acquire("node-a", kSlots, 10'000'000, 3, 1'000'000);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(Inspect().ForceClaimed("stale", 1).ok());
  auto fired = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(fired.ok());
  EXPECT_TRUE(fired->started.empty());
  EXPECT_EQ(store_->Get("stale")->state, TaskState::kScheduled);
}

// A fenced-out owner's late completion never lands on the task the next
// owner runs, nor on the same id cancelled and scheduled again (versions
// come from one sequence and never repeat).
TEST_F(StoreTest, StaleCompletionNeverLandsOnARescheduledId) {
  InsertRow row = Row("aba", "p");
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  auto a_slots = store_->Acquire("node-a", kSlots, 10'000'000, 3, 1'000'000);
  ASSERT_TRUE(a_slots.ok());
  auto a_claim = store_->ClaimDue("node-a", *a_slots, 1'000'000, 100);
  ASSERT_TRUE(a_claim.ok());
  auto a_fire = store_->StartRunning("node-a", a_claim->tasks);
  ASSERT_TRUE(a_fire.ok());
  ASSERT_EQ(a_fire->started.size(), 1u);
  Completion stale;
  stale.id = "aba";
  stale.version = a_fire->started[0].version;
  stale.attempt = 1;
  stale.outcome = Outcome::kSuccess;

  // node-b takes over and runs it (RUNNING again, under a new version).
  ASSERT_TRUE(Inspect().ExpireLeases().ok());
  auto b_slots = store_->Acquire("node-b", kSlots, 10'000'000, 3, 1'000'000);
  ASSERT_TRUE(b_slots.ok());
  auto b_claim = store_->ClaimDue("node-b", *b_slots, 1'000'000, 100);
  ASSERT_TRUE(b_claim.ok());
  auto b_fire = store_->StartRunning("node-b", b_claim->tasks);
  ASSERT_TRUE(b_fire.ok());
  ASSERT_EQ(b_fire->started.size(), 1u);
  EXPECT_EQ(store_->Complete({&stale, 1}, 1'000'000, AttemptLog())->written, 0);
  EXPECT_EQ(store_->Get("aba")->state, TaskState::kRunning);

  // The row goes away and the id is scheduled again, the same number of
  // transitions later: still no match.
  ASSERT_TRUE(Inspect().DeleteTask("aba").ok());
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  auto again = store_->ClaimDue("node-b", *b_slots, 1'000'000, 100);
  ASSERT_TRUE(again.ok());
  auto again_fire = store_->StartRunning("node-b", again->tasks);
  ASSERT_TRUE(again_fire.ok());
  ASSERT_EQ(again_fire->started.size(), 1u);
  EXPECT_NE(again_fire->started[0].version, stale.version);
  EXPECT_EQ(store_->Complete({&stale, 1}, 1'000'000, AttemptLog())->written, 0);
  EXPECT_EQ(store_->Get("aba")->state, TaskState::kRunning);
}

// A takeover of a RUNNING row whose handler never started (nothing marked
// it) does not use the attempt up: with one attempt allowed it goes back to
// PENDING, not FAILED; once marked started, the same takeover ends it
// FAILED.
TEST_F(StoreTest, TakeoverCountsOnlyAttemptsThatStarted) {
  InsertRow unstarted = Row("unstarted", "p");
  InsertRow started = Row("started", "p");
  ASSERT_TRUE(store_->Insert(Client(), {&unstarted, 1}).ok());
  ASSERT_TRUE(store_->Insert(Client(), {&started, 1}).ok());
  auto a_slots = store_->Acquire("node-a", kSlots, 10'000'000, 1, 1'000'000);
  ASSERT_TRUE(a_slots.ok());
  auto claimed = store_->ClaimDue("node-a", *a_slots, 1'000'000, 100);
  ASSERT_TRUE(claimed.ok());
  auto fired = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(fired.ok());
  ASSERT_EQ(fired->started.size(), 2u);
  for (const Started& s : fired->started) {
    EXPECT_EQ(s.task.attempt, 1);
    if (s.task.id == "started") {
      StartMark mark{s.task.id, s.version, s.task.attempt};
      EXPECT_EQ(*store_->MarkStarted({&mark, 1}), 1);
    }
  }
  EXPECT_EQ(store_->Get("unstarted")->attempt, 0);
  EXPECT_EQ(store_->Get("started")->attempt, 1);
  ASSERT_TRUE(Inspect().ExpireLeases().ok());
  ASSERT_TRUE(store_->Acquire("node-b", kSlots, 10'000'000, 1, 1'000'000).ok());
  EXPECT_EQ(store_->Get("unstarted")->state, TaskState::kPending);
  EXPECT_EQ(store_->Get("started")->state, TaskState::kFailed);
}

TEST_F(StoreTest, FireRefusesTasksNotYetDueOnTheDatabaseClock) {
  InsertRow row = Row("later", "p", 60'000'000);  // Due in a minute.
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  auto slots = store_->Acquire("node-a", kSlots, 10'000'000, 3, 3'600'000'000);
  ASSERT_TRUE(slots.ok());
  // Not within a 1 s horizon; within a 2 min one.
  EXPECT_TRUE(
      store_->ClaimDue("node-a", *slots, 1'000'000, 100)->tasks.empty());
  auto claimed = store_->ClaimDue("node-a", *slots, 120'000'000, 100);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->tasks.size(), 1u);
  auto fired = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(fired.ok());
  EXPECT_TRUE(fired->started.empty());
  ASSERT_EQ(fired->not_due.size(), 1u);
  EXPECT_GT(fired->not_due[0].due_us, fired->db_now_us);
  EXPECT_EQ(store_->Get("later")->state, TaskState::kScheduled);
}

// A statement that takes long (here a test-only trigger sleeps in every
// row update) must report the database's clock as read at its end, not at
// its start: the process converts due times with that reading, and a
// reading from the start makes every task it returns fire late by the
// statement's run time. The reading still precedes the reply (so a task is
// never placed before its due time).
TEST_F(StoreTest, SlowStatementsReportTheClockReadAtTheirEnd) {
  constexpr int64_t kSlowUs = 300'000;
  InsertRow row = Row("slow", "p");  // Due now.
  ASSERT_TRUE(store_->Insert(Client(), {&row, 1}).ok());
  auto slots = store_->Acquire("node-a", kSlots, 60'000'000, 3, 3'600'000'000);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      "CREATE FUNCTION tw_test_slow() RETURNS trigger "
                      "LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); "
                      "RETURN NEW; END $$")
                  .ok());
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      "CREATE TRIGGER tw_test_slow BEFORE UPDATE ON tw_timer "
                      "FOR EACH ROW EXECUTE PROCEDURE tw_test_slow()")
                  .ok());

  // The horizon load.
  auto before = Inspect().DbNowUs();
  ASSERT_TRUE(before.ok()) << before.status();
  auto claimed = store_->ClaimDue("node-a", *slots, 1'000'000, 100);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  auto after = Inspect().DbNowUs();
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(claimed->tasks.size(), 1u);
  EXPECT_GE(claimed->db_now_us - *before, kSlowUs);
  EXPECT_LE(claimed->db_now_us, *after);

  // The fire statement: the task is due; the attempt fails and is retried
  // within the horizon, due `backoff` after the completion's start.
  auto fired = store_->StartRunning("node-a", claimed->tasks);
  ASSERT_TRUE(fired.ok()) << fired.status();
  ASSERT_EQ(fired->started.size(), 1u);
  Completion retry;
  retry.id = "slow";
  retry.version = fired->started[0].version;
  retry.outcome = Outcome::kRetry;
  retry.backoff_us = 100'000;
  retry.error = "again";
  auto completed = store_->Complete({&retry, 1}, 1'000'000, AttemptLog());
  after = Inspect().DbNowUs();
  ASSERT_TRUE(completed.ok()) << completed.status();
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(completed->retries.size(), 1u);
  const int64_t start_us = completed->retries[0].due_us - retry.backoff_us;
  EXPECT_GE(completed->db_now_us - start_us, kSlowUs);
  EXPECT_LE(completed->db_now_us, *after);
}

// The prepared single-task statements work again on a new session.
TEST_F(StoreTest, PreparedStatementsSurviveReconnect) {
  InsertRow first = Row("first", "p", 60'000'000);
  ASSERT_TRUE(store_->Insert(Client(), {&first, 1}).ok());
  ASSERT_TRUE(store_->Reconnect().ok());
  InsertRow second = Row("second", "p", 60'000'000);
  ASSERT_TRUE(store_->Insert(Client(), {&second, 1}).ok());
  EXPECT_EQ(store_->Get("second")->state, TaskState::kPending);
  EXPECT_TRUE(*store_->Cancel("first"));
  EXPECT_TRUE(absl::IsNotFound(store_->Get("first").status()));
  // A conflicting single row is still refused (and changes nothing).
  InsertRow other = Row("second", "other", 60'000'000);
  EXPECT_TRUE(
      absl::IsAlreadyExists(store_->Insert(Client(), {&other, 1}).status()));
  EXPECT_EQ(*Inspect().CountTasks(), 1);
}

TEST(StoreConnectTest, ErrorsNeverShowThePassword) {
  auto store = Store::Connect(
      "host=/nonexistent/socket/dir dbname=x user=u password=S3cr3t-pw "
      "connect_timeout=2");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(absl::IsUnavailable(store.status())) << store.status();
  EXPECT_EQ(store.status().ToString().find("S3cr3t-pw"), std::string::npos)
      << store.status();
  EXPECT_NE(store.status().ToString().find("/nonexistent/socket/dir"),
            std::string::npos);
  auto admin = durable_testing::AdminConnInfo();
  ASSERT_TRUE(admin.ok()) << admin.status();
  // A reachable server, a database that does not exist.
  auto missing = Store::Connect(
      absl::StrCat(*admin, " dbname=no_such_db password='p@ss w0rd'"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().ToString().find("p@ss w0rd"), std::string::npos)
      << missing.status();
  EXPECT_EQ(RedactedConnInfo("host=h password=secret dbname=d"),
            "dbname=d host=h");
}

// Malformed and valid-but-unreachable connection strings holding passwords:
// no status quotes the password (libpq quotes an unparsable string whole),
// and an unparsable one says so plainly.
TEST(StoreConnectTest, MalformedConnectionStringsNeverShowThePassword) {
  struct Case {
    std::string conninfo;
    std::vector<std::string> secrets;
    bool parses;
  };
  const Case cases[] = {
      {"postgresql://app:secret@[broken", {"secret"}, false},
      {"postgresql://app:s3cr%65t@[::1/db", {"s3cr%65t", "s3cret"}, false},
      {"host=/nonexistent password=hunter2 'unterminated", {"hunter2"}, false},
      {"password=topsecret host", {"topsecret"}, false},
      {"password='quo ted' host=/x =", {"quo ted"}, false},
      {"postgresql://app:qwerty@/db?password=qwerty&bogus=1",
       {"qwerty"},
       false},
      {"postgresql://app:s3cr%65t@/db?host=/nonexistent&connect_timeout=2",
       {"s3cr%65t", "s3cret"},
       true},
      // Values libpq refuses when it connects: a typo, not an outage.
      {"postgresql://app:secret@/db?sslmode=bogus&host=/nonexistent",
       {"secret"},
       false},
      {"host=/nonexistent dbname=x password='sec ret' connect_timeout=2",
       {"sec ret"},
       true},
      {"host=/nonexistent port=notaport password=hunter2", {"hunter2"}, false},
  };
  for (const Case& c : cases) {
    auto store = Store::Connect(c.conninfo);
    ASSERT_FALSE(store.ok()) << c.conninfo;
    const std::string text = store.status().ToString();
    for (const std::string& secret : c.secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos) << text;
    }
    if (c.parses) {
      EXPECT_TRUE(absl::IsUnavailable(store.status())) << text;
    } else {
      EXPECT_TRUE(absl::IsInvalidArgument(store.status())) << text;
      EXPECT_NE(text.find("invalid connection string"), std::string::npos)
          << text;
    }
  }
}

TEST(ScrubSecretsTest, MasksPasswordsParsedOrNot) {
  EXPECT_EQ(ScrubSecrets("x pw1 y pw1", {"pw1"}), "x *** y ***");
  EXPECT_EQ(ScrubSecrets("\"postgresql://u:p@ss@h/db\"", {}),
            "\"postgresql://u:***@h/db\"");
  EXPECT_EQ(ScrubSecrets("a PASSWORD = 'x y' b", {}), "a PASSWORD = *** b");
  EXPECT_EQ(ScrubSecrets("?password=abc&x=1", {}), "?password=***&x=1");
  const std::vector<std::string> got =
      PasswordCandidates("postgresql://u:p%40ss@h/db?password=q%26");
  for (const char* want : {"p%40ss", "p@ss", "q%26", "q&"}) {
    EXPECT_NE(std::find(got.begin(), got.end(), want), got.end()) << want;
  }
}

TEST(SlotForTest, IsStableAndSpreads) {
  // Fixed values: the slot decides ownership across processes and builds.
  EXPECT_EQ(SlotFor("", 1024),
            static_cast<int>(14695981039346656037ULL % 1024));
  EXPECT_EQ(SlotFor("order-42", 1024), SlotFor("order-42", 1024));
  int hits[16] = {0};
  for (int i = 0; i < 1600; ++i) ++hits[SlotFor(absl::StrCat("t", i), 16)];
  for (int h : hits) EXPECT_GT(h, 50);
}

TEST(ToInsertRowTest, RejectsBadInput) {
  RequestLimits limits;
  limits.max_id_bytes = 8;
  limits.max_payload_bytes = 8;
  ScheduleRequest ok;
  ok.id = "id";
  ok.payload = "p";
  EXPECT_TRUE(ToInsertRow(ok, 16, limits).ok());
  auto bad = [&](auto mutate) {
    ScheduleRequest r = ok;
    mutate(r);
    return absl::IsInvalidArgument(ToInsertRow(r, 16, limits).status());
  };
  EXPECT_TRUE(bad([](ScheduleRequest& r) { r.id.clear(); }));
  EXPECT_TRUE(bad([](ScheduleRequest& r) { r.id = "123456789"; }));
  EXPECT_TRUE(bad([](ScheduleRequest& r) { r.payload.clear(); }));
  EXPECT_TRUE(bad([](ScheduleRequest& r) { r.payload = "123456789"; }));
  EXPECT_TRUE(bad([](ScheduleRequest& r) {
    r.due = absl::UnixEpoch() - absl::Seconds(1);
  }));
  EXPECT_TRUE(bad([](ScheduleRequest& r) {
    r.due = absl::FromCivil(absl::CivilSecond(10000, 1, 1, 0, 0, 0),
                            absl::UTCTimeZone());
  }));
  EXPECT_TRUE(
      bad([](ScheduleRequest& r) { r.delay = absl::Hours(24 * 365 * 8000); }));
  EXPECT_FALSE(bad([](ScheduleRequest& r) {
    r.due = absl::FromCivil(absl::CivilSecond(9999, 12, 31, 23, 59, 59),
                            absl::UTCTimeZone());
  }));
  EXPECT_FALSE(bad([](ScheduleRequest& r) { r.delay = -absl::Seconds(5); }));
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
