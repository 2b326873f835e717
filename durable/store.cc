// Copyright 2026 The timingwheel Authors.
//
// Every SQL statement of the durable tier. Each is constant text with $n
// parameters; see store.h for the schema and the contract of each.

#include "durable/store.h"

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "durable/occurrence_id.h"
#include "durable/pg_params.h"
#include "durable/redact.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// States as stored (TaskState's values).
static_assert(static_cast<int>(TaskState::kPending) == 0, "");
static_assert(static_cast<int>(TaskState::kScheduled) == 1, "");
static_assert(static_cast<int>(TaskState::kRunning) == 2, "");
static_assert(static_cast<int>(TaskState::kSuccess) == 3, "");
static_assert(static_cast<int>(TaskState::kFailed) == 4, "");

// Rows in (always PENDING), the rows inserted out, each flagged when its
// slot is the inserter's (with the lease epoch read) and it is due within
// the inserter's horizon (the inserter then loads it at once). Rows of other
// owners due within that owner's horizon wake those owners at commit
// (pg_notify; "*" when the slots' list is longer than $9 bytes).
constexpr char kInsertSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
input AS (
  SELECT i.task_id, i.slot, i.payload, convert_from(i.kind, 'UTF8') AS kind,
         i.priority,
         CASE WHEN i.relative THEN n.now + i.due ELSE i.due END AS due_us
  FROM unnest($1::bytea[], $2::int4[], $3::int8[], $4::bool[], $5::bytea[],
              $10::bytea[], $11::int2[])
         AS i(task_id, slot, due, relative, payload, kind, priority), n
  WHERE (SELECT value FROM tw_meta WHERE key = 'slot_count') = $6),
ins AS (
  INSERT INTO tw_timer (task_id, slot, due_us, state, payload, kind, priority)
  SELECT task_id, slot, due_us, 0, payload, kind, priority FROM input
  ON CONFLICT (task_id) DO NOTHING
  RETURNING task_id, slot, due_us, kind, priority),
flagged AS (
  SELECT ins.task_id, ins.slot, ins.due_us, ins.kind, ins.priority, l.epoch,
         l.horizon_us,
         coalesce(l.owner = $7 AND l.lease_until_us > n.now, false) AS mine
  FROM ins JOIN tw_slot_lease l ON l.slot = ins.slot, n),
woken AS (
  SELECT string_agg(DISTINCT slot::text, ',') AS slots
  FROM flagged WHERE NOT mine AND due_us < (SELECT now FROM n) + horizon_us),
notified AS (
  SELECT pg_notify('timingwheel',
                   CASE WHEN length(slots) > $9 THEN '*' ELSE slots END)
  FROM woken WHERE slots IS NOT NULL)
SELECT task_id, slot, due_us,
       mine AND due_us < (SELECT now FROM n) + $8,
       (SELECT now FROM n), (SELECT count(*) FROM notified), epoch, kind,
       priority
FROM flagged
)sql";

// Wakes the owners of the given (slot, due) pairs due within their
// horizons, as the insert statement does ("*" past $3 bytes).
constexpr char kNotifyDueSql[] = R"sql(
WITH woken AS (
  SELECT string_agg(DISTINCT l.slot::text, ',') AS slots
  FROM unnest($1::int4[], $2::int8[]) AS r(slot, due_us)
  JOIN tw_slot_lease l ON l.slot = r.slot
  WHERE r.due_us < tw_now_us() + l.horizon_us)
SELECT pg_notify('timingwheel',
                 CASE WHEN length(slots) > $3 THEN '*' ELSE slots END)
FROM woken WHERE slots IS NOT NULL
)sql";

// For ids that were not inserted: does the stored row match the request?
// And where is it (slot, due time, PENDING or not), as of the clock now.
constexpr char kConflictSql[] = R"sql(
SELECT i.task_id, t.task_id IS NOT NULL,
       coalesce(t.payload = i.payload AND (i.relative OR t.due_us = i.due)
                AND t.kind = convert_from(i.kind, 'UTF8')
                AND t.priority = i.priority,
                false),
       t.slot, t.due_us, coalesce(t.state = 0, false), tw_now_us(), t.kind,
       t.priority
FROM unnest($1::bytea[], $2::int8[], $3::bool[], $4::bytea[], $5::bytea[],
            $6::int2[])
       AS i(task_id, due, relative, payload, kind, priority)
LEFT JOIN tw_timer t ON t.task_id = i.task_id
)sql";

constexpr char kCancelSql[] = R"sql(
DELETE FROM tw_timer WHERE task_id = $1 AND state < 2 RETURNING slot
)sql";

constexpr char kGetSql[] = R"sql(
SELECT state, attempt, due_us, slot, last_error, kind, priority FROM tw_timer
WHERE task_id = $1
)sql";

constexpr char kHeartbeatSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
hb AS (
  INSERT INTO tw_node (node_id, heartbeat_us) SELECT $1, now FROM n
  ON CONFLICT (node_id) DO UPDATE SET heartbeat_us = EXCLUDED.heartbeat_us
  RETURNING node_id)
SELECT 1 + (SELECT count(*) FROM tw_node, n
            WHERE heartbeat_us > n.now - $2 AND node_id <> $1)
FROM hb
)sql";

constexpr char kRenewSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now)
UPDATE tw_slot_lease l SET lease_until_us = n.now + $4, horizon_us = $5
FROM unnest($2::int4[], $3::int8[]) AS m(slot, epoch), n
WHERE l.slot = m.slot AND l.epoch = m.epoch AND l.owner = $1
  AND l.lease_until_us > n.now
