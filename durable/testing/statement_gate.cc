// Copyright 2026 The timingwheel Authors.

#include "durable/testing/statement_gate.h"

#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {
namespace {

void IgnoreNotice(void*, const char*) {}

// Literal()
//
// `text` as an SQL string literal (empty on an encoding error).
std::string Literal(PGconn* conn, const std::string& text) {
  char* quoted = PQescapeLiteral(conn, text.data(), text.size());
  if (quoted == nullptr) return "''";
  std::string out = quoted;
  PQfreemem(quoted);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StatementGate>> StatementGate::Install(
    const std::string& conninfo, const std::string& table,
    const std::string& event, const std::string& sql_substring, When when) {
  if (event != "INSERT" && event != "UPDATE" && event != "DELETE") {
    return absl::InvalidArgumentError(
        absl::StrCat("event is INSERT, UPDATE or DELETE, not ", event));
  }
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string message = conn ? PQerrorMessage(conn) : "out of memory";
    PQfinish(conn);
    return absl::UnavailableError(
        absl::StrCat("StatementGate cannot connect: ", message));
  }
  PQsetNoticeProcessor(conn, &IgnoreNotice, nullptr);
  std::random_device random;
  const uint64_t tag = (static_cast<uint64_t>(random()) << 32) ^ random();
  const int64_t key = 1 + static_cast<int64_t>(random() % 0x7ffffffe);
  std::string name = absl::StrCat("tw_gate_", absl::Hex(tag, absl::kZeroPad16));
  const std::string pattern = Literal(conn, sql_substring);
  std::unique_ptr<StatementGate> gate(
      new StatementGate(conn, name, table, key));

  std::lock_guard<std::mutex> lock(gate->mu_);
  // Nested IFs: the counter moves only for matching statements.
  const std::string sql = absl::StrCat(
      "SELECT pg_advisory_lock(", key, ");",                               //
      "CREATE SEQUENCE ", name, "_seq;",                                   //
      "CREATE FUNCTION ", name, "_fn() RETURNS trigger LANGUAGE plpgsql",  //
      " AS $tw_gate$ BEGIN",                                               //
      "  IF position(", pattern, " in current_query()) > 0 THEN",          //
      "    IF nextval('", name, "_seq') = 1 THEN",                         //
      "      PERFORM pg_advisory_xact_lock_shared(", key, ");",            //
      "    END IF;",                                                       //
      "  END IF;",                                                         //
      "  RETURN NULL;",                                                    //
      " END $tw_gate$;",                                                   //
      "CREATE TRIGGER ", name,
      when == When::kAfterWrite ? " AFTER " : " BEFORE ", event, " ON ",
      table,  //
      " FOR EACH STATEMENT EXECUTE FUNCTION ", name, "_fn();");
  absl::Status status = gate->Exec(sql);
  if (!status.ok()) {
    // The destructor's DROPs ... IF EXISTS clean up whatever was made.
    return status;
  }
  return gate;
}

StatementGate::StatementGate(PGconn* conn, std::string name, std::string table,
                             int64_t key)
    : conn_(conn),
      name_(std::move(name)),
      table_(std::move(table)),
      key_(key) {}

StatementGate::~StatementGate() {
  Release();
  std::lock_guard<std::mutex> lock(mu_);
  Exec(absl::StrCat("SET lock_timeout = '30s';",                            //
                    "DROP TRIGGER IF EXISTS ", name_, " ON ", table_, ";",  //
                    "DROP FUNCTION IF EXISTS ", name_, "_fn();",            //
                    "DROP SEQUENCE IF EXISTS ", name_, "_seq;"))
      .IgnoreError();
  PQfinish(conn_);
}

absl::Status StatementGate::Exec(const std::string& sql) {
  PGresult* result = PQexec(conn_, sql.c_str());
  const ExecStatusType status = PQresultStatus(result);
  absl::Status out = absl::OkStatus();
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    out = absl::InternalError(absl::StrCat(
        "StatementGate: `", sql, "` failed: ", PQerrorMessage(conn_)));
  }
  PQclear(result);
  return out;
}

bool StatementGate::WaitBlocked(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  const std::string sql = absl::StrCat(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
      " AND NOT granted AND classid = 0 AND objid = ", key_,
      " AND objsubid = 1 AND database = (SELECT oid FROM pg_database",
      " WHERE datname = current_database())");
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (blocked_seen_) return true;
      PGresult* result = PQexec(conn_, sql.c_str());
      const bool ok =
          PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1;
      if (ok && std::string(PQgetvalue(result, 0, 0)) != "0") {
        blocked_seen_ = true;
      }
      PQclear(result);
      if (!ok) return false;
      if (blocked_seen_) return true;
    }
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(2));
  }
}

void StatementGate::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  if (released_) return;
  released_ = true;
  Exec(absl::StrCat("SELECT pg_advisory_unlock(", key_, ")")).IgnoreError();
}

}  // namespace durable_testing
}  // namespace timingwheel
