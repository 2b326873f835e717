// Copyright 2026 The timingwheel Authors.
//
// The schema's forward steps and their runner; see migrations.h.

#include "durable/sql/migrations.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/producer_functions.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// Serializes migrations between processes (an arbitrary constant, the one
// every version of this library has used).
constexpr int64_t kSchemaLockKey = 0x74775f736368656dLL;  // "tw_schem"

// Creation: the schema as version 2 made it first.
constexpr char kCreateV2[] = R"sql(
CREATE TABLE tw_meta (
  key text PRIMARY KEY,
  value bigint NOT NULL);
CREATE FUNCTION tw_now_us() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$;
CREATE SEQUENCE tw_version_seq CACHE 1000;
CREATE TABLE tw_timer (
  task_id bytea PRIMARY KEY,
  slot integer NOT NULL,
  due_us bigint NOT NULL,
  state smallint NOT NULL,
  version bigint NOT NULL DEFAULT nextval('tw_version_seq'),
  epoch bigint NOT NULL DEFAULT 0,
  attempt integer NOT NULL DEFAULT 0,
  payload bytea NOT NULL,
  last_error bytea,
  finished_us bigint);
CREATE INDEX tw_timer_live ON tw_timer (slot, due_us) WHERE state < 3;
CREATE INDEX tw_timer_finished ON tw_timer (slot, finished_us)
  WHERE state >= 3;
CREATE TABLE tw_slot_lease (
  slot integer PRIMARY KEY,
  owner text,
  epoch bigint NOT NULL DEFAULT 0,
  lease_until_us bigint NOT NULL DEFAULT 0,
  horizon_us bigint NOT NULL DEFAULT 0) WITH (fillfactor = 50);
CREATE TABLE tw_node (
  node_id text PRIMARY KEY,
  heartbeat_us bigint NOT NULL);
)sql";

// Version 1 to 2: versions come from one sequence (an id cancelled and
// scheduled again never reuses an old (id, version)); each lease row
// records its owner's horizon (inserters notify owners of rows due within
// it); lease rows leave room for in-place (HOT) renewals.
constexpr char kMigrateV1ToV2[] = R"sql(
CREATE SEQUENCE tw_version_seq CACHE 1000;
SELECT setval('tw_version_seq',
              (SELECT coalesce(max(version), 0) + 1 FROM tw_timer));
ALTER TABLE tw_timer ALTER COLUMN version
  SET DEFAULT nextval('tw_version_seq');
ALTER TABLE tw_slot_lease ADD COLUMN horizon_us bigint NOT NULL DEFAULT 0;
ALTER TABLE tw_slot_lease SET (fillfactor = 50);
)sql";

// Version 2 to 3: recurring schedules (schedule_store.h). Their
// occurrences are ordinary tw_timer rows; tw_timer is unchanged.
constexpr char kMigrateV2ToV3[] = R"sql(
CREATE TABLE tw_schedule (
  name bytea PRIMARY KEY,
  slot integer NOT NULL,
  every_us bigint NOT NULL,
  anchor_us bigint NOT NULL,
  cron text NOT NULL,
  zone text NOT NULL,
  payload bytea NOT NULL,
  overlap integer NOT NULL,
  catch_up integer NOT NULL,
  grace_us bigint NOT NULL,
  max_runs integer NOT NULL,
  paused boolean NOT NULL,
  last_us bigint NOT NULL,
  plan_us bigint NOT NULL,
  next_us bigint NOT NULL,
  version bigint NOT NULL DEFAULT nextval('tw_version_seq'),
  created_us bigint NOT NULL,
  updated_us bigint NOT NULL) WITH (fillfactor = 70);
CREATE INDEX tw_schedule_due ON tw_schedule (slot, plan_us) WHERE NOT paused;
)sql";

