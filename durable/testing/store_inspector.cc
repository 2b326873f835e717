// Copyright 2026 The timingwheel Authors.

#include "durable/testing/store_inspector.h"

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/testing/store_inspector_internal.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {

using durable_internal::PgExec;
using durable_internal::PgParams;
using durable_internal::PgResult;
using durable_internal::PgRow;

namespace store_inspector_internal {
namespace {

void IgnoreNotice(void*, const char*) {}

}  // namespace

absl::StatusOr<Conn> Connect(const std::string& conninfo) {
  Conn conn(PQconnectdb(conninfo.c_str()));
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
    return absl::UnavailableError(
        absl::StrCat("StoreInspector cannot connect: ",
                     conn ? PQerrorMessage(conn.get()) : "out of memory"));
  }
  PQsetNoticeProcessor(conn.get(), &IgnoreNotice, nullptr);
  return conn;
}

// Runs the constant statement `sql` with `params` on a new connection.
absl::StatusOr<PgResult> Run(const std::string& conninfo,
                             const std::string& sql, const PgParams& params) {
  absl::StatusOr<Conn> conn = Connect(conninfo);
  if (!conn.ok()) return conn.status();
  absl::StatusOr<PgResult> result = PgExec(conn->get(), sql.c_str(), params);
  if (!result.ok()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat(result.status().message(), " (in `", sql, "`)"));
  }
  return result;
}

// The one integer of a one-row, one-column result.
absl::StatusOr<int64_t> RunInt(const std::string& conninfo,
                               const std::string& sql, const PgParams& params) {
  absl::StatusOr<PgResult> result = Run(conninfo, sql, params);
  if (!result.ok()) return result.status();
  if (result->rows() != 1 || PQnfields(result->get()) != 1 ||
      result->IsNull(0, 0)) {
    return absl::InternalError(
        absl::StrCat("`", sql, "` did not return one integer"));
  }
  return result->Int(0, 0);
}

// The number of rows a write changed.
absl::StatusOr<int64_t> RunWrite(const std::string& conninfo,
                                 const std::string& sql,
                                 const PgParams& params) {
  absl::StatusOr<PgResult> result = Run(conninfo, sql, params);
  if (!result.ok()) return result.status();
  return std::strtoll(PQcmdTuples(result->get()), nullptr, 10);
}

}  // namespace store_inspector_internal

namespace {

using store_inspector_internal::Run;
using store_inspector_internal::RunInt;

std::optional<std::string> OptionalBytes(const PgRow& row, const char* name) {
  if (row.IsNull(name)) return std::nullopt;
  return row.Bytes(name);
}

// The conditions of a `TaskMatch` over `tw_timer t`, and their parameters
// ($1 to $19, in this order).
constexpr char kTaskWhere[] = R"sql(
 WHERE (NOT $1 OR t.task_id = $2)
   AND substring(t.task_id FROM 1 FOR length($3)) = $3
   AND ($4 < 0 OR t.state = $4)
   AND ($5 < 0 OR t.state <> $5)
   AND ($6 < 0 OR t.state < $6)
   AND ($7 < 0 OR t.state >= $7)
   AND ($8 < 0 OR t.attempt = $8)
   AND ($9 < 0 OR t.attempt <> $9)
   AND ($10 < 0 OR t.attempt > $10)
   AND (NOT $11 OR t.state = $12 OR t.epoch < $13)
   AND (NOT $14 OR t.epoch = (SELECT l2.epoch FROM tw_slot_lease l2
                               WHERE l2.slot = t.slot))
   AND (NOT $15 OR t.finished_us > $16)
   AND $17
   AND (NOT $18 OR t.payload = $19))sql";

int32_t StateOr(const std::optional<TaskState>& state) {
  return state ? static_cast<int32_t>(*state) : -1;
}

