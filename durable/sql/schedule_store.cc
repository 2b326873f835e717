// Copyright 2026 The timingwheel Authors.
//
// The SQL of recurring schedules; see schedule_store.h.

#include "durable/sql/schedule_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/recurrence/schedule_plan.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/schedule_definition.h"
#include "durable/task_kind.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

#define TW_SCHEDULE_COLUMNS                                           \
  " name, slot, every_us, anchor_us, cron, zone, payload, overlap, "  \
  "catch_up, grace_us, max_runs, paused, last_us, plan_us, next_us, " \
  "version, kind, priority "

constexpr char kLockSql[] = "SELECT" TW_SCHEDULE_COLUMNS
                            ", tw_now_us() AS now_us FROM tw_schedule "
                            "WHERE name = $1 FOR UPDATE";
// As reported (ScheduleInfo::next_run): the stored next run, or the
// earliest occurrence written ahead and still waiting when that is earlier
// (kRunAnyway writes up to kMaxOccurrencesAhead of them; an overdue one is
// the next run).
// As reported (ScheduleInfo::last_run): the stored last occurrence when it
// has come due; else (kRunAnyway writes ahead) the latest stored occurrence
// whose due time has come, or, with none stored, the stored one, which
// ScheduleInfoOf() takes back to an occurrence or the creation.
// The occurrences of a schedule are the ids in OccurrenceRange(name).
#define TW_SCHEDULE_OCCURRENCES                                          \
  " FROM tw_timer t, (SELECT '\\x1b74772d7363686564756c653a'::bytea || " \
  "convert_to(length(tw_schedule.name)::text, 'UTF8') || "               \
  "'\\x3a'::bytea || tw_schedule.name AS p) o WHERE t.task_id >= "       \
  "o.p || '\\x40'::bytea AND t.task_id < o.p || '\\x41'::bytea "
#define TW_SCHEDULE_REPORTED_COLUMNS                                     \
  " name, slot, every_us, anchor_us, cron, zone, payload, overlap, "     \
  "catch_up, grace_us, max_runs, paused, "                               \
  "CASE WHEN last_us <= tw_now_us() THEN last_us ELSE coalesce((SELECT " \
  "max(t.due_us)" TW_SCHEDULE_OCCURRENCES                                \
  "AND t.due_us <= tw_now_us()), "                                       \
  "last_us) END AS last_us, plan_us, "                                   \
  "least(next_us, (SELECT min(t.due_us)" TW_SCHEDULE_OCCURRENCES         \
  "AND t.state < 2)) AS next_us, version, kind, priority, created_us, "  \
  "tw_now_us() AS now_us "

constexpr char kGetSql[] =
    "SELECT" TW_SCHEDULE_REPORTED_COLUMNS "FROM tw_schedule WHERE name = $1";
constexpr char kListSql[] =
    "SELECT" TW_SCHEDULE_REPORTED_COLUMNS "FROM tw_schedule ORDER BY name";

constexpr char kInsertSql[] = R"sql(
INSERT INTO tw_schedule (name, slot, every_us, anchor_us, cron, zone,
                         payload, overlap, catch_up, grace_us, max_runs,
                         paused, last_us, plan_us, next_us, created_us,
                         updated_us, kind, priority)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, false, tw_now_us(),
        0, 0, tw_now_us(), tw_now_us(), $12, $13)
ON CONFLICT (name) DO NOTHING
RETURNING name)sql";

constexpr char kUpdateDefinitionSql[] = R"sql(
UPDATE tw_schedule
SET every_us = $2, anchor_us = $3, cron = $4, zone = $5, payload = $6,
    overlap = $7, catch_up = $8, grace_us = $9, max_runs = $10,
    kind = $11, priority = $12,
    last_us = tw_now_us(), version = nextval('tw_version_seq'),
    updated_us = tw_now_us()
WHERE name = $1
RETURNING name)sql";

constexpr char kAdvanceSql[] = R"sql(
UPDATE tw_schedule
SET last_us = $2, plan_us = $3, next_us = $4,
    version = nextval('tw_version_seq'), updated_us = tw_now_us()
WHERE name = $1)sql";

constexpr char kPauseSql[] = R"sql(
UPDATE tw_schedule
SET paused = true, last_us = least(last_us, tw_now_us()),
    version = nextval('tw_version_seq'), updated_us = tw_now_us()
WHERE name = $1
RETURNING name)sql";

constexpr char kResumeSql[] = R"sql(
UPDATE tw_schedule
SET paused = false, version = nextval('tw_version_seq'),
    updated_us = tw_now_us()