RETURNING l.slot
)sql";

// Takes free or expired slots (SKIP LOCKED: concurrent takers get disjoint
// slots), bumps their epochs, and re-stamps their unfinished claimed rows.
constexpr char kAcquireSql[] = R"sql(
WITH cand AS (
  SELECT slot FROM tw_slot_lease
  WHERE owner IS NULL OR lease_until_us <= tw_now_us()
  ORDER BY slot LIMIT $2
  FOR UPDATE SKIP LOCKED),
got AS (
  UPDATE tw_slot_lease l
  SET owner = $1, epoch = l.epoch + 1, lease_until_us = tw_now_us() + $3,
      horizon_us = $5
  FROM cand WHERE l.slot = cand.slot
  RETURNING l.slot, l.epoch),
restamped AS (
  UPDATE tw_timer t
  SET state = CASE WHEN t.state = 2 AND t.attempt >= $4 THEN 4 ELSE 0 END,
      finished_us = CASE WHEN t.state = 2 AND t.attempt >= $4
                         THEN tw_now_us() END,
      epoch = got.epoch, version = nextval('tw_version_seq')
  FROM got WHERE t.slot = got.slot AND t.state IN (1, 2)
  RETURNING 1)
SELECT slot, epoch, (SELECT count(*) FROM restamped) FROM got
)sql";

constexpr char kReleaseSql[] = R"sql(
UPDATE tw_slot_lease l SET owner = NULL, lease_until_us = 0
FROM unnest($2::int4[], $3::int8[]) AS m(slot, epoch)
WHERE l.slot = m.slot AND l.epoch = m.epoch AND l.owner = $1
)sql";

// This owner's RUNNING rows that no handler of its own is running (an
// abandoned attempt, or a fire whose reply was lost) go back to PENDING (or
// FAILED when their last allowed attempt had started); with $6, after a
// lost connection, its SCHEDULED rows too (a load or a retry whose reply
// was lost committed rows that no wheel holds), so the next load claims
// them again.
constexpr char kRequeueOrphansSql[] = R"sql(
UPDATE tw_timer t
SET state = CASE WHEN t.state = 2 AND t.attempt >= $5 THEN 4 ELSE 0 END,
    finished_us = CASE WHEN t.state = 2 AND t.attempt >= $5
                       THEN tw_now_us() END,
    version = nextval('tw_version_seq')
FROM unnest($2::int4[], $3::int8[]) AS m(slot, epoch), tw_slot_lease l
WHERE t.slot = m.slot AND t.epoch = m.epoch
  AND ((t.state = 2 AND NOT (t.task_id = ANY($4::bytea[])))
       OR (t.state = 1 AND $6))
  AND l.slot = m.slot AND l.epoch = m.epoch AND l.owner = $1
)sql";

constexpr char kRemoveNodeSql[] = R"sql(
DELETE FROM tw_node WHERE node_id = $1
)sql";

// The horizon load: one statement for all the slots this node holds. It
// locks the lease rows it claims under (FOR SHARE) until it commits: a
// takeover either waits and is skipped (its FOR UPDATE SKIP LOCKED passes
// the slot over until the next round, when it re-stamps what this load
// committed), or committed first, and then this load re-reads the lease row
// and claims nothing in that slot. The
// last column reads the database's clock again as each row is returned (not
// `n.now`, read when the statement started): the process converts due times
// with the latest reading, so a slow statement does not make every task it
// loads fire late by its run time.
constexpr char kClaimSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
mine AS (
  SELECT l.slot, l.epoch
  FROM tw_slot_lease l
  JOIN unnest($2::int4[], $3::int8[]) AS m(slot, epoch)
    ON l.slot = m.slot AND l.epoch = m.epoch, n
  WHERE l.owner = $1 AND l.lease_until_us > n.now
  FOR SHARE OF l),
c AS (
  SELECT t.task_id, mine.epoch
  FROM tw_timer t JOIN mine ON t.slot = mine.slot
  WHERE t.state = 0 AND t.due_us < (SELECT now FROM n) + $4
  ORDER BY t.due_us, t.priority DESC LIMIT $5
  FOR UPDATE OF t SKIP LOCKED)
UPDATE tw_timer t SET state = 1, epoch = c.epoch, version = nextval('tw_version_seq')
FROM c WHERE t.task_id = c.task_id
RETURNING t.task_id, t.slot, t.due_us, t.epoch, tw_now_us(), t.kind,
          t.priority
)sql";

// The fire CAS: SCHEDULED -> RUNNING for the due rows, claimed under their
// slot's current epoch, of slots this node holds under a valid lease. The
// row's `attempt` (attempts started) is not incremented here: the attempt
// returned is the next one, and it counts once its handler has started
// (kMarkStartedSql, or its completion). A process killed between this
// statement and the handler's start leaves a RUNNING row whose attempt was
// never counted; the next owner runs it under the same number.
//
// Also returns the rows that are not due yet on the database's clock. The
// batch (`unnest` WITH ORDINALITY, in the caller's order) drives a nested
// loop over the primary key: one probe per id, whatever the statistics say.
// The lease check is a subquery kept as a SubPlan (OFFSET 0 stops it from
// becoming a join): one probe of the lease table's key per row, never a
// rescan of its rows. Due-ness is checked against `n.now`; the last column
// is a later reading, for converting the not-due rows' due times.
constexpr char kStartSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
b AS (
  SELECT b.task_id, b.ord
  FROM unnest($2::bytea[]) WITH ORDINALITY AS b(task_id, ord)),
