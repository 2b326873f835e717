// Copyright 2026 The timingwheel Authors.
//
// The schema's forward migrations against a real PostgreSQL: the steps form
// a chain, processes migrating at once apply each step once, a version-1
// store holding tasks in every state is upgraded with nothing lost, a dry
// run changes nothing, a failed step leaves the version before it, and a
// newer schema is refused; a version-2 and a version-3 store gain what
// the later steps add with nothing lost; a version-6 store gains the
// priority index with no row changed, and its tasks then run.

#include "durable/sql/migrations.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

// The version-1 schema, as the first release created it, with 8 slots.
constexpr char kVersionOneDdl[] = R"sql(
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
)sql";

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;

Conn Connect(const std::string& conninfo) {
  Conn conn(PQconnectdb(conninfo.c_str()));
  EXPECT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  return conn;
}

class MigrationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  int64_t Query(const std::string& sql) {
    auto n = QueryInt(db_->conninfo(), sql);
    EXPECT_TRUE(n.ok()) << n.status() << " for " << sql;
    return n.ok() ? *n : -1;
  }

  int64_t Version() {
    return Query("SELECT value FROM tw_meta WHERE key = 'schema_version'");
  }

  bool Exists(const std::string& relation) {
    return Query(absl::StrCat("SELECT (to_regclass('", relation,
                              "') IS NOT NULL)::int")) == 1;
  }

  std::unique_ptr<TestDatabase> db_;
};

TEST(MigrationStepsTest, StepsFormAChain) {
  absl::Span<const MigrationStep> steps = MigrationSteps();
  ASSERT_FALSE(steps.empty());
  for (int64_t start = 0; start < kSchemaVersion; ++start) {
    int from_here = 0;
    for (const MigrationStep& s : steps) from_here += s.from == start;
    // Version 0 (creation) and every version a release made have a step.
    if (start == 0 || start == 1) {
      EXPECT_EQ(from_here, 1) << start;
    }
  }
  for (const MigrationStep& s : steps) {
    EXPECT_LT(s.from, s.to);
    EXPECT_LE(s.to, kSchemaVersion);
    int64_t v = s.from;
    for (int hops = 0; v != kSchemaVersion && hops < 100; ++hops) {
      const MigrationStep* next = nullptr;
      for (const MigrationStep& t : steps) {
        if (t.from == v) next = &t;
      }
      ASSERT_NE(next, nullptr) << "no step from version " << v;
      v = next->to;
    }
    EXPECT_EQ(v, kSchemaVersion);
  }
}

// Processes starting at once (threads with connections of their own) on an
// empty database and on a version-1 store: every one succeeds, each step
// runs once, the store ends at the current version.
TEST_F(MigrationsTest, ProcessesMigratingAtOnceApplyEachStepOnce) {
  for (bool from_v1 : {false, true}) {
    SCOPED_TRACE(from_v1 ? "from version 1" : "from nothing");
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    const std::string conninfo = (*db)->conninfo();
    if (from_v1) {
      ASSERT_TRUE(ExecSql(conninfo, kVersionOneDdl).ok());
    }
    constexpr int kProcesses = 6;
    std::vector<Conn> conns;
    for (int i = 0; i < kProcesses; ++i) conns.push_back(Connect(conninfo));
    std::atomic<int> ready{0};
    std::vector<absl::StatusOr<MigrationPlan>> results(
        kProcesses, absl::UnknownError("not run"));
    std::vector<SchemaInfo> infos(kProcesses);
    std::vector<std::thread> threads;
    for (int i = 0; i < kProcesses; ++i) {
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < kProcesses) std::this_thread::yield();
        results[i] = MigrateSchema(conns[i].get(), 8, &infos[i]);
      });
    }
    for (std::thread& t : threads) t.join();
    int applied = 0;
    for (int i = 0; i < kProcesses; ++i) {
      ASSERT_TRUE(results[i].ok()) << results[i].status();
      applied += static_cast<int>(results[i]->steps.size());
      EXPECT_EQ(infos[i].version, kSchemaVersion);
      EXPECT_EQ(infos[i].slot_count, 8);
    }
    // One step a version either way (0 -> 2 or 1 -> 2, then 2 -> 3 and so
    // on), each run by one process.
    EXPECT_EQ(applied, kSchemaVersion - 1);
    auto version = QueryInt(
        conninfo, "SELECT value FROM tw_meta WHERE key = 'schema_version'");
    ASSERT_TRUE(version.ok());
    EXPECT_EQ(*version, kSchemaVersion);
    EXPECT_EQ(*QueryInt(conninfo, "SELECT count(*) FROM tw_slot_lease"), 8);
  }
}

