// Copyright 2026 The timingwheel Authors.
//
// The writes of StoreInspector that fake a fault or a state (tests only),
// and the early-takeover watch.

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_inspector_internal.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {
namespace {

using durable_internal::PgParams;
using store_inspector_internal::Conn;
using store_inspector_internal::Connect;
using store_inspector_internal::Run;
using store_inspector_internal::RunInt;
using store_inspector_internal::RunWrite;

// The early-takeover log (`WatchEarlyTakeovers()`).
constexpr char kWatchEarlyTakeovers[] = R"sql(
CREATE TABLE lease_takeovers (slot int, old_owner text, new_owner text,
                              early_us bigint);
CREATE FUNCTION tw_test_lease_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.owner IS NOT NULL AND OLD.owner IS NOT NULL
     AND NEW.owner <> OLD.owner AND OLD.lease_until_us > tw_now_us() THEN
    INSERT INTO lease_takeovers
      VALUES (NEW.slot, OLD.owner, NEW.owner,
              OLD.lease_until_us - tw_now_us());
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER tw_test_lease_check BEFORE UPDATE ON tw_slot_lease
  FOR EACH ROW EXECUTE FUNCTION tw_test_lease_check();
)sql";

}  // namespace

absl::Status StoreInspector::ForceSchemaVersion(int64_t version) const {
  return Run(conninfo_,
             "UPDATE tw_meta SET value = $1 WHERE key = 'schema_version'",
             PgParams().Int64(version))
      .status();
}

absl::Status StoreInspector::WatchEarlyTakeovers() const {
  absl::StatusOr<Conn> conn = Connect(conninfo_);
  if (!conn.ok()) return conn.status();
  return durable_internal::PgExecScript(conn->get(), kWatchEarlyTakeovers);
}

absl::StatusOr<int64_t> StoreInspector::CountEarlyTakeovers() const {
  return RunInt(conninfo_, "SELECT count(*) FROM lease_takeovers");
}

absl::StatusOr<int64_t> StoreInspector::ExpireLeases(bool skip_locked) const {
  if (skip_locked) {
    return RunWrite(conninfo_,
                    "UPDATE tw_slot_lease SET lease_until_us = 0 WHERE slot IN "
                    "(SELECT slot FROM tw_slot_lease FOR UPDATE SKIP LOCKED)");
  }
  return RunWrite(conninfo_, "UPDATE tw_slot_lease SET lease_until_us = 0");
}

absl::StatusOr<int64_t> StoreInspector::SetLeasesOf(const std::string& node,
                                                    int64_t in_us) const {
  return RunWrite(conninfo_,
                  "UPDATE tw_slot_lease SET lease_until_us = tw_now_us() + $2 "
                  "WHERE owner = $1",
                  PgParams().Text(node).Int64(in_us));
}

absl::StatusOr<int64_t> StoreInspector::ExpireNode(
    const std::string& node) const {
  return RunWrite(conninfo_,
                  "UPDATE tw_node SET heartbeat_us = 0 WHERE node_id = $1",
                  PgParams().Text(node));
}

absl::StatusOr<int64_t> StoreInspector::ForceState(const std::string& id,
                                                   TaskState state) const {
  return RunWrite(conninfo_,
                  "UPDATE tw_timer SET state = $2 WHERE task_id = $1",
                  PgParams().Bytes(id).Int32(static_cast<int32_t>(state)));
}

absl::StatusOr<int64_t> StoreInspector::ForceClaimed(const std::string& id,
                                                     int64_t epoch) const {
  return RunWrite(
      conninfo_,
      "UPDATE tw_timer SET state = $2, epoch = $3 WHERE task_id = $1",
      PgParams()
          .Bytes(id)
          .Int32(static_cast<int32_t>(TaskState::kScheduled))
          .Int64(epoch));
}

absl::StatusOr<int64_t> StoreInspector::ForceAllSucceeded() const {
  return RunWrite(conninfo_,
                  "UPDATE tw_timer SET state = $1, finished_us = tw_now_us()",
                  PgParams().Int32(static_cast<int32_t>(TaskState::kSuccess)));
}

absl::StatusOr<int64_t> StoreInspector::ForceDueAtEarliest() const {
  return RunWrite(
      conninfo_,
      "UPDATE tw_timer SET due_us = (SELECT min(due_us) FROM tw_timer)");
}

absl::StatusOr<int64_t> StoreInspector::DeleteTask(
    const std::string& id) const {
  return RunWrite(conninfo_, "DELETE FROM tw_timer WHERE task_id = $1",
                  PgParams().Bytes(id));
}

absl::Status StoreInspector::InsertTask(const InsertedTask& task) const {
  return Run(conninfo_,
             "INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, "
             "attempt, payload, kind, priority, last_error, finished_us) "
             "VALUES ($1, $2, CASE WHEN $4 THEN $3 ELSE tw_now_us() + $3 END, "
             "$5, CASE WHEN $16 THEN (SELECT epoch FROM tw_slot_lease "
             "WHERE slot = $2) ELSE $6 END, $7, $8, $9, $10, "
             "CASE WHEN $11 THEN $12 END, "
             "CASE WHEN $13 THEN tw_now_us() WHEN $14 THEN $15 END)",
             PgParams()
                 .Bytes(task.id)
                 .Int32(task.slot)
                 .Int64(task.due_in_us)
                 .Bool(task.due_absolute)
                 .Int32(static_cast<int32_t>(task.state))
                 .Int64(task.epoch)
                 .Int32(task.attempt)
                 .Bytes(task.payload)
                 .Text(task.kind)
                 .Int32(task.priority)
                 .Bool(task.last_error.has_value())
                 .Bytes(task.last_error.value_or(""))
                 .Bool(task.finished_now)
                 .Bool(task.finished_us.has_value())
                 .Int64(task.finished_us.value_or(0))
                 .Bool(task.epoch_of_lease))
      .status();
}

absl::Status StoreInspector::InsertAttempt(const std::string& id,
                                           const AttemptRow& row) const {
  return Run(conninfo_,
             "INSERT INTO tw_attempt (task_id, attempt, outcome, node_id, "
             "started_us, finished_us, error) "
             "VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7 THEN $8 END)",
             PgParams()
                 .Bytes(id)
                 .Int32(row.attempt)
                 .Int32(row.outcome)
                 .Text(row.node_id)
                 .Int64(row.started_us)
                 .Int64(row.finished_us)
                 .Bool(row.error.has_value())
                 .Bytes(row.error.value_or("")))
      .status();
}

absl::StatusOr<int64_t> StoreInspector::DeleteAttempts() const {
  return RunWrite(conninfo_, "DELETE FROM tw_attempt");
}

absl::Status StoreInspector::RegisterKind(
    const std::string& kind, const std::string& node,
    std::optional<int64_t> registered_us) const {
  return Run(conninfo_,
             "INSERT INTO tw_kind (kind, node_id, registered_us) "
             "VALUES ($1, $2, CASE WHEN $3 THEN $4 ELSE tw_now_us() END)",
             PgParams()
                 .Text(kind)
                 .Text(node)
                 .Bool(registered_us.has_value())
                 .Int64(registered_us.value_or(0)))
      .status();
}

absl::StatusOr<int64_t> StoreInspector::SetKindAndPriority(
    const std::string& id, const std::string& kind, int priority) const {
  return RunWrite(
      conninfo_,
      "UPDATE tw_timer SET kind = $2, priority = $3 WHERE task_id = $1",
      PgParams().Bytes(id).Text(kind).Int32(priority));
}
}  // namespace durable_testing
}  // namespace timingwheel