run AS (
  UPDATE tw_timer t
  SET state = 2, version = nextval('tw_version_seq')
  FROM b, n
  WHERE t.task_id = b.task_id AND t.state = 1 AND t.due_us <= n.now
    AND EXISTS (
      SELECT FROM tw_slot_lease l
      WHERE l.slot = t.slot AND l.epoch = t.epoch AND l.owner = $1
        AND l.lease_until_us > n.now OFFSET 0)
  RETURNING t.task_id, t.payload, t.attempt + 1 AS attempt, t.version,
            t.due_us, t.slot, t.epoch, t.kind, t.priority),
early AS (
  SELECT t.task_id, t.slot, t.due_us, t.epoch, t.kind, t.priority
  FROM b JOIN tw_timer t ON t.task_id = b.task_id, n
  WHERE t.state = 1 AND t.due_us > n.now)
SELECT true, task_id, payload, attempt, version, due_us, slot, epoch,
       tw_now_us(), kind, priority, (SELECT now FROM n) FROM run
UNION ALL
SELECT false, task_id, NULL, 0, 0, due_us, slot, epoch, tw_now_us(), kind,
       priority, (SELECT now FROM n)
FROM early
)sql";

// Outcomes of a batch: compare-and-set on RUNNING and the attempt's version.
// Outcome 3 (snooze) is due again like a retry, keeps the last error unless
// it gives one, and uncounts its attempt (the start mark may have counted
// it). The batch (`unnest` WITH ORDINALITY) drives a nested loop over the
// primary key: one probe per completion, whatever the statistics say.
// Retries are due `n.now` + backoff; the sixth column is a later reading of
// the clock, for converting their due times. With $9, each written outcome
// leaves its attempt's record (tw_attempt; outcome codes as `Outcome`,
// which AttemptOutcome repeats), from the rows the update wrote: an
// outcome the compare-and-set refused records nothing.
constexpr char kCompleteSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
done AS (
  UPDATE tw_timer t
  SET state = CASE c.outcome WHEN 0 THEN 3 WHEN 2 THEN 4
                   ELSE CASE WHEN c.backoff_us < $6 THEN 1 ELSE 0 END END,
      due_us = CASE WHEN c.outcome IN (1, 3) THEN n.now + c.backoff_us
                    ELSE t.due_us END,
      finished_us = CASE WHEN c.outcome IN (1, 3) THEN NULL ELSE n.now END,
      last_error = CASE WHEN c.outcome = 0 THEN t.last_error
                        WHEN c.outcome = 3 AND length(c.error) = 0
                          THEN t.last_error
                        ELSE c.error END,
      attempt = CASE WHEN c.outcome = 3 THEN least(t.attempt, c.attempt - 1)
                     ELSE greatest(t.attempt, c.attempt) END,
      version = nextval('tw_version_seq')
  FROM unnest($1::bytea[], $2::int8[], $3::int2[], $4::int8[], $5::bytea[],
              $7::int4[], $10::int8[]) WITH ORDINALITY
         AS c(task_id, version, outcome, backoff_us, error, attempt,
              started_us, ord), n
  WHERE t.task_id = c.task_id
    AND t.state = 2 AND t.version = c.version
  RETURNING t.task_id, t.slot, t.state, t.due_us, t.epoch, t.kind,
            t.priority, c.outcome, c.attempt, c.started_us, c.error, n.now),
history AS (
  INSERT INTO tw_attempt (task_id, attempt, outcome, node_id, started_us,
                          finished_us, error)
  SELECT task_id, attempt, outcome, $8, started_us, now, nullif(error, '')
  FROM done WHERE $9)
SELECT task_id, slot, state, due_us, epoch, tw_now_us(), kind, priority
FROM done
)sql";

// The kinds of a batch that no scheduler registered.
constexpr char kUnknownKindsSql[] = R"sql(
SELECT k.kind FROM unnest($1::text[]) AS k(kind)
WHERE NOT EXISTS (SELECT FROM tw_kind WHERE tw_kind.kind = k.kind)
)sql";

constexpr char kRegisterKindsSql[] = R"sql(
INSERT INTO tw_kind (kind, node_id, registered_us)
SELECT k, $1, tw_now_us() FROM unnest($2::text[]) AS k
ON CONFLICT (kind) DO UPDATE
SET node_id = EXCLUDED.node_id, registered_us = EXCLUDED.registered_us
)sql";

// Counts started attempts: the row is still RUNNING under the version the
// fire gave it. Leaves the version alone (the completion's compare-and-set
// still matches).
constexpr char kMarkStartedSql[] = R"sql(
UPDATE tw_timer t SET attempt = m.attempt
FROM unnest($1::bytea[], $2::int8[], $3::int4[]) AS m(task_id, version, attempt)
WHERE t.task_id = m.task_id AND t.version = m.version AND t.state = 2
  AND t.attempt < m.attempt
)sql";

// The outer conditions repeat the inner ones: a DELETE that waited on a row
// lock re-checks only them on the row's new version, so a row that a
// replacement or a retry turned back to PENDING meanwhile is kept
// (ReplaceTest.AReplacementRacingTheCleanupKeepsTheTask).
constexpr char kDeleteFinishedSql[] = R"sql(
DELETE FROM tw_timer WHERE task_id IN (
  SELECT task_id FROM tw_timer
  WHERE slot = ANY($1::int4[]) AND state >= 3
    AND finished_us < tw_now_us() - $2
  LIMIT $3)
  AND state >= 3 AND finished_us < tw_now_us() - $2
)sql";