// A version-1 store with tasks in every state: after the upgrade every row
// is as it was, new versions are above every old one, and a scheduler runs
// the due tasks to SUCCESS.
TEST_F(MigrationsTest, VersionOneStoreWithLiveTasksLosesNothing) {
  ASSERT_TRUE(ExecSql(db_->conninfo(), kVersionOneDdl).ok());
  ASSERT_TRUE(ExecSql(db_->conninfo(), R"sql(
INSERT INTO tw_timer (task_id, slot, due_us, state, version, epoch, attempt,
                      payload, last_error, finished_us)
SELECT ('t-' || i)::bytea, i % 8, tw_now_us() - 1000000, i % 5, 1000 + i,
       3, i % 3, ('payload-' || i)::bytea,
       CASE WHEN i % 5 = 4 THEN 'boom'::bytea END,
       CASE WHEN i % 5 >= 3 THEN tw_now_us() END
FROM generate_series(1, 200) i;
)sql")
                  .ok());
  const std::string fingerprint =
      "SELECT hashtext(string_agg(task_id::text || slot || due_us || state || "
      "version || epoch || attempt || payload::text || "
      "coalesce(last_error::text, '-') || coalesce(finished_us::text, '-'), "
      "',' ORDER BY task_id)) FROM tw_timer";
  const int64_t before = Query(fingerprint);

  Conn conn = Connect(db_->conninfo());
  SchemaInfo info;
  auto applied = MigrateSchema(conn.get(), 8, &info);
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_EQ(applied->steps.size(), static_cast<size_t>(kSchemaVersion - 1));
  for (size_t i = 0; i < applied->steps.size(); ++i) {
    EXPECT_EQ(applied->steps[i].from, static_cast<int64_t>(i) + 1);
  }
  EXPECT_EQ(applied->from_version, 1);
  EXPECT_EQ(Version(), kSchemaVersion);
  EXPECT_EQ(Query(fingerprint), before);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer"), 200);
  EXPECT_GT(Query("SELECT nextval('tw_version_seq')"), 1200);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_slot_lease WHERE horizon_us = 0"),
            8);

  // The upgraded store runs: RUNNING and SCHEDULED rows of the dead v1
  // owner (epoch 3, no lease) are re-stamped, due rows run.
  const int64_t unfinished =
      Query("SELECT count(*) FROM tw_timer WHERE state < 3");
  EXPECT_EQ(unfinished, 120);
  DurableOptions options;
  options.conninfo = db_->conninfo();
  options.node_id = "after-upgrade";
  options.slot_count = 8;
  options.lease_ttl = absl::Seconds(1);
  durable_test::Recorder recorder;
  options.handler = recorder.Handler();
  auto scheduler = DurableScheduler::Create(options);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();

  EXPECT_TRUE(durable_test::WaitFor(
      [&] {
        return Query("SELECT count(*) FROM tw_timer WHERE state < 3") == 0;
      },
      absl::Seconds(30)));
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE state = 3"), 160);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer"), 200);
  (*scheduler)->Shutdown();
}