WHERE name = $1
RETURNING name)sql";

constexpr char kDeleteSql[] =
    "DELETE FROM tw_schedule WHERE name = $1 RETURNING name";

// The waiting occurrence tasks of one schedule (its id range); with $3,
// only those not yet due (an occurrence already due stays and runs).
constexpr char kDeleteWaitingSql[] = R"sql(
DELETE FROM tw_timer WHERE task_id >= $1 AND task_id < $2 AND state < 2
  AND (NOT $3 OR due_us > tw_now_us())
RETURNING task_id)sql";

// After a pause deleted waiting occurrences: the earliest of them is not
// accounted for, so the catch-up policy decides on it at the resume.
constexpr char kUnaccountSql[] = R"sql(
UPDATE tw_schedule SET last_us = least(last_us, $2) WHERE name = $1)sql";

// The newest occurrence task still stored (ids of one schedule sort by
// instant: 16 decimal digits from 2001 to 2286).
constexpr char kPriorSql[] = R"sql(
SELECT state FROM tw_timer
WHERE task_id >= $1 AND task_id < $2
ORDER BY task_id DESC LIMIT 1)sql";

// Overlap 1 is kRunAnyway (recurrence_policy.h): its plan_us holds the
// instant to advance it plus $4 (kRunAnywayPlanLeadUs). Only the plans
// within half a horizon of being due are read (a range of the index
// tw_schedule_due per slot): the caller looks again every half horizon.
// The range's end is on the statement's start time, which the planner can
// read (it cannot estimate a bound on the volatile tw_now_us(), and then
// reads the whole table).
constexpr char kDueSql[] = R"sql(
SELECT name, in_us FROM (
  SELECT name, plan_us - tw_now_us()
               - CASE WHEN overlap = 1 THEN $4 ELSE $2 END AS in_us
  FROM tw_schedule
  WHERE slot = ANY($1) AND NOT paused
    AND plan_us <= (extract(epoch FROM statement_timestamp()) * 1000000)::int8
                   + greatest($2, $4) + $2 / 2) s
ORDER BY in_us LIMIT $3 + 1)sql";

constexpr char kSavepointSql[] = "SAVEPOINT tw_schedules";
constexpr char kRollbackToSavepointSql[] = "ROLLBACK TO SAVEPOINT tw_schedules";

// A stored row.
struct Row {
  RecurringSchedule def;
  int slot = 0;
  bool paused = false;
  int64_t last_us = 0;
  int64_t plan_us = 0;
  int64_t next_us = 0;
  int64_t version = 0;
  int64_t now_us = 0;
  int64_t created_us = 0;  // Read by the reports only.
};

absl::StatusOr<Row> Decode(const PgResult& result, int i, bool with_now,
                           bool reported = false) {
  PgRow r(result, i);
  Row row;
  row.def.name = r.Bytes("name");
  row.slot = static_cast<int>(r.Int("slot"));
  // An interval, or (every_us 0) a cron expression.
  row.def.every = absl::Microseconds(r.Int("every_us"));
  row.def.anchor = absl::FromUnixMicros(r.Int("anchor_us"));
  row.def.cron = r.Bytes("cron");
  row.def.time_zone = r.Bytes("zone");
  row.def.payload = r.Bytes("payload");
  row.def.policy.overlap = static_cast<Overlap>(r.Int("overlap"));
  row.def.policy.catch_up = static_cast<CatchUp>(r.Int("catch_up"));
  row.def.policy.grace = absl::Microseconds(r.Int("grace_us"));
  row.def.policy.max_runs = static_cast<int>(r.Int("max_runs"));
  row.def.kind = r.Bytes("kind");
  row.def.priority = static_cast<int>(r.Int("priority"));
  row.paused = r.Int("paused") != 0;
  row.last_us = r.Int("last_us");
  row.plan_us = r.Int("plan_us");
  row.next_us = r.Int("next_us");
  row.version = r.Int("version");
  if (with_now) row.now_us = r.Int("now_us");
  if (reported) row.created_us = r.Int("created_us");
  if (!r.status().ok()) return r.status();
  return row;
}

ScheduleInfo InfoOf(const Row& row) {
  StoredSchedule stored;
  stored.definition = row.def;
  stored.paused = row.paused;
  stored.last_us = row.last_us;
  stored.next_us = row.next_us;
  stored.version = row.version;
  stored.created_us = row.created_us;
  stored.now_us = row.now_us;
  return ScheduleInfoOf(stored);
}