bool IsConnectionError(const char* sqlstate) {
  if (sqlstate == nullptr) return false;
  absl::string_view code(sqlstate);
  // Class 08: connection exception; 57P01-57P03: the server is shutting
  // down, crashed or starting.
  // 25006: a read-only server (a standby, or a primary demoted by a
  // failover): reconnect, and the connection string's
  // target_session_attrs=read-write finds the new primary.
  return absl::StartsWith(code, "08") || code == "57P01" || code == "57P02" ||
         code == "57P03" || code == "25006";
}

// `message` without the connection's password.
std::string Scrubbed(PGconn* conn, absl::string_view message) {
  std::vector<std::string> secrets;
  const char* password = conn != nullptr ? PQpass(conn) : nullptr;
  if (password != nullptr && password[0] != '\0') secrets.push_back(password);
  return ScrubSecrets(message, secrets);
}

// The result of one statement, or its error: Unavailable when the
// connection is lost.
absl::StatusOr<PgResult> CheckResult(PGconn* conn, PgResult result) {
  ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    return result;
  }
  const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
  std::string message =
      result.get() != nullptr ? PQresultErrorMessage(result.get()) : "";
  if (message.empty()) message = PQerrorMessage(conn);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  message = Scrubbed(conn, message);
  if (PQstatus(conn) == CONNECTION_BAD || IsConnectionError(sqlstate)) {
    return absl::UnavailableError(
        absl::StrCat("PostgreSQL connection lost: ", message));
  }
  if (sqlstate != nullptr && absl::string_view(sqlstate) == "23505") {
    return absl::AlreadyExistsError(message);
  }
  if (sqlstate != nullptr && (absl::string_view(sqlstate) == "57014" ||
                              absl::string_view(sqlstate) == "55P03")) {
    // statement_timeout or lock_timeout (SessionLimits).
    return absl::DeadlineExceededError(
        absl::StrCat("PostgreSQL statement timed out: ", message));
  }
  return absl::InternalError(absl::StrCat("PostgreSQL: ", message));
}

// Runs one statement. Unavailable when the connection is lost.
absl::StatusOr<PgResult> Exec(PGconn* conn, const char* sql,
                              const PgParams& params) {
  return CheckResult(
      conn, PgResult(PQexecParams(conn, sql, params.size(), params.types(),
                                  params.values(), params.lengths(),
                                  params.formats(), /*resultFormat=*/1)));
}

absl::StatusOr<PgResult> Exec(PGconn* conn, const char* sql) {
  return Exec(conn, sql, PgParams());
}

// LISTEN on both channels: slots' wake-ups, and running tasks to stop (one
// statement each: the extended protocol takes one at a time).
absl::Status ListenToBoth(PGconn* conn) {
  absl::Status status = Exec(conn, "LISTEN timingwheel").status();
  if (!status.ok()) return status;
  return Exec(conn, "LISTEN timingwheel_stop").status();
}

// Server notices (NOTICE, WARNING) are not errors; libpq would print them.
void IgnoreNotice(void*, const char*) {}

void SplitSlots(absl::Span<const SlotEpoch> owned, std::vector<int32_t>* slots,
                std::vector<int64_t>* epochs) {
  for (const SlotEpoch& s : owned) {
    slots->push_back(s.slot);
    epochs->push_back(s.epoch);
  }
}

// Rows of (task_id, slot, due_us, epoch, <one column>, kind, priority).
std::vector<WheelEntry> ReadEntries(const PgResult& r, int id_col) {
  std::vector<WheelEntry> entries;
  entries.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) {
    WheelEntry e;
    e.id = r.Bytes(i, id_col);
    e.slot = static_cast<int>(r.Int(i, id_col + 1));
    e.due_us = r.Int(i, id_col + 2);
    e.epoch = r.Int(i, id_col + 3);
    e.kind = r.Bytes(i, id_col + 5);
    e.priority = static_cast<int>(r.Int(i, id_col + 6));
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace

std::string RedactedConnInfo(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "(unparsable connection string)";
  }
  std::string out;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    absl::string_view key(o->keyword);
    if (key == "host" || key == "hostaddr" || key == "port" ||
        key == "dbname" || key == "user") {
      absl::StrAppend(&out, out.empty() ? "" : " ", key, "=", o->val);
    }
  }
  PQconninfoFree(options);
  return out.empty() ? "(defaults)" : out;
}