PgParams TaskParams(const TaskMatch& match) {
  PgParams params;
  params.Bool(match.id.has_value())
      .Bytes(match.id.value_or(""))
      .Bytes(match.id_prefix)
      .Int32(StateOr(match.state))
      .Int32(StateOr(match.not_state))
      .Int32(StateOr(match.state_before))
      .Int32(StateOr(match.state_at_least))
      .Int32(match.attempt.value_or(-1))
      .Int32(match.not_attempt.value_or(-1))
      .Int32(match.attempt_above.value_or(-1))
      .Bool(match.not_claimed_under.has_value())
      .Int32(static_cast<int32_t>(TaskState::kPending))
      .Int64(match.not_claimed_under.value_or(0))
      .Bool(match.at_lease_epoch)
      .Bool(match.finished_after_us.has_value())
      .Int64(match.finished_after_us.value_or(0))
      .Bool(true)
      .Bool(match.payload.has_value())
      .Bytes(match.payload.value_or(""));
  return params;
}

// The conditions of a `LeaseMatch` over `tw_slot_lease l` ($1 to $10).
constexpr char kLeaseWhere[] = R"sql(
 WHERE (NOT $1 OR l.owner = $2)
   AND (NOT $3 OR l.owner IS DISTINCT FROM $4)
   AND (NOT $5 OR l.owner IS NOT NULL)
   AND (NOT $6 OR l.owner IS NOT NULL OR l.epoch <> 0)
   AND (NOT $7 OR l.owner IS NULL OR l.lease_until_us <= tw_now_us())
   AND (NOT $8 OR l.lease_until_us > tw_now_us() + $9)
   AND $10)sql";

PgParams LeaseParams(const LeaseMatch& match) {
  PgParams params;
  params.Bool(match.owner.has_value())
      .Text(match.owner.value_or(""))
      .Bool(match.not_owner.has_value())
      .Text(match.not_owner.value_or(""))
      .Bool(match.owned)
      .Bool(match.touched)
      .Bool(match.free_or_expired)
      .Bool(match.lease_beyond_us.has_value())
      .Int64(match.lease_beyond_us.value_or(0))
      .Bool(true);
  return params;
}

constexpr char kTaskColumns[] = R"sql(
SELECT t.task_id, t.slot, t.state, t.due_us, t.version, t.epoch, t.attempt,
       t.payload, t.last_error, t.finished_us, t.kind, t.priority,
       l.owner, coalesce(l.epoch, 0) AS lease_epoch, tw_now_us() AS now_us
  FROM tw_timer t LEFT JOIN tw_slot_lease l ON l.slot = t.slot)sql";

TaskRow ReadTask(const PgRow& row) {
  TaskRow task;
  task.id = row.Bytes("task_id");
  task.slot = static_cast<int>(row.Int("slot"));
  task.state = static_cast<TaskState>(row.Int("state"));
  task.due_us = row.Int("due_us");
  task.version = row.Int("version");
  task.epoch = row.Int("epoch");
  task.attempt = static_cast<int>(row.Int("attempt"));
  task.payload = row.Bytes("payload");
  task.last_error = OptionalBytes(row, "last_error");
  if (!row.IsNull("finished_us")) task.finished_us = row.Int("finished_us");
  task.kind = row.Bytes("kind");
  task.priority = static_cast<int>(row.Int("priority"));
  task.owner = OptionalBytes(row, "owner");
  task.lease_epoch = row.Int("lease_epoch");
  task.now_us = row.Int("now_us");
  return task;
}

}  // namespace

absl::StatusOr<int64_t> StoreInspector::CountTasks(
    const TaskMatch& match) const {
  return RunInt(conninfo_,
                absl::StrCat("SELECT count(*) FROM tw_timer t", kTaskWhere),
                TaskParams(match));
}

absl::StatusOr<TaskSummary> StoreInspector::SummarizeTasks(
    const TaskMatch& match) const {
  absl::StatusOr<PgResult> result = Run(
      conninfo_,
      absl::StrCat(
          "SELECT count(*) AS n, coalesce(max(t.attempt), 0) AS max_attempt, "
          "coalesce(min(t.due_us), 0) AS min_due_us, "
          "coalesce(max(t.due_us), 0) AS max_due_us, "
          "coalesce(min(t.finished_us), -1) AS min_finished_us, "
          "count(DISTINCT t.slot) AS slots, tw_now_us() AS now_us "
          "FROM tw_timer t",
          kTaskWhere),
      TaskParams(match));
  if (!result.ok()) return result.status();
  PgRow row(*result, 0);
  TaskSummary summary;
  summary.count = row.Int("n");
  summary.max_attempt = row.Int("max_attempt");
  summary.min_due_us = row.Int("min_due_us");
  summary.max_due_us = row.Int("max_due_us");
  summary.min_finished_us = row.Int("min_finished_us");
  summary.distinct_slots = row.Int("slots");
  summary.now_us = row.Int("now_us");
  if (!row.status().ok()) return row.status();
  return summary;
}

