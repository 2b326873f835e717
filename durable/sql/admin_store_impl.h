// Copyright 2026 The timingwheel Authors.
//
// admin_store_impl.h
// -----------------------------------------------------------------------------
//
// Private to //durable/sql:admin: `AdminStore::Impl`, the connection under an
// `AdminStore`, shared by admin_store.cc (connecting, reconnecting, the
// schema check), admin_reads.cc (status, list, show) and admin_writes.cc
// (cancel, retry, reschedule); and the conversions they share.

#ifndef TIMINGWHEEL_DURABLE_SQL_ADMIN_STORE_IMPL_H_
#define TIMINGWHEEL_DURABLE_SQL_ADMIN_STORE_IMPL_H_

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/sql/pg_exec.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace admin_internal {

inline absl::Time FromMicros(int64_t us) { return absl::FromUnixMicros(us); }

inline int64_t ToMicros(absl::Time t) {
  if (t == absl::InfinitePast()) return std::numeric_limits<int64_t>::min();
  if (t == absl::InfiniteFuture()) return std::numeric_limits<int64_t>::max();
  return absl::ToUnixMicros(t);
}

inline std::string StateName(int64_t state) {
  if (state < 0 || state >= kTaskStateCount) {
    return absl::StrCat("state ", state);
  }
  return TaskStateName(static_cast<TaskState>(state));
}

}  // namespace admin_internal

// AdminStore::Impl
//
// The connection and what it needs to reconnect and describe itself.
// Thread-compatible: AdminStore calls it under its mutex.
class AdminStore::Impl {
 public:
  Impl(PGconn* conn, std::string redacted, std::vector<std::string> secrets,
       absl::Duration timeout)
      : conn_(conn),
        redacted_(std::move(redacted)),
        secrets_(std::move(secrets)),
        timeout_(timeout) {}
  ~Impl() { PQfinish(conn_); }

  PGconn* conn() const { return conn_; }

  // Sets the statement and lock timeouts and the application name.
  absl::Status ApplySettings();

  // Re-establishes a connection lost by an earlier call.
  absl::Status EnsureConnected();

  // OK when the store's schema is the one this library knows.
  absl::Status CheckSchema();

  // Runs `read` (statements only), reconnecting and retrying once when the
  // connection was lost.
  template <typename T, typename Read>
  absl::StatusOr<T> Reading(const Read& read) {
    absl::StatusOr<T> result;
    for (int attempt = 0; attempt < 2; ++attempt) {
      absl::Status status = EnsureConnected();
      if (!status.ok()) return status;
      status = CheckSchema();
      if (status.ok()) {
        result = read();
        status = result.status();
      }
      if (!absl::IsUnavailable(status)) return result.ok() ? result : status;
    }
    return result;
  }

  // Runs `write` (one transaction) once, after reconnecting and checking
  // the schema (retried once when the connection was found lost before
  // the write began); a connection lost during it says the change may
  // have committed.
  template <typename T, typename Write>
  absl::StatusOr<T> Writing(const Write& write) {
    absl::Status status;
    for (int attempt = 0; attempt < 2; ++attempt) {
      status = EnsureConnected();
      if (!status.ok()) return status;
      status = CheckSchema();
      // A connection the server ended while it sat idle shows only when
      // used: probe it, so that it is re-established before the write.
      if (status.ok()) {
        status = durable_internal::PgExec(conn_, "SELECT 1").status();
      }
      if (!absl::IsUnavailable(status)) break;
    }
    if (!status.ok()) return status;
    absl::StatusOr<T> result = write();
    if (absl::IsUnavailable(result.status())) {
      return absl::UnavailableError(absl::StrCat(
          result.status().message(),
          " (the change may or may not have been committed: check again)"));
    }
    return result;
  }

  // The reads (admin_reads.cc).
  absl::StatusOr<absl::Time> ReadNow();
  absl::StatusOr<StoreStatus> ReadStatus();
  absl::StatusOr<TaskPage> ReadList(const TaskFilter& filter);
  absl::StatusOr<TaskDetail> ReadShow(const std::string& id);

  // The writes (admin_writes.cc).
  enum class Write { kCancel, kRetry, kReschedule, kDiscard };
  absl::StatusOr<ActionResult> RunWrite(Write write, const std::string& id,
                                        AdminDue due);

  const std::string& redacted() const { return redacted_; }

 private:
  absl::StatusOr<ActionResult> WriteInTransaction(Write write,
                                                  const std::string& id,
                                                  AdminDue due);

  PGconn* conn_;
  const std::string redacted_;
  const std::vector<std::string> secrets_;
  const absl::Duration timeout_;
  bool schema_checked_ = false;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_ADMIN_STORE_IMPL_H_