namespace {

// InsertTasks(), running the insert statement with `run_insert` (plain or
// prepared).
template <typename RunInsert>
absl::StatusOr<InsertResult> InsertTasksWith(PGconn* conn,
                                             const Inserter& inserter,
                                             absl::Span<const InsertRow> rows,
                                             const RunInsert& run_insert) {
  std::vector<absl::string_view> ids, payloads, kinds;
  std::vector<int32_t> slots;
  std::vector<int64_t> dues;
  std::vector<bool> relative;
  std::vector<int16_t> priorities;
  for (const InsertRow& row : rows) {
    ids.push_back(row.id);
    payloads.push_back(row.payload);
    slots.push_back(row.slot);
    dues.push_back(row.due_or_delay_us);
    relative.push_back(row.relative);
    kinds.push_back(row.kind);
    priorities.push_back(static_cast<int16_t>(row.priority));
  }
  PgParams params;
  params.BytesArray(ids)
      .Int32Array(slots)
      .Int64Array(dues)
      .BoolArray(relative)
      .BytesArray(payloads)
      .Int64(inserter.slot_count)
      .Text(inserter.node_id)
      .Int64(inserter.horizon_us)
      .Int64(kMaxNotifyPayloadBytes)
      .BytesArray(kinds)
      .Int16Array(priorities);
  absl::StatusOr<PgResult> inserted = run_insert(params);
  if (!inserted.ok()) return inserted.status();
  InsertResult result;
  for (int i = 0; i < inserted->rows(); ++i) {
    result.db_now_us = inserted->Int(i, 4);
    if (inserted->Int(i, 3) != 0) {
      WheelEntry e;
      e.id = inserted->Bytes(i, 0);
      e.slot = static_cast<int>(inserted->Int(i, 1));
      e.due_us = inserted->Int(i, 2);
      e.epoch = inserted->Int(i, 6);
      e.kind = inserted->Bytes(i, 7);
      e.priority = static_cast<int>(inserted->Int(i, 8));
      result.mine.push_back(std::move(e));
    }
  }
  if (inserted->rows() == static_cast<int>(rows.size())) return result;

  // Some ids exist already (or the slot count is wrong): identical retries
  // are fine, anything else is a conflict.
  PgParams check;
  check.BytesArray(ids)
      .Int64Array(dues)
      .BoolArray(relative)
      .BytesArray(payloads)
      .BytesArray(kinds)
      .Int16Array(priorities);
  absl::StatusOr<PgResult> conflicts = Exec(conn, kConflictSql, check);
  if (!conflicts.ok()) return conflicts.status();
  absl::flat_hash_set<std::string> fresh;  // Inserted by this statement.
  for (int i = 0; i < inserted->rows(); ++i) {
    fresh.insert(inserted->Bytes(i, 0));
  }
  for (int i = 0; i < conflicts->rows(); ++i) {
    if (conflicts->Int(i, 1) == 0) {
      return absl::FailedPreconditionError(
          "task not stored: the store's slot count differs from the "
          "scheduler's (or the schema is missing)");
    }
    if (conflicts->Int(i, 2) == 0) {
      return absl::AlreadyExistsError(
          "a task with this id exists with another payload, due time, "
          "kind or priority");
    }
    result.db_now_us = conflicts->Int(i, 6);
    std::string id = conflicts->Bytes(i, 0);
    if (conflicts->Int(i, 5) != 0 && !fresh.contains(id)) {
      WheelEntry e;
      e.id = std::move(id);
      e.slot = static_cast<int>(conflicts->Int(i, 3));
      e.due_us = conflicts->Int(i, 4);
      e.kind = conflicts->Bytes(i, 7);
      e.priority = static_cast<int>(conflicts->Int(i, 8));
      result.identical.push_back(std::move(e));
    }
  }
  return result;
}

}  // namespace

absl::Status CheckKinds(PGconn* conn, absl::Span<const InsertRow> rows,
                        absl::flat_hash_set<std::string>* known) {
  std::vector<absl::string_view> asked;
  absl::flat_hash_set<absl::string_view> seen;
  for (const InsertRow& row : rows) {
    if (row.kind.empty()) continue;
    if (known != nullptr && known->contains(row.kind)) continue;
    if (seen.insert(row.kind).second) asked.push_back(row.kind);
  }
  if (asked.empty()) return absl::OkStatus();
  PgParams params;
  params.TextArray(asked);
  absl::StatusOr<PgResult> r = Exec(conn, kUnknownKindsSql, params);
  if (!r.ok()) return r.status();
  if (r->rows() > 0) {
    return absl::NotFoundError(absl::StrCat(
        "unknown task kind \"", r->Bytes(0, 0),
        "\": no scheduler has registered it (DurableOptions::kinds); start a "
        "scheduler that handles it before scheduling its tasks"));
  }
  if (known != nullptr) {
    for (absl::string_view kind : asked) known->emplace(kind);
  }
  return absl::OkStatus();
}

absl::StatusOr<InsertResult> InsertTasks(PGconn* conn, const Inserter& inserter,
                                         absl::Span<const InsertRow> rows) {
  absl::Status kinds = CheckKinds(conn, rows, nullptr);
  if (!kinds.ok()) return kinds;
  return InsertTasksWith(conn, inserter, rows, [conn](const PgParams& params) {
    return Exec(conn, kInsertSql, params);
  });
}

absl::Status NotifyDue(PGconn* conn, absl::Span<const WheelEntry> entries) {
  if (entries.empty()) return absl::OkStatus();
  std::vector<int32_t> slots;
  std::vector<int64_t> dues;
  for (const WheelEntry& e : entries) {
    slots.push_back(e.slot);
    dues.push_back(e.due_us);
  }
  return Exec(conn, kNotifyDueSql,
              PgParams().Int32Array(slots).Int64Array(dues).Int64(
                  kMaxNotifyPayloadBytes))
      .status();
}

Store::~Store() { PQfinish(conn_); }