// The definition's parameters $2.. (after the name) in the order of
// kInsertSql from $3 (or kUpdateDefinitionSql from $2).
PgParams& AddDefinition(PgParams& params, const RecurringSchedule& s,
                        const std::string& canonical_cron) {
  return params.Int64(absl::ToInt64Microseconds(s.every))
      .Int64(absl::ToUnixMicros(s.anchor))
      .Text(canonical_cron)
      .Text(s.time_zone)
      .Bytes(s.payload)
      .Int32(static_cast<int32_t>(s.policy.overlap))
      .Int32(static_cast<int32_t>(s.policy.catch_up))
      .Int64(absl::ToInt64Microseconds(s.policy.grace))
      .Int32(s.policy.max_runs)
      .Text(s.kind)
      .Int32(s.priority);
}

// The occurrences' kind and priority: valid, and the kind registered.
absl::Status CheckScheduleKind(PGconn* conn, const RecurringSchedule& s) {
  absl::Status status = CheckOccurrenceKind(s);
  if (!status.ok()) return status;
  InsertRow row;
  row.kind = s.kind;
  return CheckKinds(conn, {&row, 1}, nullptr);
}

// Runs `body` in a transaction: COMMIT when it succeeds, ROLLBACK when not.
template <typename T, typename Body>
absl::StatusOr<T> InTransaction(PGconn* conn, Body body) {
  absl::Status status = PgExec(conn, "BEGIN").status();
  if (!status.ok()) return status;
  absl::StatusOr<T> result = body();
  if (!result.ok()) {
    (void)PgExec(conn, "ROLLBACK");
    return result.status();
  }
  status = PgExec(conn, "COMMIT").status();
  if (!status.ok()) return status;
  return result;
}

// Deletes `name`'s waiting occurrences (with `keep_due`, those not yet
// due only). Returns the earliest instant deleted (kNoOccurrenceUs: none).
absl::StatusOr<int64_t> DeleteWaiting(PGconn* conn, const std::string& name,
                                      bool keep_due) {
  auto [first, last] = OccurrenceRange(name);
  absl::StatusOr<PgResult> r =
      PgExec(conn, kDeleteWaitingSql,
             PgParams().Bytes(first).Bytes(last).Bool(keep_due));
  if (!r.ok()) return r.status();
  int64_t earliest = kNoOccurrenceUs;
  for (int i = 0; i < r->rows(); ++i) {
    PgRow row(*r, i);
    std::string id = row.Bytes("task_id"), of;
    if (!row.status().ok()) return row.status();
    int64_t at = 0;
    if (ParseOccurrenceId(id, &of, &at)) earliest = std::min(earliest, at);
  }
  return earliest;
}

// Locks the row and writes what is due. Inside a transaction.
absl::StatusOr<ScheduleWrite> AdvanceLocked(PGconn* conn,
                                            const std::string& name,
                                            const Inserter& inserter) {
  ScheduleWrite write;
  absl::StatusOr<PgResult> r = PgExec(conn, kLockSql, PgParams().Bytes(name));
  if (!r.ok()) return r.status();
  if (r->rows() == 0) return write;
  absl::StatusOr<Row> row = Decode(*r, 0, /*with_now=*/true);
  if (!row.ok()) return row.status();
  if (row->paused) return write;
  absl::StatusOr<Recurrence> recurrence =
      RecurrenceOf(row->def, row->def.payload.size());
  if (!recurrence.ok()) return recurrence.status();

  auto [first, last] = OccurrenceRange(name);
  r = PgExec(conn, kPriorSql, PgParams().Bytes(first).Bytes(last));
  if (!r.ok()) return r.status();
  PriorOccurrence prior;
  if (r->rows() > 0) {
    PgRow p(*r, 0);
    prior.exists = true;
    prior.unfinished = p.Int("state") < 3;
    if (!p.status().ok()) return p.status();
  }
  absl::StatusOr<AdvancePlan> plan = PlanAdvance(
      *recurrence, row->def.policy, row->last_us, row->now_us, prior);
  if (!plan.ok()) return plan.status();
  const std::vector<InsertRow> rows =
      OccurrenceRows(row->def, row->slot, plan->write_us);
  if (!rows.empty()) {
    absl::StatusOr<InsertResult> inserted = InsertTasks(conn, inserter, rows);
    if (!inserted.ok()) return inserted.status();
    write.inserted = *std::move(inserted);
    write.written = static_cast<int64_t>(rows.size());
  }
  if (plan->last_us == row->last_us && plan->plan_us == row->plan_us &&
      plan->next_us == row->next_us) {
    return write;  // Nothing changed (a previous run still unfinished).
  }
  absl::Status status = PgExec(conn, kAdvanceSql,
                               PgParams()
                                   .Bytes(name)
                                   .Int64(plan->last_us)
                                   .Int64(plan->plan_us)
                                   .Int64(plan->next_us))
                            .status();
  if (!status.ok()) return status;
  return write;
}

}  // namespace

