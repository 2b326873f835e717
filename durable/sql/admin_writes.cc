// Copyright 2026 The timingwheel Authors.
//
// AdminStore's writes: cancel, retry, reschedule, discard, each one short
// transaction that locks the task's row first (see admin_store.h).

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/sql/admin_store_impl.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "libpq-fe.h"

namespace timingwheel {

using admin_internal::FromMicros;
using admin_internal::StateName;
using admin_internal::ToMicros;
using durable_internal::PgExec;
using durable_internal::PgParams;
using durable_internal::PgResult;
using durable_internal::PgRow;

namespace {

// The writes: lock the row, then change it (see admin_store.h).
constexpr char kLockTaskSql[] = R"sql(
SELECT state FROM tw_timer WHERE task_id = $1 FOR UPDATE
)sql";

constexpr char kDeleteTaskSql[] = R"sql(
DELETE FROM tw_timer WHERE task_id = $1 RETURNING slot
)sql";

// Reschedule: PENDING at a new due time ($2: absolute, or a delay after
// now if $3), a new version.
constexpr char kRescheduleSql[] = R"sql(
UPDATE tw_timer
SET state = 0,
    due_us = CASE WHEN $3 THEN tw_now_us() + $2 ELSE $2 END,
    version = nextval('tw_version_seq')
WHERE task_id = $1
RETURNING slot, due_us
)sql";

// Retry: the FAILED row back to PENDING in place (same id, slot, payload,
// kind, priority, last error and attempt history; attempts 0, epoch 0, a
// new version, no finished time). An UPDATE, not a replacement: deleting
// the row would delete its attempt history with it (tw_attempt's ON
// DELETE CASCADE), and the owner's cleanup of finished rows (store.cc),
// if it waits on this row's lock, re-checks `state >= 3` on the row's new
// version and keeps it (AdminStoreTest.RetryRacingTheCleanupKeepsTheTask,
// AdminHistoryTest.RetryKeepsKindPriorityAndHistory). The comment is the
// statement's marker for that test.
constexpr char kRetrySql[] = R"sql(
UPDATE tw_timer /* admin retry */
SET state = 0, attempt = 0, epoch = 0, finished_us = NULL,
    due_us = CASE WHEN $3 THEN tw_now_us() + $2 ELSE $2 END,
    version = nextval('tw_version_seq')
WHERE task_id = $1
RETURNING slot, due_us
)sql";

// The retry's mark in the attempt history (AttemptOutcome::kOperatorRetry
// = 4): the attempts the task had, who retried it (the database role) and
// when. Written before kRetrySql resets the attempt count.
constexpr char kRetryMarkSql[] = R"sql(
INSERT INTO tw_attempt (task_id, attempt, outcome, node_id, started_us,
                        finished_us, error)
SELECT t.task_id, t.attempt, 4, 'operator ' || current_user, n.now_us,
       n.now_us, NULL
FROM tw_timer t, (SELECT tw_now_us() AS now_us) n
WHERE t.task_id = $1
)sql";

// A later occurrence, waiting or running, of a kSkipWhileRunning schedule
// (overlap 0) whose FAILED occurrence a retry would run again: the retried
// run would overlap it. The schedule's row is locked (FOR SHARE) so that no
// advance writes another occurrence until this transaction ends.
//
// The lock is taken whether or not a later occurrence exists (the row
// comes from tw_schedule alone; the occurrence is a subquery): with none,
// an advance must still wait, or it could write one beside the retry.
constexpr char kLaterOccurrenceSql[] = R"sql(
SELECT (SELECT t.task_id FROM tw_timer t
        WHERE t.task_id > $2 AND t.task_id < $3 AND t.finished_us IS NULL
        LIMIT 1) AS later
FROM tw_schedule s
WHERE s.name = $1 AND s.overlap = 0
FOR SHARE OF s
)sql";

// Wakes the slot's owner at commit if the task is due within its horizon,
// as inserts do (store.cc).
constexpr char kNotifySql[] = R"sql(
SELECT pg_notify('timingwheel', l.slot::text) AS notified
FROM tw_slot_lease l
WHERE l.slot = $1 AND $2 < tw_now_us() + l.horizon_us
)sql";

}  // namespace

absl::StatusOr<ActionResult> AdminStore::Impl::RunWrite(Write write,
                                                        const std::string& id,
                                                        AdminDue due) {
  // A connection found lost before the transaction began is re-established
  // and tried once more: nothing of this write was sent yet.
  absl::Status status;
  for (int attempt = 0; attempt < 2; ++attempt) {
    status = EnsureConnected();
    if (!status.ok()) return status;
    status = CheckSchema();
    if (status.ok()) status = PgExec(conn_, "BEGIN").status();
    if (!absl::IsUnavailable(status)) break;
  }
  if (!status.ok()) return status;
  absl::StatusOr<ActionResult> result = WriteInTransaction(write, id, due);
  if (!result.ok() || result->outcome != ActionOutcome::kDone) {
    (void)PgExec(conn_, "ROLLBACK");
    return result;
  }
  status = PgExec(conn_, "COMMIT").status();
  if (!status.ok()) {
    return absl::Status(
        status.code(),
        absl::StrCat(status.message(),
                     " (the change may or may not have been committed: check "
                     "with `twctl show`)"));
  }
  return result;
}

