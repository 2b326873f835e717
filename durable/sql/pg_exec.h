// Copyright 2026 The timingwheel Authors.
//
// pg_exec.h
// -----------------------------------------------------------------------------
//
// Running constant, parameterized statements on a libpq connection and
// reading their rows by column name, for the store classes that came after
// `Store` (migrations.cc, admin_store.cc). This file defines:
//
//   * `PgExec()`: one statement (binary parameters and results); errors
//     mapped to statuses as `Store`'s are (Unavailable when the connection
//     is lost, AlreadyExists, DeadlineExceeded for a timeout, Internal),
//     with the connection's password scrubbed.
//   * `PgExecScript()`: constant text of several statements (DDL).
//   * `PgRow`: one row of a result, its columns looked up by name.
//   * `PgColumns`: a result's columns looked up by name once, for many rows.
//
// Thread safety: as the connection: one thread at a time.

#ifndef TIMINGWHEEL_DURABLE_SQL_PG_EXEC_H_
#define TIMINGWHEEL_DURABLE_SQL_PG_EXEC_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "durable/sql/pg_params.h"

namespace timingwheel {
namespace durable_internal {

// PgExec()
//
// Runs the constant statement `sql` with `params`; results are binary.
absl::StatusOr<PgResult> PgExec(PGconn* conn, const char* sql,
                                const PgParams& params = PgParams());

// PgCheckResult()
//
// `result` if its statement succeeded, else its error as a status:
// Unavailable for a lost connection (and a read-only server), AlreadyExists
// for a unique violation, DeadlineExceeded for a statement or lock
// timeout, Internal otherwise; the message never holds the password.
absl::StatusOr<PgResult> PgCheckResult(PGconn* conn, PgResult result);

// PgExecScript()
//
// Runs constant text holding several statements (simple query protocol,
// no parameters).
absl::Status PgExecScript(PGconn* conn, const char* sql);

// PgConnectError()
//
// The status for a connection that failed with libpq's `message` (already
// scrubbed of secrets): InvalidArgument for a value libpq refuses ("invalid
// integer value ... for connection option", "invalid sslmode value": a
// typo that no retry mends), Unavailable for anything else (the server
// unreachable, refused, or rejecting the login).
absl::Status PgConnectError(absl::string_view redacted_conninfo,
                            absl::string_view message);

// PgScrubbed()
//
// `message` without the connection's password.
std::string PgScrubbed(PGconn* conn, absl::string_view message);

// PgRow
//
// Row `row` of `result`, read by column name. A name the result lacks
// reads as NULL and is remembered: `status()` then says which (a
// statement and its reader disagree; tests catch it).
class PgRow {
 public:
  PgRow(const PgResult& result, int row) : result_(result), row_(row) {}

  bool IsNull(const char* name) const;
  int64_t Int(const char* name) const;
  std::string Bytes(const char* name) const;

  absl::Status status() const { return status_; }

 private:
  // The column's index, or -1 (recorded in status_).
  int Column(const char* name) const;

  const PgResult& result_;
  const int row_;
  mutable absl::Status status_;
};

// PgColumns
//
// The columns of `result` looked up by name once, for readers of many rows:
// `const int id = columns("task_id");` then `result.Bytes(row, id)`. A name
// the result lacks gives -1 and is remembered: check `status()` before
// reading any row.
class PgColumns {
 public:
  explicit PgColumns(const PgResult& result) : result_(result) {}

  int operator()(const char* name);

  absl::Status status() const { return status_; }

 private:
  const PgResult& result_;
  absl::Status status_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_PG_EXEC_H_