absl::StatusOr<ScheduleWrite> CreateScheduleTx(
    PGconn* conn, const RecurringSchedule& schedule, int slot,
    const Inserter& inserter) {
  absl::StatusOr<Recurrence> recurrence =
      RecurrenceOf(schedule, schedule.payload.size());
  if (!recurrence.ok()) return recurrence.status();
  const RecurringSchedule canonical = StoredDefinition(schedule, *recurrence);
  absl::Status kind = CheckScheduleKind(conn, canonical);
  if (!kind.ok()) return kind;
  return InTransaction<ScheduleWrite>(
      conn, [&]() -> absl::StatusOr<ScheduleWrite> {
        PgParams params;
        params.Bytes(canonical.name).Int32(slot);
        AddDefinition(params, canonical, canonical.cron);
        absl::StatusOr<PgResult> r = PgExec(conn, kInsertSql, params);
        if (!r.ok()) return r.status();
        if (r->rows() == 0) {
          r = PgExec(conn, kGetSql, PgParams().Bytes(canonical.name));
          if (!r.ok()) return r.status();
          if (r->rows() == 0) {
            return absl::AbortedError("schedule deleted meanwhile; retry");
          }
          absl::StatusOr<Row> stored = Decode(*r, 0, /*with_now=*/false);
          if (!stored.ok()) return stored.status();
          if (!SameDefinition(stored->def, canonical)) {
            return absl::AlreadyExistsError(
                "a schedule of this name exists with another definition");
          }
          return ScheduleWrite();
        }
        return AdvanceLocked(conn, canonical.name, inserter);
      });
}

absl::StatusOr<ScheduleWrite> UpdateScheduleTx(
    PGconn* conn, const RecurringSchedule& schedule, const Inserter& inserter) {
  absl::StatusOr<Recurrence> recurrence =
      RecurrenceOf(schedule, schedule.payload.size());
  if (!recurrence.ok()) return recurrence.status();
  const RecurringSchedule canonical = StoredDefinition(schedule, *recurrence);
  absl::Status kind = CheckScheduleKind(conn, canonical);
  if (!kind.ok()) return kind;
  return InTransaction<ScheduleWrite>(
      conn, [&]() -> absl::StatusOr<ScheduleWrite> {
        PgParams params;
        params.Bytes(canonical.name);
        AddDefinition(params, canonical, canonical.cron);
        absl::StatusOr<PgResult> r = PgExec(conn, kUpdateDefinitionSql, params);
        if (!r.ok()) return r.status();
        if (r->rows() == 0) return absl::NotFoundError("no such schedule");
        // An occurrence already due stays: the update changes what comes.
        absl::Status status =
            DeleteWaiting(conn, canonical.name, /*keep_due=*/true).status();
        if (!status.ok()) return status;
        return AdvanceLocked(conn, canonical.name, inserter);
      });
}

absl::Status PauseScheduleTx(PGconn* conn, const std::string& name) {
  return InTransaction<bool>(
             conn,
             [&]() -> absl::StatusOr<bool> {
               absl::StatusOr<PgResult> r =
                   PgExec(conn, kPauseSql, PgParams().Bytes(name));
               if (!r.ok()) return r.status();
               if (r->rows() == 0) {
                 return absl::NotFoundError("no such schedule");
               }
               absl::StatusOr<int64_t> earliest =
                   DeleteWaiting(conn, name,
                                 /*keep_due=*/false);
               if (!earliest.ok()) return earliest.status();
               if (*earliest == kNoOccurrenceUs) return true;
               absl::Status status =
                   PgExec(conn, kUnaccountSql,
                          PgParams().Bytes(name).Int64(*earliest - 1))
                       .status();
               if (!status.ok()) return status;
               return true;
             })
      .status();
}

absl::StatusOr<ScheduleWrite> ResumeScheduleTx(PGconn* conn,
                                               const std::string& name,
                                               const Inserter& inserter) {
  return InTransaction<ScheduleWrite>(
      conn, [&]() -> absl::StatusOr<ScheduleWrite> {
        absl::StatusOr<PgResult> r =
            PgExec(conn, kResumeSql, PgParams().Bytes(name));
        if (!r.ok()) return r.status();
        if (r->rows() == 0) return absl::NotFoundError("no such schedule");
        absl::StatusOr<ScheduleWrite> write =
            AdvanceLocked(conn, name, inserter);
        if (!write.ok()) return ResumeWriteError(write.status());
        return write;
      });
}

