// Copyright 2026 The timingwheel Authors.
//
// The clients' statements: insert (with the owners' wake-ups), cancel and
// get. The kind check is in store_kinds.cc.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "durable/sql/store_internal.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// Rows in (always PENDING), the rows inserted out, each flagged when its
// slot is the inserter's (with the lease epoch read) and it is due within
// the inserter's horizon (the inserter then loads it at once). Rows of other
// owners due within that owner's horizon wake those owners at commit
// (pg_notify; "*" when the slots' list is longer than $9 bytes). In two
// forms: InsertSql() skips ids that exist (ON CONFLICT DO NOTHING);
// InsertNewSql() fails on one (unique violation) and is about a third
// cheaper on the server (no speculative insertion): a batch of new ids,
// the common case, tries it first (Store::Insert()).
constexpr char kInsertHead[] = R"sql(
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
)sql";
// The same for one row, from scalar parameters in the same places. The
// planner cannot tell how many rows an unnest of array parameters holds,
// and planned one row as if it were many (a hash join over every lease
// row); with scalars it knows there is one: about half the server time of
// the array form for a single add (pgbench -M prepared: 0.09-0.12 ms
// against 0.21-0.26 ms).
constexpr char kInsertHeadOne[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
input AS (
  SELECT $1::bytea AS task_id, $2::int4 AS slot, $5::bytea AS payload,
         convert_from($10::bytea, 'UTF8') AS kind, $11::int2 AS priority,
         CASE WHEN $4::bool THEN n.now + $3::int8 ELSE $3::int8 END AS due_us
  FROM n
  WHERE (SELECT value FROM tw_meta WHERE key = 'slot_count') = $6),
ins AS (
  INSERT INTO tw_timer (task_id, slot, due_us, state, payload, kind, priority)
  SELECT task_id, slot, due_us, 0, payload, kind, priority FROM input
)sql";
constexpr char kSkipExisting[] = "  ON CONFLICT (task_id) DO NOTHING\n";
constexpr char kInsertFlagged[] = R"sql(
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
  FROM woken WHERE slots IS NOT NULL))sql";
// Every inserted row (the skipping form checks the others against them).
constexpr char kSelectEveryRow[] = R"sql(
SELECT task_id, slot, due_us,
       mine AND due_us < (SELECT now FROM n) + $8 AS load_now,
       (SELECT now FROM n) AS db_now_us,
       (SELECT count(*) FROM notified) AS notified, epoch, kind, priority
FROM flagged
)sql";
// The count, and only the rows the inserter loads at once (task_id NULL
// when there are none): a client's batch returns one row.
constexpr char kSelectRowsToLoad[] = R"sql(,
totals AS (
  SELECT (SELECT count(*) FROM ins) AS inserted,
         (SELECT now FROM n) AS db_now_us,
         (SELECT count(*) FROM notified) AS notified)
SELECT totals.inserted, totals.db_now_us, totals.notified, f.task_id,
       f.slot, f.due_us, f.epoch, f.kind, f.priority
FROM totals LEFT JOIN flagged f
  ON f.mine AND f.due_us < totals.db_now_us + $8
)sql";

// Whether `rows` rows are inserted by the one-row forms (kInsertHeadOne).
bool OneRow(size_t rows) { return rows == 1; }

const std::string& InsertSql(bool one_row) {
  static const std::string* const many = new std::string(absl::StrCat(
      kInsertHead, kSkipExisting, kInsertFlagged, kSelectEveryRow));
  static const std::string* const one = new std::string(absl::StrCat(
      kInsertHeadOne, kSkipExisting, kInsertFlagged, kSelectEveryRow));
  return one_row ? *one : *many;
}

const std::string& InsertNewSql(bool one_row) {
  static const std::string* const many = new std::string(
      absl::StrCat(kInsertHead, kInsertFlagged, kSelectRowsToLoad));
  static const std::string* const one = new std::string(
      absl::StrCat(kInsertHeadOne, kInsertFlagged, kSelectRowsToLoad));
  return one_row ? *one : *many;
}

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
SELECT i.task_id, t.task_id IS NOT NULL AS stored,
       coalesce(t.payload = i.payload AND (i.relative OR t.due_us = i.due)
                AND t.kind = convert_from(i.kind, 'UTF8')
                AND t.priority = i.priority,
                false) AS identical,
       t.slot, t.due_us, coalesce(t.state = 0, false) AS pending,
       tw_now_us() AS db_now_us, t.kind, t.priority
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