absl::StatusOr<ActionResult> AdminStore::Impl::WriteInTransaction(
    Write write, const std::string& id, AdminDue due) {
  ActionResult result;
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kLockTaskSql, PgParams().Bytes(id));
  if (!r.ok()) return r.status();
  if (r->rows() == 0) {
    result.outcome = ActionOutcome::kNotFound;
    result.message = "no task with this id";
    return result;
  }
  const int64_t state = PgRow(*r, 0).Int("state");
  result.before = static_cast<TaskState>(state);
  const std::string was = StateName(state);
  bool allowed = false;
  const char* verb = "";
  switch (write) {
    case Write::kCancel:
      allowed = state == 0 || state == 1;
      verb = "cancel";
      break;
    case Write::kRetry:
      allowed = state == static_cast<int64_t>(TaskState::kFailed);
      verb = "retry";
      break;
    case Write::kReschedule:
      allowed = state == 0 || state == 1;
      verb = "reschedule";
      break;
    case Write::kDiscard:
      allowed = state == static_cast<int64_t>(TaskState::kFailed);
      verb = "discard";
      break;
  }
  if (!allowed) {
    result.outcome = ActionOutcome::kWrongState;
    result.after = result.before;
    const char* why = "";
    if (write == Write::kRetry) {
      why = ": only a FAILED task can be retried";
    } else if (write == Write::kDiscard) {
      why = ": only a FAILED task can be discarded";
    } else if (state == static_cast<int64_t>(TaskState::kRunning) &&
               write == Write::kCancel) {
      why =
          ": its handler is running (to stop it and delete the task: "
          "DurableClient::CancelTask() or SQL SELECT tw_cancel_task(id))";
    } else if (state == static_cast<int64_t>(TaskState::kRunning)) {
      why = ": its handler is running";
    } else {
      why = ": it has finished";
    }
    result.message = absl::StrCat("cannot ", verb, " a ", was, " task", why);
    return result;
  }
  std::string schedule;
  int64_t occurrence_us = 0;
  if (write == Write::kRetry &&
      durable_internal::ParseOccurrenceId(id, &schedule, &occurrence_us)) {
    // Under Overlap::kSkipWhileRunning the next occurrence was written when
    // this one failed: running this one again beside it would overlap.
    r = PgExec(conn_, kLaterOccurrenceSql,
               PgParams().Bytes(schedule).Bytes(id).Bytes(
                   durable_internal::OccurrenceRange(schedule).second));
    if (!r.ok()) return r.status();
    if (r->rows() > 0 && !r->IsNull(0, 0)) {
      result.outcome = ActionOutcome::kWrongState;
      result.after = result.before;
      result.message = absl::StrCat(
          "cannot retry this FAILED occurrence: a later occurrence of its "
          "schedule is waiting or running, and the schedule does not overlap "
          "runs (kSkipWhileRunning); pause the schedule, retry, then resume "
          "it");
      return result;
    }
  }
  if (write == Write::kCancel || write == Write::kDiscard) {
    r = PgExec(conn_, kDeleteTaskSql, PgParams().Bytes(id));
    if (!r.ok()) return r.status();
    result.after = result.before;
    result.message =
        absl::StrCat(write == Write::kCancel ? "cancelled" : "discarded",
                     " (was ", was, ")");
    return result;
  }
  const bool relative = due.at == absl::InfinitePast();
  if (write == Write::kRetry) {
    r = PgExec(conn_, kRetryMarkSql, PgParams().Bytes(id));
    if (!r.ok()) return r.status();
  }
  r = PgExec(conn_, write == Write::kRetry ? kRetrySql : kRescheduleSql,
             PgParams()
                 .Bytes(id)
                 .Int64(relative ? absl::ToInt64Microseconds(due.delay)
                                 : ToMicros(due.at))
                 .Bool(relative));
  if (!r.ok()) return r.status();
  PgRow row(*r, 0);
  const int64_t slot = row.Int("slot");
  const int64_t due_us = row.Int("due_us");
  if (!row.status().ok()) return row.status();
  result.after = TaskState::kPending;
  result.due = FromMicros(due_us);
  r = PgExec(conn_, kNotifySql,
             PgParams().Int32(static_cast<int32_t>(slot)).Int64(due_us));
  if (!r.ok()) return r.status();
  result.notified = r->rows() > 0;
  result.message = absl::StrCat(
      write == Write::kRetry ? "retried" : "rescheduled", " (was ", was,
      "), due ",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", result.due, absl::UTCTimeZone()),
      result.notified ? ", owner notified" : "");
  return result;
}

}  // namespace timingwheel