absl::StatusOr<std::unique_ptr<Store>> Store::Connect(
    const std::string& conninfo, SessionLimits limits) {
  std::vector<std::string> secrets = PasswordCandidates(conninfo);
  std::string parse_error;
  if (!ConnInfoParses(conninfo, &parse_error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid connection string: ", ScrubSecrets(parse_error, secrets)));
  }
  std::string redacted = RedactedConnInfo(conninfo);
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("libpq: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message =
        ScrubSecrets(Scrubbed(conn, PQerrorMessage(conn)), secrets);
    PQfinish(conn);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return absl::UnavailableError(absl::StrCat("cannot connect to PostgreSQL (",
                                               redacted, "): ", message));
  }
  PQsetNoticeProcessor(conn, &IgnoreNotice, nullptr);
  std::unique_ptr<Store> store(
      new Store(conn, std::move(redacted), std::move(secrets), limits));
  absl::Status status = store->ApplyLimits();
  if (!status.ok()) return status;
  return store;
}

absl::Status Store::ApplyLimits() {
  if (limits_.statement_timeout_ms <= 0 && limits_.lock_timeout_ms <= 0) {
    return absl::OkStatus();
  }
  return Exec(conn_,
              "SELECT set_config('statement_timeout', $1, false), "
              "set_config('lock_timeout', $2, false)",
              PgParams()
                  .Text(absl::StrCat(
                      std::max<int64_t>(0, limits_.statement_timeout_ms)))
                  .Text(absl::StrCat(
                      std::max<int64_t>(0, limits_.lock_timeout_ms))))
      .status();
}

absl::StatusOr<bool> Store::LockNode(const std::string& node) {
  // Waits (bounded by the session's lock_timeout): a process restarted
  // right after a crash finds its predecessor's session still ending.
  absl::StatusOr<PgResult> r =
      Exec(conn_,
           "SELECT pg_advisory_lock(hashtextextended('timingwheel node ' || "
           "$1, 0))",
           PgParams().Text(node));
  if (absl::IsDeadlineExceeded(r.status())) return false;
  if (!r.ok()) return r.status();
  return true;
}

absl::Status Store::Reconnect() {
  PQreset(conn_);
  prepared_.clear();  // A new session: its statements are not prepared.
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string message =
        ScrubSecrets(Scrubbed(conn_, PQerrorMessage(conn_)), secrets_);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return absl::UnavailableError(absl::StrCat(
        "cannot reconnect to PostgreSQL (", redacted_, "): ", message));
  }
  absl::Status status = ApplyLimits();
  if (!status.ok()) return status;
  if (listening_) return ListenToBoth(conn_);
  return absl::OkStatus();
}