// Which form of the insert ran: they return different rows.
enum class InsertForm {
  kSkipExisting,  // InsertSql(): every inserted row.
  kNewOnly,       // InsertNewSql(): the count and the rows to load only.
};

// Reads an InsertSql() result: every inserted row, the ones to load at once
// flagged; their ids go to `fresh`.
absl::Status ReadEveryRow(const PgResult& r, InsertResult* result,
                          int64_t* inserted,
                          absl::flat_hash_set<std::string>* fresh) {
  PgColumns column(r);
  const EntryColumns entry(column);
  const int load_now = column("load_now");
  const int db_now = column("db_now_us");
  if (!column.status().ok()) return column.status();
  *inserted = r.rows();
  for (int i = 0; i < r.rows(); ++i) {
    result->db_now_us = r.Int(i, db_now);
    fresh->insert(r.Bytes(i, entry.id));
    if (r.Int(i, load_now) != 0) result->mine.push_back(entry.Read(r, i));
  }
  return absl::OkStatus();
}

// Reads an InsertNewSql() result: at least one row holding the count; the
// rows with a task are the ones to load at once.
absl::Status ReadRowsToLoad(const PgResult& r, InsertResult* result,
                            int64_t* inserted) {
  PgColumns column(r);
  const EntryColumns entry(column);
  const int count = column("inserted");
  const int db_now = column("db_now_us");
  if (!column.status().ok()) return column.status();
  for (int i = 0; i < r.rows(); ++i) {
    *inserted = r.Int(i, count);
    result->db_now_us = r.Int(i, db_now);
    if (!r.IsNull(i, entry.id)) result->mine.push_back(entry.Read(r, i));
  }
  return absl::OkStatus();
}

// InsertTasks(), running the insert statement of `form` with `run_insert`
// (plain or prepared).
template <typename RunInsert>
absl::StatusOr<InsertResult> InsertTasksWith(PGconn* conn,
                                             const Inserter& inserter,
                                             absl::Span<const InsertRow> rows,
                                             InsertForm form,
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
  if (OneRow(rows.size())) {
    params.Bytes(ids[0])
        .Int32(slots[0])
        .Int64(dues[0])
        .Bool(relative[0])
        .Bytes(payloads[0]);
  } else {
    params.BytesArray(ids)
        .Int32Array(slots)
        .Int64Array(dues)
        .BoolArray(relative)
        .BytesArray(payloads);
  }
  params.Int64(inserter.slot_count)
      .Text(inserter.node_id)
      .Int64(inserter.horizon_us)
      .Int64(kMaxNotifyPayloadBytes);
  if (OneRow(rows.size())) {
    params.Bytes(kinds[0]).Int32(priorities[0]);
  } else {
    params.BytesArray(kinds).Int16Array(priorities);
  }
  absl::StatusOr<PgResult> inserted = run_insert(params);
  if (!inserted.ok()) return inserted.status();
  InsertResult result;
  int64_t count = 0;
  absl::flat_hash_set<std::string> fresh;  // Inserted by this statement.
  absl::Status read = form == InsertForm::kNewOnly
                          ? ReadRowsToLoad(*inserted, &result, &count)
                          : ReadEveryRow(*inserted, &result, &count, &fresh);
  if (!read.ok()) return read;
  if (count == static_cast<int64_t>(rows.size())) return result;

  // Some ids exist already (or the slot count is wrong): identical retries
  // are fine, anything else is a conflict. (The new-only form inserts all
  // or fails, so after it `fresh` is rightly empty.)
  PgParams check;
  check.BytesArray(ids)
      .Int64Array(dues)
      .BoolArray(relative)
      .BytesArray(payloads)
      .BytesArray(kinds)
      .Int16Array(priorities);
  absl::StatusOr<PgResult> conflicts = PgExec(conn, kConflictSql, check);
  if (!conflicts.ok()) return conflicts.status();
  PgColumns column(*conflicts);
  const int id = column("task_id"), stored = column("stored"),
            identical = column("identical"), slot = column("slot"),
            due = column("due_us"), pending = column("pending"),
            db_now = column("db_now_us"), kind = column("kind"),
            priority = column("priority");
  if (!column.status().ok()) return column.status();
  for (int i = 0; i < conflicts->rows(); ++i) {
    if (conflicts->Int(i, stored) == 0) {
      return absl::FailedPreconditionError(
          "task not stored: the store's slot count differs from the "
          "scheduler's (or the schema is missing)");
    }
    if (conflicts->Int(i, identical) == 0) {
      return absl::AlreadyExistsError(
          "a task with this id exists with another payload, due time, "
          "kind or priority");
    }
    result.db_now_us = conflicts->Int(i, db_now);
    std::string task_id = conflicts->Bytes(i, id);
    if (conflicts->Int(i, pending) != 0 && !fresh.contains(task_id)) {
      WheelEntry e;
      e.id = std::move(task_id);
      e.slot = static_cast<int>(conflicts->Int(i, slot));
      e.due_us = conflicts->Int(i, due);
      e.kind = conflicts->Bytes(i, kind);
      e.priority = static_cast<int>(conflicts->Int(i, priority));
      result.identical.push_back(std::move(e));
    }
  }
  return result;
}

}  // namespace