absl::StatusOr<TaskRow> StoreInspector::Task(const std::string& id) const {
  absl::StatusOr<std::vector<TaskRow>> rows = Tasks(TaskMatch().Id(id));
  if (!rows.ok()) return rows.status();
  if (rows->empty()) {
    return absl::NotFoundError(absl::StrCat("no task \"", id, "\""));
  }
  return std::move(rows->front());
}

absl::StatusOr<std::vector<TaskRow>> StoreInspector::Tasks(
    const TaskMatch& match, bool by_due) const {
  absl::StatusOr<PgResult> result =
      Run(conninfo_,
          absl::StrCat(
              kTaskColumns, kTaskWhere,
              by_due ? " ORDER BY t.due_us, t.task_id" : " ORDER BY t.task_id"),
          TaskParams(match));
  if (!result.ok()) return result.status();
  std::vector<TaskRow> rows;
  for (int i = 0; i < result->rows(); ++i) {
    PgRow row(*result, i);
    rows.push_back(ReadTask(row));
    if (!row.status().ok()) return row.status();
  }
  return rows;
}

absl::StatusOr<std::map<std::string, int64_t>> StoreInspector::DueTimes(
    const TaskMatch& match) const {
  absl::StatusOr<PgResult> result = Run(
      conninfo_,
      absl::StrCat("SELECT t.task_id, t.due_us FROM tw_timer t", kTaskWhere),
      TaskParams(match));
  if (!result.ok()) return result.status();
  std::map<std::string, int64_t> due;
  for (int i = 0; i < result->rows(); ++i) {
    due[result->Bytes(i, 0)] = result->Int(i, 1);
  }
  return due;
}

absl::StatusOr<int64_t> StoreInspector::DbNowUs() const {
  return RunInt(conninfo_, "SELECT tw_now_us()");
}

absl::StatusOr<int64_t> StoreInspector::CountSlots(
    const LeaseMatch& match) const {
  return RunInt(
      conninfo_,
      absl::StrCat("SELECT count(*) FROM tw_slot_lease l", kLeaseWhere),
      LeaseParams(match));
}

absl::StatusOr<LeaseSummary> StoreInspector::SummarizeLeases(
    const LeaseMatch& match) const {
  absl::StatusOr<PgResult> result = Run(
      conninfo_,
      absl::StrCat("SELECT count(*) AS n, count(DISTINCT l.owner) AS owners, "
                   "coalesce(min(l.epoch), 0) AS min_epoch, "
                   "coalesce(max(l.epoch), 0) AS max_epoch "
                   "FROM tw_slot_lease l",
                   kLeaseWhere),
      LeaseParams(match));
  if (!result.ok()) return result.status();
  PgRow row(*result, 0);
  LeaseSummary summary;
  summary.count = row.Int("n");
  summary.distinct_owners = row.Int("owners");
  summary.min_epoch = row.Int("min_epoch");
  summary.max_epoch = row.Int("max_epoch");
  if (!row.status().ok()) return row.status();
  return summary;
}

absl::StatusOr<LeaseRow> StoreInspector::Lease(int slot) const {
  absl::StatusOr<PgResult> result =
      Run(conninfo_,
          "SELECT slot, owner, epoch, lease_until_us, horizon_us "
          "FROM tw_slot_lease WHERE slot = $1",
          PgParams().Int32(slot));
  if (!result.ok()) return result.status();
  if (result->rows() == 0) {
    return absl::NotFoundError(absl::StrCat("no slot ", slot));
  }
  PgRow row(*result, 0);
  LeaseRow lease;
  lease.slot = static_cast<int>(row.Int("slot"));
  lease.owner = OptionalBytes(row, "owner");
  lease.epoch = row.Int("epoch");
  lease.lease_until_us = row.Int("lease_until_us");
  lease.horizon_us = row.Int("horizon_us");
  if (!row.status().ok()) return row.status();
  return lease;
}

