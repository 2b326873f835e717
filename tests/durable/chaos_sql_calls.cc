// Copyright 2026 The timingwheel Authors.

#include "tests/durable/chaos_sql_calls.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_test {
namespace {

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;

// The error of a failed statement: class 22 (refused input) is
// InvalidArgument, anything else (a dropped connection, a server going
// away) Unavailable.
absl::Status ErrorOf(PGconn* conn, const PGresult* r) {
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string message = PQerrorMessage(conn);
  if (state != nullptr && state[0] == '2' && state[1] == '2') {
    return absl::InvalidArgumentError(message);
  }
  return absl::UnavailableError(message);
}

// Runs `sql` with text parameters; the first column of the first row.
absl::StatusOr<std::string> One(PGconn* conn, const char* sql,
                                const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const std::string& p : params) values.push_back(p.c_str());
  Result r(PQexecParams(conn, sql, static_cast<int>(values.size()), nullptr,
                        values.data(), nullptr, nullptr, 0));
  const ExecStatusType status = PQresultStatus(r.get());
  if (status == PGRES_COMMAND_OK) return std::string();
  if (status != PGRES_TUPLES_OK) return ErrorOf(conn, r.get());
  if (PQntuples(r.get()) < 1) return std::string();
  return std::string(PQgetvalue(r.get(), 0, 0));
}

absl::StatusOr<Conn> Connect(const std::string& conninfo) {
  Conn conn(PQconnectdb(conninfo.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return absl::UnavailableError(PQerrorMessage(conn.get()));
  }
  return conn;
}

std::string Timestamp(int64_t us) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%E6S+00", absl::FromUnixMicros(us),
                          absl::UTCTimeZone());
}

}  // namespace

absl::Status SqlScheduleInTransaction(
    PGconn* conn, const std::vector<ScheduleRequest>& requests) {
  absl::StatusOr<std::string> begun = One(conn, "BEGIN", {});
  if (!begun.ok()) return begun.status();
  for (const ScheduleRequest& r : requests) {
    absl::StatusOr<std::string> answer =
        One(conn,
            "SELECT tw_schedule_task_after($1, $2::interval, $3::bytea, $4, "
            "$5::integer)",
            {r.id,
             absl::StrCat(absl::ToInt64Microseconds(r.delay), " microseconds"),
             r.payload, r.kind, absl::StrCat(r.priority)});
    if (!answer.ok() || (*answer != "SCHEDULED" && *answer != "EXISTS")) {
      (void)One(conn, "ROLLBACK", {});
      if (!answer.ok()) return answer.status();
      return absl::InternalError(absl::StrCat("answered ", *answer));
    }
  }
  absl::StatusOr<std::string> committed = One(conn, "COMMIT", {});
  return committed.status();
}

absl::StatusOr<int> SqlReplace(const std::string& conninfo,
                               const std::string& id, int mode,
                               int64_t due_us) {
  absl::StatusOr<Conn> conn = Connect(conninfo);
  if (!conn.ok()) return conn.status();
  static const char* const kModes[] = {"REPLACE", "KEEP_EARLIER", "KEEP_LATER"};
  absl::StatusOr<std::string> answer =
      mode == 3 ? One(conn->get(), "SELECT tw_reschedule($1, $2::timestamptz)",
                      {id, Timestamp(due_us)})
                : One(conn->get(),
                      "SELECT tw_schedule_or_replace($1, $2::timestamptz, "
                      "'r'::bytea, $3)",
                      {id, Timestamp(due_us), kModes[mode]});
  if (!answer.ok()) return answer.status();
  if (*answer == "SCHEDULED")
    return static_cast<int>(ScheduleOutcome::kScheduled);
  if (*answer == "REPLACED")
    return static_cast<int>(ScheduleOutcome::kReplaced);
  if (*answer == "KEPT") return static_cast<int>(ScheduleOutcome::kKept);
  if (*answer == "ALREADY_RUNNING") {
    return static_cast<int>(ScheduleOutcome::kAlreadyRunning);
  }
  if (*answer == "FINISHED")
    return static_cast<int>(ScheduleOutcome::kFinished);
  return absl::NotFoundError(absl::StrCat("answered ", *answer));
}

absl::StatusOr<bool> SqlCancel(const std::string& conninfo,
                               const std::string& id) {
  absl::StatusOr<Conn> conn = Connect(conninfo);
  if (!conn.ok()) return conn.status();
  absl::StatusOr<std::string> answer =
      One(conn->get(), "SELECT tw_cancel_task($1)", {id});
  if (!answer.ok()) return answer.status();
  return *answer == "CANCELLED" || *answer == "STOP_REQUESTED";
}

}  // namespace durable_test
}  // namespace timingwheel