absl::StatusOr<InsertResult> InsertTasks(PGconn* conn, const Inserter& inserter,
                                         absl::Span<const InsertRow> rows) {
  absl::Status kinds = CheckKinds(conn, rows, nullptr);
  if (!kinds.ok()) return kinds;
  return InsertTasksWith(
      conn, inserter, rows, InsertForm::kSkipExisting,
      [conn, &rows](const PgParams& params) {
        return PgExec(conn, InsertSql(OneRow(rows.size())).c_str(), params);
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
  return PgExec(conn, kNotifyDueSql,
                PgParams().Int32Array(slots).Int64Array(dues).Int64(
                    kMaxNotifyPayloadBytes))
      .status();
}

absl::StatusOr<InsertResult> Store::Insert(const Inserter& inserter,
                                           absl::Span<const InsertRow> rows) {
  const bool one_row = OneRow(rows.size());
  auto insert_new = [this, one_row](const PgParams& params) {
    return one_row ? ExecPrepared("tw_insert_new_one",
                                  InsertNewSql(true).c_str(), params)
                   : ExecPrepared("tw_insert_new", InsertNewSql(false).c_str(),
                                  params);
  };
  auto insert_or_skip = [this, one_row](const PgParams& params) {
    return one_row
               ? ExecPrepared("tw_insert_one", InsertSql(true).c_str(), params)
               : ExecPrepared("tw_insert", InsertSql(false).c_str(), params);
  };
  absl::Status kinds = CheckKinds(conn_, rows, &known_kinds_);
  if (!kinds.ok()) return kinds;
  // One statement is atomic on its own: the new-only form (all rows or,
  // on an existing id, none) and a single row need no transaction (nor its
  // BEGIN/COMMIT round trips); the skipping form of a batch runs in one, so
  // that a conflict found by its check undoes the rows it inserted.
  auto attempt = [&](InsertForm form,
                     const auto& run_insert) -> absl::StatusOr<InsertResult> {
    const bool in_transaction =
        form == InsertForm::kSkipExisting && rows.size() > 1;
    if (in_transaction) {
      absl::Status status = PgExec(conn_, "BEGIN").status();
      if (!status.ok()) return status;
    }
    absl::StatusOr<InsertResult> result =
        InsertTasksWith(conn_, inserter, rows, form, run_insert);
    if (!in_transaction) return result;
    if (!result.ok()) {
      (void)PgExec(conn_, "ROLLBACK");
      return result.status();
    }
    absl::Status status = PgExec(conn_, "COMMIT").status();
    if (!status.ok()) return status;
    return result;
  };
  // An existing id fails the first form (nothing written, no notification
  // sent, the transaction void); the second skips existing ids and checks
  // them.
  absl::StatusOr<InsertResult> result =
      attempt(InsertForm::kNewOnly, insert_new);
  if (!absl::IsAlreadyExists(result.status())) return result;
  return attempt(InsertForm::kSkipExisting, insert_or_skip);
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
  PgRow row(*r, 0);
  TaskInfo info;
  info.state = static_cast<TaskState>(row.Int("state"));
  info.attempt = static_cast<int>(row.Int("attempt"));
  info.due = absl::FromUnixMicros(row.Int("due_us"));
  info.slot = static_cast<int>(row.Int("slot"));
  info.last_error = row.Bytes("last_error");
  info.kind = row.Bytes("kind");
  info.priority = static_cast<int>(row.Int("priority"));
  if (!row.status().ok()) return row.status();
  return info;
}

}  // namespace durable_internal
}  // namespace timingwheel
