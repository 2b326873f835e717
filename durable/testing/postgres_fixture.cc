// Copyright 2026 The timingwheel Authors.

#include "durable/testing/postgres_fixture.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {
namespace {

constexpr char kHowToStart[] =
    "these tests need a PostgreSQL server: run them via `bash .ci/test` "
    "(which starts a throwaway server with .ci/with-postgres and passes "
    "--test_env=TIMINGWHEEL_PG), or start one yourself and run `bazel test "
    "--test_env=TIMINGWHEEL_PG='host=/path/to/socketdir user=postgres "
    "dbname=postgres' //tests/durable/...` (the user must be allowed to "
    "CREATE DATABASE)";

constexpr char kHowToStartPair[] =
    "the failover tests need the primary + standby pair of .ci/with-postgres: "
    "run them via `bash .ci/test` (which passes "
    "--test_env=TIMINGWHEEL_PG_FAILOVER and "
    "--test_env=TIMINGWHEEL_PG_FAILOVER_CTL), or `bash .ci/with-postgres "
    "bazel test --test_env=TIMINGWHEEL_PG --test_env=TIMINGWHEEL_PG_CTL "
    "--test_env=TIMINGWHEEL_PG_FAILOVER --test_env=TIMINGWHEEL_PG_FAILOVER_CTL "
    "//tests/durable:failover_test`";

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultCloser {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;
using Result = std::unique_ptr<PGresult, ResultCloser>;

void IgnoreNotice(void*, const char*) {}

absl::StatusOr<Conn> Connect(const std::string& conninfo) {
  Conn conn(PQconnectdb(conninfo.c_str()));
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to the test PostgreSQL: ",
                     conn ? PQerrorMessage(conn.get()) : "out of memory", "; ",
                     kHowToStart));
  }
  PQsetNoticeProcessor(conn.get(), &IgnoreNotice, nullptr);
  return conn;
}

absl::StatusOr<Result> Run(const std::string& conninfo,
                           const std::string& sql) {
  absl::StatusOr<Conn> conn = Connect(conninfo);
  if (!conn.ok()) return conn.status();
  Result result(PQexec(conn->get(), sql.c_str()));
  ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return absl::InternalError(absl::StrCat(
        "`", sql, "` failed: ", PQresultErrorMessage(result.get())));
  }
  return result;
}

}  // namespace

absl::StatusOr<std::string> AdminConnInfo() {
  const char* value = std::getenv("TIMINGWHEEL_PG");
  if (value == nullptr || *value == '\0') {
    return absl::FailedPreconditionError(
        absl::StrCat("TIMINGWHEEL_PG is not set: ", kHowToStart));
  }
  return std::string(value);
}

absl::StatusOr<std::unique_ptr<TestDatabase>> TestDatabase::Create() {
  absl::StatusOr<std::string> admin = AdminConnInfo();
  if (!admin.ok()) return admin.status();
  // Random, not the pid: every test in Bazel's sandbox has its own pid
  // namespace, so pids repeat across tests running at the same time.
  std::random_device random;
  const uint64_t tag = (static_cast<uint64_t>(random()) << 32) ^ random();
  std::string name = absl::StrCat("tw_test_", absl::Hex(tag, absl::kZeroPad16));
  absl::StatusOr<Result> created =
      Run(*admin, absl::StrCat("CREATE DATABASE ", name));
  if (!created.ok()) return created.status();
  // In a libpq connection string the last value of a keyword wins.
  std::string conninfo = absl::StrCat(*admin, " dbname=", name);
  return std::unique_ptr<TestDatabase>(
      new TestDatabase(*std::move(admin), name, conninfo));
}

TestDatabase::~TestDatabase() {
  // Best effort: the server may be down at the end of a fault test.
  (void)Run(admin_,
            absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
}

absl::Status ExecSql(const std::string& conninfo, const std::string& sql) {
  return Run(conninfo, sql).status();
}

absl::StatusOr<int64_t> QueryInt(const std::string& conninfo,
                                 const std::string& sql) {
  absl::StatusOr<Result> result = Run(conninfo, sql);
  if (!result.ok()) return result.status();
  if (PQntuples(result->get()) != 1 || PQnfields(result->get()) != 1 ||
      PQgetisnull(result->get(), 0, 0)) {
    return absl::InternalError(
        absl::StrCat("`", sql, "` did not return one integer"));
  }
  return std::strtoll(PQgetvalue(result->get(), 0, 0), nullptr, 10);
}

absl::StatusOr<std::string> QueryText(const std::string& conninfo,
                                      const std::string& sql) {
  absl::StatusOr<Result> result = Run(conninfo, sql);
  if (!result.ok()) return result.status();
  if (PQntuples(result->get()) != 1 || PQnfields(result->get()) != 1) {
    return absl::InternalError(
        absl::StrCat("`", sql, "` did not return one value"));
  }
  return std::string(PQgetvalue(result->get(), 0, 0),
                     PQgetlength(result->get(), 0, 0));
}

absl::Status ServerControl(const std::string& action) {
  const char* ctl = std::getenv("TIMINGWHEEL_PG_CTL");
  if (ctl == nullptr || *ctl == '\0') {
    return absl::FailedPreconditionError(absl::StrCat(
        "TIMINGWHEEL_PG_CTL is not set: run via `bash .ci/test` "
        "(.ci/with-postgres exports it) or pass "
        "--test_env=TIMINGWHEEL_PG_CTL=<script stop|start|restart>"));
  }
  std::string command = absl::StrCat(ctl, " ", action, " >/dev/null 2>&1");
  int rc = std::system(command.c_str());
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("`", ctl, " ", action, "` exited with ", rc));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FailoverPair>> FailoverPair::Acquire(
    absl::Duration timeout) {
  const char* conninfo = std::getenv("TIMINGWHEEL_PG_FAILOVER");
  const char* ctl = std::getenv("TIMINGWHEEL_PG_FAILOVER_CTL");
  if (conninfo == nullptr || *conninfo == '\0' || ctl == nullptr ||
      *ctl == '\0') {
    return absl::FailedPreconditionError(
        absl::StrCat("TIMINGWHEEL_PG_FAILOVER or TIMINGWHEEL_PG_FAILOVER_CTL "
                     "is not set: ",
                     kHowToStartPair));
  }
  // The lock is the control script itself: every holder names the same file
  // without another variable.
  const int fd = open(ctl, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open $TIMINGWHEEL_PG_FAILOVER_CTL (", ctl,
        "): is .ci/with-postgres still running? ", kHowToStartPair));
  }
  const absl::Time deadline = absl::Now() + timeout;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (absl::Now() > deadline) {
      close(fd);
      return absl::DeadlineExceededError(
          absl::StrCat("the failover pair stayed locked by another test for ",
                       absl::FormatDuration(timeout)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return std::unique_ptr<FailoverPair>(new FailoverPair(conninfo, ctl, fd));
}

FailoverPair::~FailoverPair() { close(lock_fd_); }  // Releases the flock.

absl::Status FailoverPair::Control(const std::string& action) {
  std::string command = absl::StrCat(ctl_, " ", action, " >/dev/null 2>&1");
  int rc = std::system(command.c_str());
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("`", ctl_, " ", action, "` exited with ", rc,
                     " (its output is in ctl.log next to it)"));
  }
  return absl::OkStatus();
}

absl::Status FailoverPair::Reset() { return Control("failover-reset"); }
absl::Status FailoverPair::KillPrimary() { return Control("kill-primary"); }
absl::Status FailoverPair::Promote() { return Control("promote"); }

}  // namespace durable_testing
}  // namespace timingwheel
