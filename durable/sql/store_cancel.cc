// Copyright 2026 The timingwheel Authors.
//
// Store::CancelTask(): cancel a waiting task, or stop a running one.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// $1 the id, $2 the same id hex-encoded. The row is locked first, so its
// state is the one the delete acts on; a running task's owner hears of it
// at commit. The notification's payload is the hex id, ':' and the row's
// version: only the attempt that ran under that version is stopped (a
// later attempt of a new row with the same id, started before the owner
// heard, is not).
constexpr char kCancelTaskSql[] = R"sql(
WITH prior AS (
  SELECT task_id, state, version FROM tw_timer WHERE task_id = $1
  FOR UPDATE),
gone AS (
  DELETE FROM tw_timer t USING prior
  WHERE t.task_id = prior.task_id AND prior.state < 3
  RETURNING prior.state, prior.version),
told AS (
  SELECT pg_notify('timingwheel_stop', $2 || ':' || version) FROM gone
  WHERE state = 2)
SELECT coalesce((SELECT state FROM prior), -1) AS prior_state,
       (SELECT count(*) FROM gone) AS deleted,
       (SELECT count(*) FROM told) AS told
)sql";

}  // namespace

absl::StatusOr<CancelOutcome> Store::CancelTask(const std::string& id) {
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kCancelTaskSql,
             PgParams().Bytes(id).Text(absl::BytesToHexString(id)));
  if (!r.ok()) return r.status();
  if (r->rows() != 1) return absl::InternalError("CancelTask: no answer");
  PgRow row(*r, 0);
  const int64_t prior = row.Int("prior_state");
  const bool deleted = row.Int("deleted") != 0;
  if (!row.status().ok()) return row.status();
  if (prior < 0) return CancelOutcome::kNotFound;
  if (!deleted) return CancelOutcome::kFinished;
  return prior == static_cast<int64_t>(TaskState::kRunning)
             ? CancelOutcome::kStopRequested
             : CancelOutcome::kCancelled;
}

}  // namespace durable_internal
}  // namespace timingwheel