absl::Status Store::EnsureSchema(int slot_count) {
  SchemaInfo info;
  absl::StatusOr<MigrationPlan> applied =
      MigrateSchema(conn_, slot_count, &info);
  if (!applied.ok()) return applied.status();
  if (info.slot_count != slot_count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store has ", info.slot_count, " slots, the scheduler asks for ",
        slot_count, ": the slot count is fixed when the store is created"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PgResult> Store::ExecPrepared(const char* name, const char* sql,
                                             const PgParams& params) {
  for (int attempt = 0;; ++attempt) {
    if (!prepared_.contains(name)) {
      absl::StatusOr<PgResult> prepared = CheckResult(
          conn_,
          PgResult(PQprepare(conn_, name, sql, params.size(), params.types())));
      if (!prepared.ok()) return prepared.status();
      prepared_.insert(name);
    }
    PgResult result(PQexecPrepared(conn_, name, params.size(), params.values(),
                                   params.lengths(), params.formats(),
                                   /*resultFormat=*/1));
    const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    if (attempt == 0 && sqlstate != nullptr &&
        absl::string_view(sqlstate) == "26000") {
      // invalid_sql_statement_name: the session lost it (DEALLOCATE, or a
      // server-side reset); prepare it again once.
      prepared_.erase(name);
      continue;
    }
    return CheckResult(conn_, std::move(result));
  }
}

absl::StatusOr<InsertResult> Store::Insert(const Inserter& inserter,
                                           absl::Span<const InsertRow> rows) {
  auto run_insert = [this](const PgParams& params) {
    return ExecPrepared("tw_insert", kInsertSql, params);
  };
  absl::Status kinds = CheckKinds(conn_, rows, &known_kinds_);
  if (!kinds.ok()) return kinds;
  if (rows.size() == 1) {
    // One statement is atomic on its own: a conflicting row is not
    // inserted, so there is nothing to roll back (and no BEGIN/COMMIT round
    // trips to pay).
    return InsertTasksWith(conn_, inserter, rows, run_insert);
  }
  absl::Status status = Exec(conn_, "BEGIN").status();
  if (!status.ok()) return status;
  absl::StatusOr<InsertResult> claimed =
      InsertTasksWith(conn_, inserter, rows, run_insert);
  if (!claimed.ok()) {
    (void)Exec(conn_, "ROLLBACK");
    return claimed.status();
  }
  status = Exec(conn_, "COMMIT").status();
  if (!status.ok()) return status;
  return claimed;
}

absl::Status Store::NotifyDue(absl::Span<const WheelEntry> entries) {
  return durable_internal::NotifyDue(conn_, entries);
}

absl::StatusOr<bool> Store::Cancel(const std::string& id) {
  absl::StatusOr<PgResult> r =
      ExecPrepared("tw_cancel", kCancelSql, PgParams().Bytes(id));
  if (!r.ok()) return r.status();
  return r->rows() > 0;
}

absl::StatusOr<TaskInfo> Store::Get(const std::string& id) {
  absl::StatusOr<PgResult> r =
      ExecPrepared("tw_get", kGetSql, PgParams().Bytes(id));
  if (!r.ok()) return r.status();
  if (r->rows() == 0) return absl::NotFoundError("no task with this id");
  TaskInfo info;
  info.state = static_cast<TaskState>(r->Int(0, 0));
  info.attempt = static_cast<int>(r->Int(0, 1));
  info.due = absl::FromUnixMicros(r->Int(0, 2));
  info.slot = static_cast<int>(r->Int(0, 3));
  info.last_error = r->Bytes(0, 4);
  info.kind = r->Bytes(0, 5);
  info.priority = static_cast<int>(r->Int(0, 6));
  return info;
}

absl::Status Store::RegisterKinds(const std::string& node,
                                  absl::Span<const std::string> kinds) {
  if (kinds.empty()) return absl::OkStatus();
  std::vector<absl::string_view> names(kinds.begin(), kinds.end());
  PgParams params;
  params.Text(node).TextArray(names);
  absl::Status status = Exec(conn_, kRegisterKindsSql, params).status();
  if (status.ok()) known_kinds_.insert(kinds.begin(), kinds.end());
  return status;
}

absl::StatusOr<int64_t> Store::Heartbeat(const std::string& node,
                                         int64_t ttl_us) {
  absl::StatusOr<PgResult> r =
      Exec(conn_, kHeartbeatSql, PgParams().Text(node).Int64(ttl_us));
  if (!r.ok()) return r.status();
  return r->rows() > 0 ? r->Int(0, 0) : 1;
}

absl::StatusOr<std::vector<int>> Store::Renew(const std::string& node,
                                              absl::Span<const SlotEpoch> owned,
                                              int64_t ttl_us,
                                              int64_t horizon_us) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  absl::StatusOr<PgResult> r = Exec(conn_, kRenewSql,
                                    PgParams()
                                        .Text(node)
                                        .Int32Array(slots)
                                        .Int64Array(epochs)
                                        .Int64(ttl_us)
                                        .Int64(horizon_us));
  if (!r.ok()) return r.status();
  std::vector<int> renewed;
  for (int i = 0; i < r->rows(); ++i) {
    renewed.push_back(static_cast<int>(r->Int(i, 0)));
  }
  return renewed;
}

absl::StatusOr<std::vector<SlotEpoch>> Store::Acquire(const std::string& node,
                                                      int count, int64_t ttl_us,
                                                      int max_attempts,
                                                      int64_t horizon_us) {
  absl::StatusOr<PgResult> r = Exec(conn_, kAcquireSql,
                                    PgParams()
                                        .Text(node)
                                        .Int64(count)
                                        .Int64(ttl_us)
                                        .Int32(max_attempts)
                                        .Int64(horizon_us));
  if (!r.ok()) return r.status();
  std::vector<SlotEpoch> got;
  for (int i = 0; i < r->rows(); ++i) {
    got.push_back({static_cast<int>(r->Int(i, 0)), r->Int(i, 1)});
  }
  return got;
}

absl::Status Store::Release(const std::string& node,
                            absl::Span<const SlotEpoch> slots) {
  std::vector<int32_t> s;
  std::vector<int64_t> e;
  SplitSlots(slots, &s, &e);
  return Exec(conn_, kReleaseSql,
              PgParams().Text(node).Int32Array(s).Int64Array(e))
      .status();
}

absl::StatusOr<int64_t> Store::RequeueOrphans(
    const std::string& node, absl::Span<const SlotEpoch> owned,
    const std::vector<std::string>& running_ids, int max_attempts,
    bool include_scheduled) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  std::vector<absl::string_view> ids(running_ids.begin(), running_ids.end());
  absl::StatusOr<PgResult> r = Exec(conn_, kRequeueOrphansSql,
                                    PgParams()
                                        .Text(node)
                                        .Int32Array(slots)
                                        .Int64Array(epochs)
                                        .BytesArray(ids)
                                        .Int32(max_attempts)
                                        .Bool(include_scheduled));
  if (!r.ok()) return r.status();
  int64_t count = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &count);
  return count;
}

absl::Status Store::RemoveNode(const std::string& node) {
  return Exec(conn_, kRemoveNodeSql, PgParams().Text(node)).status();
}

absl::StatusOr<Claimed> Store::ClaimDue(const std::string& node,
                                        absl::Span<const SlotEpoch> owned,
                                        int64_t horizon_us, int64_t limit) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  absl::StatusOr<PgResult> r = Exec(conn_, kClaimSql,
                                    PgParams()
                                        .Text(node)
                                        .Int32Array(slots)
                                        .Int64Array(epochs)
                                        .Int64(horizon_us)
                                        .Int64(limit));
  if (!r.ok()) return r.status();
  Claimed claimed;
  claimed.tasks = ReadEntries(*r, 0);
  for (int i = 0; i < r->rows(); ++i) {
    claimed.db_now_us = std::max(claimed.db_now_us, r->Int(i, 4));
  }
  return claimed;
}