TEST_F(MigrationsTest,
       VersionTwoStoreWithLiveTasksGainsSchedulesLosingNothing) {
  // A version-2 store as the previous release left it: version 1 plus the
  // step 1 -> 2, with tasks in every state.
  ASSERT_TRUE(ExecSql(db_->conninfo(), kVersionOneDdl).ok());
  const MigrationStep* to_two = nullptr;
  for (const MigrationStep& step : MigrationSteps()) {
    if (step.from == 1) to_two = &step;
  }
  ASSERT_NE(to_two, nullptr);
  ASSERT_EQ(to_two->to, 2);
  ASSERT_TRUE(ExecSql(db_->conninfo(), to_two->sql).ok());
  ASSERT_TRUE(ExecSql(db_->conninfo(), R"sql(
UPDATE tw_meta SET value = 2 WHERE key = 'schema_version';
INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, attempt, payload,
                      finished_us)
SELECT ('t-' || i)::bytea, i % 8, tw_now_us() - 1000000, i % 5, 3, i % 3,
       ('payload-' || i)::bytea, CASE WHEN i % 5 >= 3 THEN tw_now_us() END
FROM generate_series(1, 100) i;
)sql")
                  .ok());
  const std::string fingerprint =
      "SELECT hashtext(string_agg(task_id::text || slot || due_us || state || "
      "version || epoch || attempt || payload::text, ',' ORDER BY task_id)) "
      "FROM tw_timer";
  const int64_t before = Query(fingerprint);
  Conn conn = Connect(db_->conninfo());
  auto applied = MigrateSchema(conn.get(), 8, nullptr);
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_EQ(applied->steps.size(), static_cast<size_t>(kSchemaVersion - 2));
  for (size_t i = 0; i < applied->steps.size(); ++i) {
    EXPECT_EQ(applied->steps[i].from, static_cast<int64_t>(i) + 2);
  }
  EXPECT_EQ(Version(), kSchemaVersion);
  EXPECT_TRUE(Exists("tw_schedule"));
  EXPECT_EQ(Query(fingerprint), before);

  // The upgraded store runs its old tasks and a new schedule.
  DurableOptions options;
  options.conninfo = db_->conninfo();
  options.node_id = "after-upgrade";
  options.slot_count = 8;
  options.lease_ttl = absl::Seconds(1);
  durable_test::Recorder recorder;
  options.handler = recorder.Handler();
  auto scheduler = DurableScheduler::Create(options);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  RecurringSchedule schedule;
  schedule.name = "after-upgrade";
  schedule.every = absl::Milliseconds(100);
  schedule.payload = "tick";
  ASSERT_TRUE((*scheduler)->CreateSchedule(schedule).ok());
  EXPECT_TRUE(durable_test::WaitFor(
      [&] {
        return Query(
                   "SELECT count(*) FROM tw_timer WHERE state < 3 AND "
                   "task_id LIKE 't-%'") == 0 &&
               recorder.size() >= 62;
      },
      absl::Seconds(30)));
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE task_id LIKE 't-%' "
                  "AND state >= 3"),
            100);
  int schedule_runs = 0;
  for (const durable_test::Recorder::Call& call : recorder.calls()) {
    schedule_runs += call.task.schedule == "after-upgrade";
  }
  EXPECT_GE(schedule_runs, 2);
  (*scheduler)->Shutdown();
}