// Version 3 to 4: task kinds and priorities (on tasks and schedules), the
// registry of kinds schedulers handle, and each attempt's record. Columns
// with constant defaults are added without rewriting the tables. A task's
// attempts go with its row (ON DELETE CASCADE: cleanup, cancel, discard).
constexpr char kMigrateV3ToV4[] = R"sql(
ALTER TABLE tw_timer ADD COLUMN kind text NOT NULL DEFAULT '';
ALTER TABLE tw_timer ADD COLUMN priority smallint NOT NULL DEFAULT 0;
ALTER TABLE tw_schedule ADD COLUMN kind text NOT NULL DEFAULT '';
ALTER TABLE tw_schedule ADD COLUMN priority smallint NOT NULL DEFAULT 0;
CREATE TABLE tw_kind (
  kind text PRIMARY KEY,
  node_id text NOT NULL,
  registered_us bigint NOT NULL);
CREATE TABLE tw_attempt (
  task_id bytea NOT NULL REFERENCES tw_timer (task_id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  outcome smallint NOT NULL,
  node_id text NOT NULL,
  started_us bigint NOT NULL,
  finished_us bigint NOT NULL,
  error bytea);
CREATE INDEX tw_attempt_task ON tw_attempt (task_id, finished_us);
)sql";

// Version 4 to 5: a state change that does not finish a task is a HOT
// update (in place, no new index entries). The partial indexes name
// `finished_us`, not `state`, in their predicates (a column in an index
// predicate makes every update that changes it write every index), and the
// task table leaves half of each page free: rows stored together are often
// due together, and a statement that claims or fires all of a page's rows
// needs room on that page for a new version of each (at 80, a fifth of
// them; StorePlansTest.StateChangesBeforeTheEndUpdateInPlace).
// Finished rows are exactly the rows with a finished time (the first two
// statements repair any row that says otherwise, none expected). Each
// index is rebuilt while the step holds its lock: writers wait for the
// build (seconds per million rows).
constexpr char kMigrateV4ToV5[] = R"sql(
UPDATE tw_timer SET finished_us = NULL
  WHERE state < 3 AND finished_us IS NOT NULL;
UPDATE tw_timer SET finished_us = tw_now_us()
  WHERE state >= 3 AND finished_us IS NULL;
ALTER TABLE tw_timer SET (fillfactor = 50);
DROP INDEX IF EXISTS tw_timer_live;
CREATE INDEX tw_timer_live ON tw_timer (slot, due_us)
  WHERE finished_us IS NULL;
DROP INDEX IF EXISTS tw_timer_finished;
CREATE INDEX tw_timer_finished ON tw_timer (slot, finished_us)
  WHERE finished_us IS NOT NULL;
)sql";

// Version 6 to 7: the fire by slot (`DurableOptions::fire_by_slot`)
// starts a slot's due rows higher priority first: each distinct priority
// among the live rows is one range of this index per slot, so that a fire
// reads the rows it takes (and one probe per priority in use), whatever
// rows of other priorities wait later. The build holds its lock: writers
// wait (seconds per million rows). No row changes.
constexpr char kMigrateV6ToV7[] = R"sql(
CREATE INDEX IF NOT EXISTS tw_timer_priority
  ON tw_timer (priority DESC, slot, due_us) WHERE finished_us IS NULL;
)sql";

constexpr MigrationStep kSteps[] = {
    {0, 2, "create the schema", "none (creates new tables)", kCreateV2},
    {1, 2,
     "one version sequence; the owner's horizon in each lease row; lease "
     "rows with room for in-place renewals",
     "ACCESS EXCLUSIVE on tw_timer and tw_slot_lease until the step commits "
     "(no table is rewritten: a moment, once the lock is granted)",
     kMigrateV1ToV2},
    {2, 3, "recurring schedules (tw_schedule)", "none (creates a new table)",
     kMigrateV2ToV3},
    {3, 4,
     "task kinds and priorities; the registry of kinds (tw_kind); attempt "
     "history (tw_attempt)",
     "ACCESS EXCLUSIVE on tw_timer and tw_schedule until the step commits "
     "(columns with constant defaults: no rewrite, a moment)",
     kMigrateV3ToV4},
    {4, 5,
     "state changes that do not finish a task update in place (HOT): "
     "index predicates on finished_us, task table fillfactor 50",
     "ACCESS EXCLUSIVE on tw_timer until the step commits, while its two "
     "partial indexes are rebuilt: every read and write of tasks waits "
     "(seconds per million rows)",
     kMigrateV4ToV5},
    {5, 6,
     "SQL functions that schedule, replace and cancel tasks from any client "
     "(tw_schedule_task() and others: producer_functions.h)",
     "none (creates functions only)", kProducerFunctionsSql},
    {6, 7,
     "the fire by slot reads live tasks by priority (index "
     "tw_timer_priority)",
     "SHARE on tw_timer until the step commits, while the index is built: "
     "every write of tasks waits, reads go on (seconds per million rows)",
     kMigrateV6ToV7},
};