absl::StatusOr<FireResult> Store::StartRunning(
    const std::string& node, absl::Span<const WheelEntry> entries) {
  std::vector<absl::string_view> ids;
  for (const WheelEntry& e : entries) ids.push_back(e.id);
  absl::StatusOr<PgResult> r =
      Exec(conn_, kStartSql, PgParams().Text(node).BytesArray(ids));
  if (!r.ok()) return r.status();
  FireResult result;
  for (int i = 0; i < r->rows(); ++i) {
    result.db_now_us = std::max(result.db_now_us, r->Int(i, 8));
    if (r->Int(i, 0) != 0) {
      Started s;
      s.task.id = r->Bytes(i, 1);
      s.task.payload = r->Bytes(i, 2);
      s.task.attempt = static_cast<int>(r->Int(i, 3));
      s.version = r->Int(i, 4);
      s.task.due = absl::FromUnixMicros(r->Int(i, 5));
      int64_t occurrence_us = 0;
      if (ParseOccurrenceId(s.task.id, &s.task.schedule, &occurrence_us)) {
        s.task.occurrence = absl::FromUnixMicros(occurrence_us);
      }
      s.slot = static_cast<int>(r->Int(i, 6));
      s.epoch = r->Int(i, 7);
      s.task.kind = r->Bytes(i, 9);
      s.task.priority = static_cast<int>(r->Int(i, 10));
      s.started_us = r->Int(i, 11);
      result.started.push_back(std::move(s));
    } else {
      WheelEntry e;
      e.id = r->Bytes(i, 1);
      e.due_us = r->Int(i, 5);
      e.slot = static_cast<int>(r->Int(i, 6));
      e.epoch = r->Int(i, 7);
      e.kind = r->Bytes(i, 9);
      e.priority = static_cast<int>(r->Int(i, 10));
      result.not_due.push_back(std::move(e));
    }
  }
  return result;
}

absl::StatusOr<CompleteResult> Store::Complete(
    absl::Span<const Completion> completions, int64_t horizon_us,
    const AttemptLog& log) {
  std::vector<absl::string_view> ids, errors;
  std::vector<int64_t> versions, backoffs, started;
  std::vector<int16_t> outcomes;
  std::vector<int32_t> attempts;
  for (const Completion& c : completions) {
    attempts.push_back(c.attempt);
    ids.push_back(c.id);
    versions.push_back(c.version);
    outcomes.push_back(static_cast<int16_t>(c.outcome));
    backoffs.push_back(c.backoff_us);
    errors.push_back(c.error);
    started.push_back(c.started_us);
  }
  absl::StatusOr<PgResult> r = Exec(conn_, kCompleteSql,
                                    PgParams()
                                        .BytesArray(ids)
                                        .Int64Array(versions)
                                        .Int16Array(outcomes)
                                        .Int64Array(backoffs)
                                        .BytesArray(errors)
                                        .Int64(horizon_us)
                                        .Int32Array(attempts)
                                        .Text(log.node_id)
                                        .Bool(log.record)
                                        .Int64Array(started));
  if (!r.ok()) return r.status();
  CompleteResult result;
  result.written = r->rows();
  for (int i = 0; i < r->rows(); ++i) {
    result.db_now_us = std::max(result.db_now_us, r->Int(i, 5));
    const int64_t state = r->Int(i, 2);
    if (state == static_cast<int>(TaskState::kSuccess)) {
      ++result.succeeded;
    } else if (state == static_cast<int>(TaskState::kFailed)) {
      ++result.failed;
    } else {
      ++result.retried;
    }
    if (state == static_cast<int>(TaskState::kScheduled)) {
      WheelEntry e;
      e.id = r->Bytes(i, 0);
      e.slot = static_cast<int>(r->Int(i, 1));
      e.due_us = r->Int(i, 3);
      e.epoch = r->Int(i, 4);
      e.kind = r->Bytes(i, 6);
      e.priority = static_cast<int>(r->Int(i, 7));
      result.retries.push_back(std::move(e));
    }
  }
  return result;
}

absl::StatusOr<int64_t> Store::MarkStarted(absl::Span<const StartMark> marks) {
  std::vector<absl::string_view> ids;
  std::vector<int64_t> versions;
  std::vector<int32_t> attempts;
  for (const StartMark& m : marks) {
    ids.push_back(m.id);
    versions.push_back(m.version);
    attempts.push_back(m.attempt);
  }
  absl::StatusOr<PgResult> r = Exec(
      conn_, kMarkStartedSql,
      PgParams().BytesArray(ids).Int64Array(versions).Int32Array(attempts));
  if (!r.ok()) return r.status();
  int64_t marked = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &marked);
  return marked;
}

absl::StatusOr<int64_t> Store::DeleteFinished(absl::Span<const SlotEpoch> owned,
                                              int64_t retain_us,
                                              int64_t limit) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  absl::StatusOr<PgResult> r =
      Exec(conn_, kDeleteFinishedSql,
           PgParams().Int32Array(slots).Int64(retain_us).Int64(limit));
  if (!r.ok()) return r.status();
  int64_t deleted = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &deleted);
  return deleted;
}

absl::Status Store::Listen() {
  absl::Status status = ListenToBoth(conn_);
  if (status.ok()) listening_ = true;
  return status;
}

int Store::socket() const { return PQsocket(conn_); }

absl::Status Store::DrainNotifications(std::vector<int>* slots,
                                       std::vector<std::string>* stops) {
  if (PQconsumeInput(conn_) == 0) {
    return absl::UnavailableError(
        absl::StrCat("PostgreSQL connection lost: ",
                     Scrubbed(conn_, PQerrorMessage(conn_))));
  }
  while (PGnotify* note = PQnotifies(conn_)) {
    if (absl::string_view(note->relname) == "timingwheel_stop") {
      // A running task was cancelled: its id, hex-encoded.
      if (stops != nullptr)
        stops->push_back(absl::HexStringToBytes(note->extra));
      PQfreemem(note);
      continue;
    }
    if (absl::string_view(note->extra) == "*") slots->push_back(kAllSlots);
    for (absl::string_view part : absl::StrSplit(note->extra, ',')) {
      int slot = 0;
      if (absl::SimpleAtoi(part, &slot)) slots->push_back(slot);
    }
    PQfreemem(note);
  }
  return absl::OkStatus();
}

}  // namespace durable_internal
}  // namespace timingwheel
