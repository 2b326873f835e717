// Copyright 2026 The timingwheel Authors.

#include "benchmarks/pg_bench_util.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace bench {

absl::StatusOr<std::string> RunUnderPostgres(int argc, char** argv) {
  const char* pg = std::getenv("TIMINGWHEEL_PG");
  if (pg != nullptr && *pg != '\0') return std::string(pg);
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  std::string script =
      absl::StrCat(ws != nullptr ? ws : ".", "/.ci/with-postgres");
  if (access(script.c_str(), R_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no $TIMINGWHEEL_PG and no ", script,
                     ": run with `bazel run` or from the repository root"));
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return absl::InternalError("readlink /proc/self/exe");
  self[n] = '\0';
  std::vector<std::string> args = {"bash", script, self};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  execvp("bash", cargs.data());
  return absl::InternalError("exec bash .ci/with-postgres failed");
}

absl::StatusOr<PGconn*> PgConnect(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    return absl::UnavailableError(message);
  }
  return conn;
}

absl::Status PgExec(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  ExecStatusType s = PQresultStatus(r);
  std::string message = PQresultErrorMessage(r);
  PQclear(r);
  if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
    return absl::UnavailableError(absl::StrCat(sql, ": ", message));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> PgQueryInt(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
      PQnfields(r) != 1) {
    std::string message = PQresultErrorMessage(r);
    PQclear(r);
    return absl::UnavailableError(absl::StrCat(sql, ": ", message));
  }
  int64_t value = 0;
  if (!PQgetisnull(r, 0, 0))
    (void)absl::SimpleAtoi(PQgetvalue(r, 0, 0), &value);
  PQclear(r);
  return value;
}

absl::StatusOr<std::unique_ptr<BenchDatabase>> BenchDatabase::Create(
    const std::string& admin, const std::string& prefix) {
  static int counter = 0;
  std::string name = absl::StrCat(prefix, "_", getpid(), "_", ++counter);
  absl::StatusOr<PGconn*> conn = PgConnect(admin);
  if (!conn.ok()) return conn.status();
  absl::Status s = PgExec(*conn, absl::StrCat("CREATE DATABASE ", name));
  PQfinish(*conn);
  if (!s.ok()) return s;
  // Replace dbname in the admin string (it ends with "dbname=postgres" as
  // .ci/with-postgres writes it; appending a later dbname= wins in libpq).
  return std::unique_ptr<BenchDatabase>(
      new BenchDatabase(admin, name, absl::StrCat(admin, " dbname=", name)));
}

BenchDatabase::~BenchDatabase() {
  absl::StatusOr<PGconn*> conn = PgConnect(admin_);
  if (!conn.ok()) return;
  (void)PgExec(
      *conn, absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
  PQfinish(*conn);
}

pid_t SpawnChild(const std::function<int()>& body) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // The parent died already.
    _exit(body());
  }
  return pid > 0 ? pid : -1;
}

bool KillChild(pid_t pid, int signal) {
  if (pid <= 0) return false;  // Never kill(0 or -1, ...).
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return true;
}

}  // namespace bench
}  // namespace timingwheel
