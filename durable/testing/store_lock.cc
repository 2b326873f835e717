// Copyright 2026 The timingwheel Authors.

#include "durable/testing/store_lock.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {

absl::StatusOr<std::unique_ptr<StoreLock>> StoreLock::Hold(
    const std::string& conninfo, const char* sql, const std::string* param,
    bool binary_param, bool expect_row) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("StoreLock cannot connect: ",
                     conn ? PQerrorMessage(conn) : "out of memory"));
    PQfinish(conn);
    return status;
  }
  // Owns the connection from here: its destructor rolls back and closes.
  std::unique_ptr<StoreLock> lock(new StoreLock(conn));
  PGresult* begin = PQexec(conn, "BEGIN");
  const bool begun = PQresultStatus(begin) == PGRES_COMMAND_OK;
  PQclear(begin);
  if (!begun) {
    return absl::InternalError(
        absl::StrCat("StoreLock: BEGIN failed: ", PQerrorMessage(conn)));
  }
  const char* values[1] = {param != nullptr ? param->data() : nullptr};
  const int lengths[1] = {param != nullptr ? static_cast<int>(param->size())
                                           : 0};
  const int formats[1] = {binary_param ? 1 : 0};
  PGresult* r = PQexecParams(conn, sql, param != nullptr ? 1 : 0, nullptr,
                             values, lengths, formats, /*resultFormat=*/0);
  const ExecStatusType status = PQresultStatus(r);
  const int rows = PQntuples(r);
  std::string error = PQresultErrorMessage(r);
  PQclear(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return absl::InternalError(
        absl::StrCat("StoreLock: `", sql, "` failed: ", error));
  }
  if (expect_row && rows == 0) {
    return absl::NotFoundError(
        absl::StrCat("StoreLock: `", sql, "` found no row to lock"));
  }
  return lock;
}

absl::StatusOr<std::unique_ptr<StoreLock>> StoreLock::LockTable(
    const std::string& conninfo, Table table) {
  return Hold(conninfo,
              table == Table::kTasks
                  ? "LOCK TABLE tw_timer IN ACCESS EXCLUSIVE MODE"
                  : "LOCK TABLE tw_slot_lease IN ACCESS EXCLUSIVE MODE",
              nullptr, false, /*expect_row=*/false);
}

absl::StatusOr<std::unique_ptr<StoreLock>> StoreLock::LockTask(
    const std::string& conninfo, const std::string& id) {
  return Hold(conninfo,
              "SELECT 1 FROM tw_timer WHERE task_id = $1::bytea FOR UPDATE",
              &id, /*binary_param=*/true, /*expect_row=*/true);
}

absl::StatusOr<std::unique_ptr<StoreLock>> StoreLock::LockLease(
    const std::string& conninfo, int slot) {
  const std::string text = absl::StrCat(slot);
  return Hold(conninfo,
              "SELECT 1 FROM tw_slot_lease WHERE slot = $1::int FOR UPDATE",
              &text, /*binary_param=*/false, /*expect_row=*/true);
}

StoreLock::~StoreLock() {
  PQclear(PQexec(conn_, "ROLLBACK"));
  PQfinish(conn_);
}

}  // namespace durable_testing
}  // namespace timingwheel