TEST_F(MigrationsTest,
       VersionThreeStoreWithLiveTasksGainsKindsAndHistoryLosingNothing) {
  // A version-3 store as the previous release left it: version 1 plus the
  // steps 1 -> 2 and 2 -> 3, with tasks in every state and a schedule.
  ASSERT_TRUE(ExecSql(db_->conninfo(), kVersionOneDdl).ok());
  for (int64_t from : {1, 2}) {
    const MigrationStep* step = nullptr;
    for (const MigrationStep& s : MigrationSteps()) {
      if (s.from == from) step = &s;
    }
    ASSERT_NE(step, nullptr) << from;
    ASSERT_EQ(step->to, from + 1);
    ASSERT_TRUE(ExecSql(db_->conninfo(), step->sql).ok()) << from;
  }
  ASSERT_TRUE(ExecSql(db_->conninfo(), R"sql(
UPDATE tw_meta SET value = 3 WHERE key = 'schema_version';
INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, attempt, payload,
                      last_error, finished_us)
SELECT ('t-' || i)::bytea, i % 8, tw_now_us() - 1000000, i % 5, 3, i % 3,
       ('payload-' || i)::bytea, CASE WHEN i % 5 = 4 THEN 'boom'::bytea END,
       CASE WHEN i % 5 >= 3 THEN tw_now_us() END
FROM generate_series(1, 100) i;
)sql")
                  .ok());
  EXPECT_FALSE(Exists("tw_attempt"));
  EXPECT_FALSE(Exists("tw_kind"));
  const std::string fingerprint =
      "SELECT hashtext(string_agg(task_id::text || slot || due_us || state || "
      "version || epoch || attempt || payload::text || "
      "coalesce(last_error::text, '-') || coalesce(finished_us::text, '-'), "
      "',' ORDER BY task_id)) FROM tw_timer";
  const int64_t before = Query(fingerprint);
  Conn conn = Connect(db_->conninfo());
  auto applied = MigrateSchema(conn.get(), 8, nullptr);
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_EQ(applied->steps.size(), static_cast<size_t>(kSchemaVersion - 3));
  EXPECT_EQ(applied->steps[0].from, 3);
  EXPECT_EQ(applied->steps[0].to, 4);
  EXPECT_EQ(applied->from_version, 3);
  EXPECT_EQ(Version(), kSchemaVersion);
  EXPECT_EQ(Query(fingerprint), before);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer"), 100);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE kind = '' AND "
                  "priority = 0"),
            100);
  EXPECT_TRUE(Exists("tw_attempt"));
  EXPECT_TRUE(Exists("tw_kind"));
  EXPECT_TRUE(Exists("tw_attempt_task"));
  EXPECT_EQ(Query("SELECT count(*) FROM tw_attempt"), 0);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_kind"), 0);
  EXPECT_EQ(Query("SELECT count(*) FROM information_schema.columns WHERE "
                  "table_name = 'tw_schedule' AND column_name IN ('kind', "
                  "'priority')"),
            2);

  // The upgraded store runs the due tasks to SUCCESS (RUNNING and
  // SCHEDULED rows of the dead owner, epoch 3 without a lease, included).
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE state < 3"), 60);
  DurableOptions options;
  options.conninfo = db_->conninfo();
  options.node_id = "after-upgrade";
  options.slot_count = 8;
  options.lease_ttl = absl::Seconds(1);
  durable_test::Recorder recorder;
  options.handler = recorder.Handler();
  auto scheduler = DurableScheduler::Create(options);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  EXPECT_TRUE(durable_test::WaitFor(
      [&] {
        return Query("SELECT count(*) FROM tw_timer WHERE state < 3") == 0;
      },
      absl::Seconds(30)));
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE state = 3"), 80);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer"), 100);
  (*scheduler)->Shutdown();
}