absl::StatusOr<std::map<std::string, int64_t>> StoreInspector::SlotsPerOwner()
    const {
  absl::StatusOr<PgResult> result =
      Run(conninfo_,
          "SELECT coalesce(owner, '') AS owner, count(*) AS n "
          "FROM tw_slot_lease GROUP BY 1");
  if (!result.ok()) return result.status();
  std::map<std::string, int64_t> slots;
  for (int i = 0; i < result->rows(); ++i) {
    slots[result->Bytes(i, 0)] = result->Int(i, 1);
  }
  return slots;
}

absl::StatusOr<int64_t> StoreInspector::CountNodes() const {
  return RunInt(conninfo_, "SELECT count(*) FROM tw_node");
}

absl::StatusOr<bool> StoreInspector::HasNode(const std::string& node) const {
  absl::StatusOr<int64_t> n =
      RunInt(conninfo_, "SELECT count(*) FROM tw_node WHERE node_id = $1",
             PgParams().Text(node));
  if (!n.ok()) return n.status();
  return *n > 0;
}

absl::StatusOr<int64_t> StoreInspector::CountNodesExcept(
    const std::string& node) const {
  return RunInt(conninfo_, "SELECT count(*) FROM tw_node WHERE node_id <> $1",
                PgParams().Text(node));
}

absl::StatusOr<std::vector<AttemptRow>> StoreInspector::Attempts(
    const std::string& id) const {
  absl::StatusOr<PgResult> result =
      Run(conninfo_,
          "SELECT attempt, outcome, node_id, started_us, finished_us, error "
          "FROM tw_attempt WHERE task_id = $1 ORDER BY finished_us, attempt",
          PgParams().Bytes(id));
  if (!result.ok()) return result.status();
  std::vector<AttemptRow> rows;
  for (int i = 0; i < result->rows(); ++i) {
    PgRow row(*result, i);
    AttemptRow attempt;
    attempt.attempt = static_cast<int>(row.Int("attempt"));
    attempt.outcome = static_cast<int>(row.Int("outcome"));
    attempt.node_id = row.Bytes("node_id");
    attempt.started_us = row.Int("started_us");
    attempt.finished_us = row.Int("finished_us");
    attempt.error = OptionalBytes(row, "error");
    if (!row.status().ok()) return row.status();
    rows.push_back(std::move(attempt));
  }
  return rows;
}

absl::StatusOr<int64_t> StoreInspector::CountAttempts() const {
  return RunInt(conninfo_, "SELECT count(*) FROM tw_attempt");
}

absl::StatusOr<int64_t> StoreInspector::CountAttempts(
    const std::string& id) const {
  return RunInt(conninfo_, "SELECT count(*) FROM tw_attempt WHERE task_id = $1",
                PgParams().Bytes(id));
}

absl::StatusOr<int64_t> StoreInspector::CountKinds(
    const std::string& node) const {
  return RunInt(conninfo_, "SELECT count(*) FROM tw_kind WHERE node_id = $1",
                PgParams().Text(node));
}

absl::StatusOr<int64_t> StoreInspector::CountSchedules() const {
  return RunInt(conninfo_, "SELECT count(*) FROM tw_schedule");
}

absl::StatusOr<int64_t> StoreInspector::ScheduleWrittenUs(
    const std::string& name) const {
  absl::StatusOr<PgResult> result =
      Run(conninfo_, "SELECT updated_us FROM tw_schedule WHERE name = $1",
          PgParams().Bytes(name));
  if (!result.ok()) return result.status();
  if (result->rows() == 0) {
    return absl::NotFoundError(absl::StrCat("no schedule \"", name, "\""));
  }
  return result->Int(0, 0);
}

absl::StatusOr<bool> StoreInspector::SchemaExists() const {
  absl::StatusOr<int64_t> exists =
      RunInt(conninfo_, "SELECT (to_regclass('tw_meta') IS NOT NULL)::int");
  if (!exists.ok()) return exists.status();
  return *exists != 0;
}

absl::StatusOr<int64_t> StoreInspector::SchemaVersion() const {
  return RunInt(conninfo_,
                "SELECT value FROM tw_meta WHERE key = 'schema_version'");
}

}  // namespace durable_testing
}  // namespace timingwheel