// The runner's own statements (parameterized).
constexpr char kStepTimeoutsSql[] =
    "SET LOCAL statement_timeout = '2min';\nSET LOCAL lock_timeout = '10s';\n";
constexpr char kLockSql[] = "SELECT pg_advisory_xact_lock($1)";
constexpr char kHasMetaSql[] =
    "SELECT to_regclass('tw_meta') IS NOT NULL AS present";
constexpr char kReadMetaSql[] = R"sql(
SELECT (SELECT value FROM tw_meta WHERE key = 'schema_version') AS version,
       (SELECT value FROM tw_meta WHERE key = 'slot_count') AS slot_count
)sql";
constexpr char kInsertMetaSql[] =
    "INSERT INTO tw_meta VALUES ('schema_version', $1), ('slot_count', $2)";
constexpr char kInsertSlotsSql[] =
    "INSERT INTO tw_slot_lease (slot) SELECT generate_series(0, $1 - 1)";
constexpr char kSetVersionSql[] =
    "UPDATE tw_meta SET value = $1 WHERE key = 'schema_version'";

const MigrationStep* StepFrom(int64_t version) {
  for (const MigrationStep& step : kSteps) {
    if (step.from == version) return &step;
  }
  return nullptr;
}

absl::Status NewerError(int64_t version) {
  return absl::FailedPreconditionError(absl::StrCat(
      "the database holds timingwheel schema version ", version,
      ", newer than the version ", kSchemaVersion,
      " this library understands: upgrade the library before pointing it "
      "at this database"));
}

absl::Status UnknownError(int64_t version) {
  return absl::FailedPreconditionError(
      absl::StrCat("unknown timingwheel schema version ", version,
                   " (this library knows versions up to ", kSchemaVersion,
                   " and migrates none from ", version, ")"));
}

// The step to run from `version` (nullptr when up to date), or why none.
absl::StatusOr<const MigrationStep*> NextStep(int64_t version) {
  if (version == kSchemaVersion) return nullptr;
  if (version > kSchemaVersion) return NewerError(version);
  const MigrationStep* step = StepFrom(version);
  if (step == nullptr) return UnknownError(version);
  return step;
}

// `sql` with its parameters $1, $2 written in: the values are the
// library's own integers, so the text is safe to print and to run.
std::string WithValues(absl::string_view sql, int64_t first,
                       int64_t second = 0) {
  return absl::StrReplaceAll(
      sql, {{"$1", absl::StrCat(first)}, {"$2", absl::StrCat(second)}});
}

// The runner's statements of `step`, as text for a dry run.
std::string RunnerText(const MigrationStep& step, int slot_count) {
  if (step.from == 0) {
    return absl::StrCat(WithValues(kInsertMetaSql, step.to, slot_count), ";\n",
                        WithValues(kInsertSlotsSql, slot_count), ";\n");
  }
  return absl::StrCat(WithValues(kSetVersionSql, step.to), ";\n");
}

absl::Status ApplyStep(PGconn* conn, const MigrationStep& step,
                       int slot_count) {
  absl::Status status = PgExecScript(conn, step.sql);
  if (!status.ok()) return status;
  if (step.from == 0) {
    status = PgExec(conn, kInsertMetaSql,
                    PgParams().Int64(step.to).Int64(slot_count))
                 .status();
    if (!status.ok()) return status;
    return PgExec(conn, kInsertSlotsSql, PgParams().Int32(slot_count)).status();
  }
  return PgExec(conn, kSetVersionSql, PgParams().Int64(step.to)).status();
}

}  // namespace