// A version-6 store as the previous release left it (version 1 plus the
// steps 1 -> 2 to 5 -> 6), holding tasks in every state with a mix of
// priorities, the occurrences of a paused recurring schedule and finished
// tasks' attempt records, its slots' leases expired under a dead owner's
// epoch: the step 6 -> 7 only adds the priority index, changing no row, and
// a scheduler then runs each task that was due and unfinished exactly once
// (with the default fire and with the fire by slot, each on a store of its
// own), leaving the finished and the future ones as they were.
TEST_F(MigrationsTest, VersionSixStoreWithTasksInEveryStateLosesNothing) {
  for (bool fire_by_slot : {false, true}) {
    SCOPED_TRACE(fire_by_slot ? "fire by slot" : "default fire");
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    const std::string conninfo = (*db)->conninfo();
    auto query = [&](const std::string& sql) -> int64_t {
      auto n = QueryInt(conninfo, sql);
      EXPECT_TRUE(n.ok()) << n.status() << " for " << sql;
      return n.ok() ? *n : -1;
    };
    auto version = [&] {
      return query("SELECT value FROM tw_meta WHERE key = 'schema_version'");
    };
    auto exists = [&](const std::string& relation) {
      return query(absl::StrCat("SELECT (to_regclass('", relation,
                                "') IS NOT NULL)::int")) == 1;
    };

    ASSERT_TRUE(ExecSql(conninfo, kVersionOneDdl).ok());
    for (int64_t from = 1; from <= 5; ++from) {
      const MigrationStep* step = nullptr;
      for (const MigrationStep& s : MigrationSteps()) {
        if (s.from == from) step = &s;
      }
      ASSERT_NE(step, nullptr) << from;
      ASSERT_EQ(step->to, from + 1);
      ASSERT_TRUE(ExecSql(conninfo, step->sql).ok()) << from;
    }

    // Times on the process clock, which is the database's (same machine).
    const int64_t now_us = absl::ToUnixMicros(absl::Now());
    const int64_t hour_us = 3'600'000'000LL;
    const int64_t past_us = now_us - 2'000'000;
    // Beyond the scheduler's horizon (1 h): never claimed in this test.
    const int64_t future_us = now_us + 6 * hour_us;
    // When every finished row finished (a minute ago).
    const int64_t done_us = now_us - 60'000'000;
    // Schedule "nightly" (slot 5, priority 10, every hour; paused, so that
    // it writes no occurrence meanwhile): its occurrence an hour ago
    // succeeded, the latest (due 2 s ago) was RUNNING under the dead owner.
    const std::string earlier_occurrence = absl::StrCat(
        std::string(1, '\x1b'), "tw-schedule:7:nightly@", past_us - hour_us);
    const std::string occurrence =
        absl::StrCat(std::string(1, '\x1b'), "tw-schedule:7:nightly@", past_us);
    auto bytea = [](const std::string& bytes) {
      return absl::StrCat("'\\x", absl::BytesToHexString(bytes), "'::bytea");
    };
    ASSERT_TRUE(
        ExecSql(conninfo,
                absl::Substitute(R"sql(
UPDATE tw_meta SET value = 6 WHERE key = 'schema_version';
UPDATE tw_slot_lease SET owner = 'dead-v6', epoch = 3, lease_until_us = $0;
INSERT INTO tw_node VALUES ('dead-v6', $0);
INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, attempt, payload,
                      last_error, finished_us, priority)
SELECT convert_to(g.name || '-' || i, 'UTF8'), i % 8, g.due, g.state,
       g.epoch, g.attempt, convert_to('payload-' || g.name || '-' || i, 'UTF8'),
       CASE WHEN g.state = 4 THEN 'boom'::bytea END,
       CASE WHEN g.state >= 3 THEN $0::bigint END,
       (ARRAY[-5, 0, 10])[i % 3 + 1]
FROM (VALUES ('pending-past', $1::bigint, 0, 0, 0),
             ('pending-future', $2, 0, 0, 0),
             ('scheduled', $1, 1, 3, 0),
             ('running', $1, 2, 3, 1),
             ('success', $1, 3, 3, 1),
             ('failed', $1, 4, 3, 3)) AS g (name, due, state, epoch, attempt),
     generate_series(1, 12) i;
INSERT INTO tw_schedule (name, slot, every_us, anchor_us, cron, zone, payload,
                         overlap, catch_up, grace_us, max_runs, paused,
                         last_us, plan_us, next_us, created_us, updated_us,
                         priority)
VALUES ('nightly'::bytea, 5, $3, $1, '', '', 'tick'::bytea, 0, 0, 0, 0, true,
        $1, $1 + $3, $1 + $3, $1 - $3, $0, 10);
INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, attempt, payload,
                      finished_us, priority)
VALUES ($4, 5, $1 - $3, 3, 3, 1, 'tick'::bytea, $0, 10),
       ($5, 5, $1, 2, 3, 1, 'tick'::bytea, NULL, 10);
INSERT INTO tw_attempt (task_id, attempt, outcome, node_id, started_us,
                        finished_us, error)
SELECT task_id, a,
       CASE WHEN state = 3 THEN 0 WHEN a < attempt THEN 1 ELSE 2 END,
       'dead-v6', finished_us - 1000 * (attempt - a) - 500,
       finished_us - 1000 * (attempt - a),
       CASE WHEN state = 4 THEN 'boom'::bytea END
FROM tw_timer, generate_series(1, attempt) a
WHERE finished_us IS NOT NULL;
)sql",
                                 done_us, past_us, future_us, hour_us,
                                 bytea(earlier_occurrence), bytea(occurrence)))
            .ok());
    ASSERT_EQ(version(), 6);
    ASSERT_FALSE(exists("tw_timer_priority"));
    ASSERT_EQ(query("SELECT count(*) FROM tw_timer"), 74);
    ASSERT_EQ(query("SELECT count(*) FROM tw_attempt"), 12 + 36 + 1);
    ASSERT_EQ(query("SELECT count(DISTINCT priority) FROM tw_timer"), 3);
    ASSERT_EQ(query("SELECT count(*) FROM tw_timer WHERE kind <> ''"), 0);

    auto timer_fingerprint = [](const std::string& where) {
      return absl::StrCat(
          "SELECT hashtext(string_agg(task_id::text || slot || due_us || "
          "state || version || epoch || attempt || payload::text || "
          "coalesce(last_error::text, '-') || coalesce(finished_us::text, "
          "'-') || kind || priority, ',' ORDER BY task_id)) FROM tw_timer ",
          where);
    };
    const std::string all_rows = timer_fingerprint("");
    const std::string finished_rows =
        timer_fingerprint(absl::StrCat("WHERE finished_us <= ", done_us));
    const std::string future_rows =
        timer_fingerprint(absl::StrCat("WHERE due_us >= ", future_us));
    const std::string attempts =
        "SELECT hashtext(string_agg(task_id::text || attempt || outcome || "
        "node_id || started_us || finished_us || coalesce(error::text, '-'), "
        "',' ORDER BY task_id, attempt)) FROM tw_attempt";
    const std::string schedules =
        "SELECT hashtext(string_agg(t::text, ',' ORDER BY name)) "
        "FROM tw_schedule t";
    const int64_t all_before = query(all_rows);
    const int64_t finished_before = query(finished_rows);
    const int64_t future_before = query(future_rows);
    const int64_t attempts_before = query(attempts);
    const int64_t schedules_before = query(schedules);

    Conn conn = Connect(conninfo);
    auto applied = MigrateSchema(conn.get(), 8, nullptr);
    ASSERT_TRUE(applied.ok()) << applied.status();
    EXPECT_EQ(applied->from_version, 6);
    ASSERT_EQ(applied->steps.size(), static_cast<size_t>(kSchemaVersion - 6));
    EXPECT_EQ(applied->steps[0].from, 6);
    EXPECT_EQ(applied->steps[0].to, 7);
    EXPECT_EQ(version(), kSchemaVersion);
    // Above 6: a version-6 library refuses the store from now on
    // (NewerSchemaIsRefusedNamingBothVersions).
    EXPECT_GT(version(), 6);
    EXPECT_EQ(query(all_rows), all_before);
    EXPECT_EQ(query(attempts), attempts_before);
    EXPECT_EQ(query(schedules), schedules_before);
    EXPECT_EQ(query("SELECT count(*) FROM tw_timer"), 74);
    EXPECT_EQ(query("SELECT count(*) FROM pg_indexes WHERE tablename = "
                    "'tw_timer' AND indexname = 'tw_timer_priority' AND "
                    "indexdef LIKE '%(priority DESC, slot, due_us) WHERE "
                    "(finished_us IS NULL)'"),
              1);

    // The upgraded store runs: the SCHEDULED and RUNNING rows of the dead
    // owner (epoch 3, its leases expired) are taken over, and every due
    // unfinished row runs once.
    std::map<std::string, int> expected_priority;
    for (const char* name : {"pending-past", "scheduled", "running"}) {
      for (int i = 1; i <= 12; ++i) {
        expected_priority[absl::StrCat(name, "-", i)] =
            std::vector<int>{-5, 0, 10}[i % 3];
      }
    }
    expected_priority[occurrence] = 10;
    ASSERT_EQ(expected_priority.size(), 37u);
    DurableOptions options;
    options.conninfo = conninfo;
    options.node_id = "after-upgrade";
    options.slot_count = 8;
    options.lease_ttl = absl::Seconds(1);
    options.fire_by_slot = fire_by_slot;
    durable_test::Recorder recorder;
    options.handler = recorder.Handler();
    auto scheduler = DurableScheduler::Create(options);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status();
    // (TIMINGWHEEL_FIRE_BY_SLOT=1 may turn it on for the default pass too.)
    if (fire_by_slot) {
      EXPECT_EQ((*scheduler)->Metrics().fire_by_slot, 1);
    }
    const std::string newly_finished = absl::StrCat(
        "SELECT count(*) FROM tw_timer WHERE state = 3 AND finished_us > ",
        done_us);
    EXPECT_TRUE(durable_test::WaitFor(
        [&] { return query(newly_finished) == 37; }, absl::Seconds(30)));
    EXPECT_EQ(
        query(absl::StrCat("SELECT count(*) FROM tw_timer WHERE due_us < ",
                           now_us, " AND finished_us IS NULL")),
        0);
    // Exactly once each, nothing else, as scheduled.
    std::map<std::string, int> runs;
    for (const durable_test::Recorder::Call& call : recorder.calls()) {
      ++runs[call.task.id];
      auto it = expected_priority.find(call.task.id);
      if (it == expected_priority.end()) {
        ADD_FAILURE() << "ran " << call.task.id;
        continue;
      }
      EXPECT_EQ(call.task.priority, it->second) << call.task.id;
      EXPECT_EQ(call.task.kind, "") << call.task.id;
      EXPECT_EQ(call.task.schedule, call.task.id == occurrence ? "nightly" : "")
          << call.task.id;
    }
    for (const auto& entry : expected_priority) {
      EXPECT_EQ(runs[entry.first], 1) << entry.first;
    }
    // The future rows wait as they were; the finished ones, their attempt
    // records and the schedule are untouched.
    EXPECT_EQ(query(future_rows), future_before);
    EXPECT_EQ(query(absl::StrCat("SELECT count(*) FROM tw_timer WHERE state = "
                                 "0 AND due_us >= ",
                                 future_us)),
              12);
    EXPECT_EQ(query(finished_rows), finished_before);
    EXPECT_EQ(query(absl::StrCat(attempts,
                                 " WHERE task_id IN (SELECT task_id "
                                 "FROM tw_timer WHERE finished_us <= ",
                                 done_us, ")")),
              attempts_before);
    EXPECT_EQ(query(schedules), schedules_before);
    EXPECT_EQ(query("SELECT count(*) FROM tw_timer"), 74);
    (*scheduler)->Shutdown();
  }
}