absl::StatusOr<bool> DeleteScheduleTx(PGconn* conn, const std::string& name) {
  return InTransaction<bool>(conn, [&]() -> absl::StatusOr<bool> {
    absl::StatusOr<PgResult> r =
        PgExec(conn, kDeleteSql, PgParams().Bytes(name));
    if (!r.ok()) return r.status();
    if (r->rows() == 0) return false;
    absl::Status status =
        DeleteWaiting(conn, name, /*keep_due=*/false).status();
    if (!status.ok()) return status;
    return true;
  });
}

absl::StatusOr<std::vector<ScheduleInfo>> ListSchedulesTx(PGconn* conn) {
  absl::StatusOr<PgResult> r = PgExec(conn, kListSql);
  if (!r.ok()) return r.status();
  std::vector<ScheduleInfo> infos;
  for (int i = 0; i < r->rows(); ++i) {
    absl::StatusOr<Row> row =
        Decode(*r, i, /*with_now=*/true, /*reported=*/true);
    if (!row.ok()) return row.status();
    infos.push_back(InfoOf(*row));
  }
  return infos;
}

absl::StatusOr<ScheduleInfo> GetScheduleTx(PGconn* conn,
                                           const std::string& name) {
  absl::StatusOr<PgResult> r = PgExec(conn, kGetSql, PgParams().Bytes(name));
  if (!r.ok()) return r.status();
  if (r->rows() == 0) return absl::NotFoundError("no such schedule");
  absl::StatusOr<Row> row = Decode(*r, 0, /*with_now=*/true, /*reported=*/true);
  if (!row.ok()) return row.status();
  return InfoOf(*row);
}

absl::StatusOr<ScheduleWrite> AdvanceScheduleTx(PGconn* conn,
                                                const std::string& name,
                                                const Inserter& inserter) {
  return InTransaction<ScheduleWrite>(
      conn, [&] { return AdvanceLocked(conn, name, inserter); });
}

absl::StatusOr<CompleteAndAdvanceResult> CompleteAndAdvanceTx(
    Store& store, absl::Span<const Completion> completions, int64_t horizon_us,
    absl::Span<const std::string> names, const Inserter& inserter,
    const AttemptLog& log) {
  PGconn* conn = store.conn();
  return InTransaction<CompleteAndAdvanceResult>(
      conn, [&]() -> absl::StatusOr<CompleteAndAdvanceResult> {
        CompleteAndAdvanceResult result;
        absl::StatusOr<CompleteResult> complete =
            store.Complete(completions, horizon_us, log);
        if (!complete.ok()) return complete.status();
        result.complete = *std::move(complete);
        absl::Status status = PgExec(conn, kSavepointSql).status();
        if (!status.ok()) return status;
        for (const std::string& name : names) {
          absl::StatusOr<ScheduleWrite> write =
              AdvanceLocked(conn, name, inserter);
          if (!write.ok()) {
            if (absl::IsUnavailable(write.status())) return write.status();
            status = PgExec(conn, kRollbackToSavepointSql).status();
            if (!status.ok()) return status;
            result.writes.clear();
            result.advance_failed = true;
            break;
          }
          result.writes.push_back(*std::move(write));
        }
        return result;
      });
}

absl::StatusOr<DueScheduleList> DueSchedules(PGconn* conn,
                                             absl::Span<const int> slots,
                                             int64_t horizon_us,
                                             int64_t limit) {
  std::vector<int32_t> ints(slots.begin(), slots.end());
  absl::StatusOr<PgResult> r = PgExec(conn, kDueSql,
                                      PgParams()
                                          .Int32Array(ints)
                                          .Int64(horizon_us)
                                          .Int64(limit)
                                          .Int64(kRunAnywayPlanLeadUs));
  if (!r.ok()) return r.status();
  DueScheduleList due;
  for (int i = 0; i < r->rows(); ++i) {
    PgRow row(*r, i);
    std::string name = row.Bytes("name");
    const int64_t in_us = row.Int("in_us");
    if (!row.status().ok()) return row.status();
    if (in_us > 0) {
      due.next_in_us = in_us;
      break;
    }
    if (static_cast<int64_t>(due.names.size()) < limit) {
      due.names.push_back(std::move(name));
    }
  }
  return due;
}

}  // namespace durable_internal
}  // namespace timingwheel
