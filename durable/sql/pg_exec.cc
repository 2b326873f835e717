// Copyright 2026 The timingwheel Authors.

#include "durable/sql/pg_exec.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "durable/sql/redact.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

bool IsConnectionError(const char* sqlstate) {
  if (sqlstate == nullptr) return false;
  absl::string_view code(sqlstate);
  // Class 08: connection exception; 57P01-57P03: the server is shutting
  // down, crashed or starting; 25006: a read-only server.
  return absl::StartsWith(code, "08") || code == "57P01" || code == "57P02" ||
         code == "57P03" || code == "25006";
}

// SQLSTATE 42501 (insufficient_privilege) as an error an operator can act
// on: who was refused where, and the two ways out. PostgreSQL 15 no longer
// lets every user create tables in the `public` schema, so this is the
// first error many users meet.
absl::Status PermissionDeniedFor(PGconn* conn, absl::string_view message) {
  const char* user = conn != nullptr ? PQuser(conn) : nullptr;
  const char* db = conn != nullptr ? PQdb(conn) : nullptr;
  const std::string who = user != nullptr ? user : "?";
  return absl::PermissionDeniedError(absl::StrCat(
      "PostgreSQL refused user \"", who, "\" on database \"",
      db != nullptr ? db : "?", "\": ", message,
      " (hint: connect as the database's owner to create the schema, e.g. "
      "`twctl --db '... user=<the owner>' migrate`, or have the owner grant "
      "this user what it lacks, e.g. `GRANT CREATE ON SCHEMA public TO \"",
      who, "\"`)"));
}

absl::StatusOr<PgResult> CheckResultOf(PGconn* conn, PgResult result) {
  ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    return result;
  }
  const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
  std::string message =
      result.get() != nullptr ? PQresultErrorMessage(result.get()) : "";
  if (message.empty()) message = PQerrorMessage(conn);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  message = PgScrubbed(conn, message);
  if (PQstatus(conn) == CONNECTION_BAD || IsConnectionError(sqlstate)) {
    return absl::UnavailableError(
        absl::StrCat("PostgreSQL connection lost: ", message));
  }
  absl::string_view code = sqlstate != nullptr ? sqlstate : "";
  if (code == "23505") return absl::AlreadyExistsError(message);
  if (code == "42501") return PermissionDeniedFor(conn, message);
  if (code == "57014" || code == "55P03") {
    return absl::DeadlineExceededError(
        absl::StrCat("PostgreSQL statement timed out: ", message));
  }
  // Errors that say nothing of the statement's rows: trying again later
  // may succeed (a batch is sent again whole, not split as if refused).
  if (absl::StartsWith(code, "40")) {  // Deadlock, serialization failure.
    return absl::AbortedError(absl::StrCat("PostgreSQL: ", message));
  }
  if (absl::StartsWith(code, "53")) {  // Out of memory, disk full, ...
    return absl::ResourceExhaustedError(absl::StrCat("PostgreSQL: ", message));
  }
  if (absl::StartsWith(code, "58")) {  // I/O error, system error.
    return absl::UnavailableError(absl::StrCat("PostgreSQL: ", message));
  }
  return absl::InternalError(absl::StrCat("PostgreSQL: ", message));
}

}  // namespace

std::string PgScrubbed(PGconn* conn, absl::string_view message) {
  std::vector<std::string> secrets;
  const char* password = conn != nullptr ? PQpass(conn) : nullptr;
  if (password != nullptr && password[0] != '\0') secrets.push_back(password);
  return ScrubSecrets(message, secrets);
}

absl::StatusOr<PgResult> PgCheckResult(PGconn* conn, PgResult result) {
  return CheckResultOf(conn, std::move(result));
}

absl::StatusOr<PgResult> PgExec(PGconn* conn, const char* sql,
                                const PgParams& params) {
  return CheckResultOf(
      conn, PgResult(PQexecParams(conn, sql, params.size(), params.types(),
                                  params.values(), params.lengths(),
                                  params.formats(), /*resultFormat=*/1)));
}

absl::Status PgExecScript(PGconn* conn, const char* sql) {
  return CheckResultOf(conn, PgResult(PQexec(conn, sql))).status();
}

int PgRow::Column(const char* name) const {
  int col = PQfnumber(result_.get(), name);
  if (col < 0 && status_.ok()) {
    status_ = absl::InternalError(
        absl::StrCat("the statement returned no column \"", name, "\""));
  }
  return col;
}

bool PgRow::IsNull(const char* name) const {
  int col = Column(name);
  return col < 0 || result_.IsNull(row_, col);
}

int64_t PgRow::Int(const char* name) const {
  int col = Column(name);
  return col < 0 ? 0 : result_.Int(row_, col);
}

std::string PgRow::Bytes(const char* name) const {
  int col = Column(name);
  return col < 0 ? std::string() : result_.Bytes(row_, col);
}

absl::Status PgConnectError(absl::string_view redacted_conninfo,
                            absl::string_view message) {
  while (!message.empty() && message.back() == '\n') message.remove_suffix(1);
  if (absl::StartsWith(message, "invalid ")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid connection string (", redacted_conninfo, "): ", message));
  }
  return absl::UnavailableError(absl::StrCat(
      "cannot connect to PostgreSQL (", redacted_conninfo, "): ", message));
}

int PgColumns::operator()(const char* name) {
  int col = PQfnumber(result_.get(), name);
  if (col < 0 && status_.ok()) {
    status_ = absl::InternalError(
        absl::StrCat("the statement returned no column \"", name, "\""));
  }
  return col;
}

}  // namespace durable_internal
}  // namespace timingwheel