// A migrated store's partial indexes are chosen by the finished time, not
// the state (a state change that does not finish a task is then a HOT
// update), and the task table leaves room on each page for new versions.
TEST_F(MigrationsTest, MigratedStoreIndexesByFinishedTimeNotState) {
  ASSERT_TRUE(ExecSql(db_->conninfo(), kVersionOneDdl).ok());
  Conn conn = Connect(db_->conninfo());
  ASSERT_TRUE(MigrateSchema(conn.get(), 8, nullptr).ok());
  EXPECT_EQ(Query("SELECT count(*) FROM pg_indexes WHERE tablename = "
                  "'tw_timer' AND indexdef LIKE '%state%'"),
            0);
  EXPECT_EQ(Query("SELECT count(*) FROM pg_indexes WHERE indexname = "
                  "'tw_timer_live' AND indexdef LIKE "
                  "'%WHERE (finished_us IS NULL)'"),
            1);
  EXPECT_EQ(Query("SELECT count(*) FROM pg_indexes WHERE indexname = "
                  "'tw_timer_finished' AND indexdef LIKE "
                  "'%WHERE (finished_us IS NOT NULL)'"),
            1);
  EXPECT_EQ(Query("SELECT count(*) FROM pg_class WHERE relname = 'tw_timer' "
                  "AND 'fillfactor=50' = ANY(reloptions)"),
            1);
}