absl::Span<const MigrationStep> MigrationSteps() { return kSteps; }

absl::StatusOr<SchemaInfo> ReadSchemaVersion(PGconn* conn) {
  absl::StatusOr<PgResult> r = PgExec(conn, kHasMetaSql);
  if (!r.ok()) return r.status();
  SchemaInfo info;
  if (PgRow(*r, 0).Int("present") == 0) return info;
  r = PgExec(conn, kReadMetaSql);
  if (!r.ok()) return r.status();
  PgRow row(*r, 0);
  if (row.IsNull("version")) {
    return absl::FailedPreconditionError(
        "tw_meta exists but holds no schema_version: not a timingwheel "
        "store, or a damaged one");
  }
  info.version = row.Int("version");
  info.slot_count = row.Int("slot_count");
  if (!row.status().ok()) return row.status();
  if (info.version < 1) return UnknownError(info.version);
  return info;
}

absl::StatusOr<MigrationPlan> PlanMigration(PGconn* conn, int slot_count) {
  absl::StatusOr<SchemaInfo> info = ReadSchemaVersion(conn);
  if (!info.ok()) return info.status();
  MigrationPlan plan;
  plan.from_version = info->version;
  plan.to_version = kSchemaVersion;
  for (int64_t version = info->version;;) {
    absl::StatusOr<const MigrationStep*> step = NextStep(version);
    if (!step.ok()) return step.status();
    if (*step == nullptr) break;
    PlannedStep planned;
    planned.from = (*step)->from;
    planned.to = (*step)->to;
    planned.description = (*step)->description;
    planned.locks = (*step)->locks;
    planned.sql = absl::StrCat(
        "BEGIN;\n", kStepTimeoutsSql, WithValues(kLockSql, kSchemaLockKey),
        ";\n", (*step)->sql, RunnerText(**step, slot_count), "COMMIT;\n");
    plan.steps.push_back(std::move(planned));
    version = (*step)->to;
  }
  return plan;
}

absl::StatusOr<MigrationPlan> MigrateSchema(PGconn* conn, int slot_count,
                                            SchemaInfo* info) {
  MigrationPlan applied;
  applied.to_version = kSchemaVersion;
  for (bool first = true;; first = false) {
    absl::Status status = PgExec(conn, "BEGIN").status();
    if (!status.ok()) return status;
    auto fail = [conn](absl::Status error) {
      (void)PgExec(conn, "ROLLBACK");
      return error;
    };
    // A step's DDL may take longer than the session's statement timeout (a
    // quarter of a lease TTL for a scheduler, set for its hot statements):
    // give the step its own, for this transaction only. Lock waits (another
    // migrator, a table in use) stay short, so that a step never queues
    // live traffic behind its locks for long.
    status = PgExecScript(conn, kStepTimeoutsSql);
    if (!status.ok()) return fail(status);
    status = PgExec(conn, kLockSql, PgParams().Int64(kSchemaLockKey)).status();
    if (!status.ok()) return fail(status);
    // Read again under the lock: another process may have run the step.
    absl::StatusOr<SchemaInfo> now = ReadSchemaVersion(conn);
    if (!now.ok()) return fail(now.status());
    if (first) applied.from_version = now->version;
    absl::StatusOr<const MigrationStep*> step = NextStep(now->version);
    if (!step.ok()) return fail(step.status());
    if (*step == nullptr) {
      status = PgExec(conn, "COMMIT").status();
      if (!status.ok()) return status;
      if (info != nullptr) *info = *now;
      return applied;
    }
    status = ApplyStep(conn, **step, slot_count);
    if (!status.ok()) return fail(status);
    status = PgExec(conn, "COMMIT").status();
    if (!status.ok()) return status;
    PlannedStep done;
    done.from = (*step)->from;
    done.to = (*step)->to;
    done.description = (*step)->description;
    done.locks = (*step)->locks;
    done.sql = (*step)->sql;
    applied.steps.push_back(std::move(done));
  }
}

}  // namespace durable_internal
}  // namespace timingwheel