TEST_F(MigrationsTest, DryRunPrintsSqlAndChangesNothing) {
  Conn conn = Connect(db_->conninfo());
  // Nothing yet: the plan is the creation step, and it creates nothing.
  auto plan = PlanMigration(conn.get(), 32);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->from_version, 0);
  EXPECT_EQ(plan->to_version, kSchemaVersion);
  ASSERT_EQ(plan->steps.size(), static_cast<size_t>(kSchemaVersion - 1));
  EXPECT_NE(plan->steps[1].sql.find("CREATE TABLE tw_schedule"),
            std::string::npos);
  EXPECT_NE(plan->steps[2].sql.find("CREATE TABLE tw_attempt"),
            std::string::npos);
  EXPECT_NE(plan->steps[0].sql.find("CREATE TABLE tw_timer"),
            std::string::npos);
  // The values are written in (psql runs the text as printed).
  EXPECT_NE(plan->steps[0].sql.find("generate_series(0, 32 - 1)"),
            std::string::npos)
      << plan->steps[0].sql;
  EXPECT_EQ(plan->steps[0].sql.find("$1"), std::string::npos);
  EXPECT_EQ(plan->steps[0].locks, "none (creates new tables)");
  // The step to version 5 rebuilds indexes under its lock, and says so.
  EXPECT_NE(plan->steps[3].locks.find("ACCESS EXCLUSIVE on tw_timer"),
            std::string::npos)
      << plan->steps[3].description;
  EXPECT_NE(plan->steps[0].sql.find("pg_advisory_xact_lock"),
            std::string::npos);
  EXPECT_FALSE(Exists("tw_meta"));

  // A version-1 store: the plan is the upgrade, and the store stays at 1.
  ASSERT_TRUE(ExecSql(db_->conninfo(), kVersionOneDdl).ok());
  plan = PlanMigration(conn.get(), 32);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->from_version, 1);
  ASSERT_EQ(plan->steps.size(), static_cast<size_t>(kSchemaVersion - 1));
  EXPECT_NE(plan->steps[0].sql.find("ADD COLUMN horizon_us"),
            std::string::npos);
  EXPECT_EQ(Version(), 1);
  EXPECT_FALSE(Exists("tw_version_seq"));

  // Up to date: nothing to run.
  ASSERT_TRUE(MigrateSchema(conn.get(), 8, nullptr).ok());
  plan = PlanMigration(conn.get(), 8);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->steps.empty());
  EXPECT_EQ(plan->from_version, kSchemaVersion);
}

TEST_F(MigrationsTest, FailedStepLeavesTheVersionBefore) {
  ASSERT_TRUE(ExecSql(db_->conninfo(), kVersionOneDdl).ok());
  // Something in the way of the 1 -> 2 step.
  ASSERT_TRUE(ExecSql(db_->conninfo(), "CREATE SEQUENCE tw_version_seq").ok());
  Conn conn = Connect(db_->conninfo());
  auto applied = MigrateSchema(conn.get(), 8, nullptr);
  EXPECT_FALSE(applied.ok());
  EXPECT_EQ(Version(), 1);
  EXPECT_EQ(Query("SELECT count(*) FROM information_schema.columns "
                  "WHERE table_name = 'tw_slot_lease' AND "
                  "column_name = 'horizon_us'"),
            0);
  // The connection is usable afterwards (the transaction was ended).
  EXPECT_TRUE(ReadSchemaVersion(conn.get()).ok());
}

TEST_F(MigrationsTest, NewerSchemaIsRefusedNamingBothVersions) {
  Conn conn = Connect(db_->conninfo());
  ASSERT_TRUE(MigrateSchema(conn.get(), 8, nullptr).ok());
  // One version past this library's (a literal would stop being newer when
  // the next step is added).
  const int64_t newer = kSchemaVersion + 1;
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      absl::StrCat("UPDATE tw_meta SET value = ", newer,
                                   " WHERE key = 'schema_version'"))
                  .ok());
  for (bool dry_run : {true, false}) {
    absl::Status status = dry_run
                              ? PlanMigration(conn.get(), 8).status()
                              : MigrateSchema(conn.get(), 8, nullptr).status();
    EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
    EXPECT_NE(status.message().find(absl::StrCat("version ", newer)),
              std::string::npos)
        << status;
    EXPECT_NE(status.message().find(absl::StrCat("version ", kSchemaVersion)),
              std::string::npos)
        << status;
  }
  EXPECT_EQ(Version(), newer);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
