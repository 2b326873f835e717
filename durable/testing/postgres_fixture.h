// Copyright 2026 The timingwheel Authors.
//
// postgres_fixture.h
// -----------------------------------------------------------------------------
//
// Test helpers for code that needs a real PostgreSQL. The server is started
// outside the test (by `bash .ci/test`, through `.ci/with-postgres`), which
// exports its admin connection string in `TIMINGWHEEL_PG`; each test then
// creates a database of its own, so tests running in parallel never see each
// other's tables. This file defines:
//
//   * `AdminConnInfo()`: the admin connection string, or an error that says
//     how to start a server (tests fail on it; they never skip).
//   * `TestDatabase`: a fresh database, dropped when destroyed.
//   * `ExecSql()`, `QueryInt()`, `QueryText()`: one statement on a fresh
//     connection.
//   * `ServerControl()`: stop/start/restart the server (fault tests).
//   * `FailoverPair`: a separate primary + synchronous streaming standby
//     (`TIMINGWHEEL_PG_FAILOVER`, `TIMINGWHEEL_PG_FAILOVER_CTL`), held by
//     one test at a time, re-created, its primary killed, its standby
//     promoted on request (failover tests). The shared server is never
//     touched by it.

#ifndef TIMINGWHEEL_DURABLE_TESTING_POSTGRES_FIXTURE_H_
#define TIMINGWHEEL_DURABLE_TESTING_POSTGRES_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_testing {

// AdminConnInfo()
//
// Returns `$TIMINGWHEEL_PG`, or `absl::FailedPreconditionError` whose message
// says how to provide it (run the tests through `bash .ci/test`, or export a
// connection string to a server where the user may create databases).
absl::StatusOr<std::string> AdminConnInfo();

// TestDatabase
//
// A database created for one test (named `tw_test_<random hex>`), dropped (with
// its open connections) when the object is destroyed. Not thread-safe.
class TestDatabase {
 public:
  // TestDatabase::Create()
  //
  // Creates the database through the admin connection. Fails with the
  // message of `AdminConnInfo()` when no server was given.
  static absl::StatusOr<std::unique_ptr<TestDatabase>> Create();

  ~TestDatabase();

  // The connection string of the new database.
  const std::string& conninfo() const { return conninfo_; }
  const std::string& name() const { return name_; }

 private:
  TestDatabase(std::string admin, std::string name, std::string conninfo)
      : admin_(std::move(admin)),
        name_(std::move(name)),
        conninfo_(std::move(conninfo)) {}

  std::string admin_;
  std::string name_;
  std::string conninfo_;
};

// ExecSql()
//
// Runs `sql` (no parameters: test-controlled text only) on a new connection
// to `conninfo`.
absl::Status ExecSql(const std::string& conninfo, const std::string& sql);

// QueryInt()
//
// Runs `sql`, which must return one row with one integer column, and returns
// that integer.
absl::StatusOr<int64_t> QueryInt(const std::string& conninfo,
                                 const std::string& sql);

// QueryText()
//
// Runs `sql`, which must return one row with one column, and returns that
// value as text (empty for NULL).
absl::StatusOr<std::string> QueryText(const std::string& conninfo,
                                      const std::string& sql);

// ServerControl()
//
// Runs `$TIMINGWHEEL_PG_CTL <action>` (action: "stop", "start", "restart"),
// which `.ci/with-postgres` provides. Fails when the variable is unset or the
// command fails.
absl::Status ServerControl(const std::string& action);

// FailoverPair
//
// The primary + standby pair of `.ci/with-postgres`: both Unix-socket-only
// servers of their own, the standby streaming synchronously (a commit is
// acknowledged once both have it). The servers are started and faulted by
// `.ci/with-postgres` on request, outside the test, so they outlive it and
// are stopped and deleted when the test command ends. Holding a
// `FailoverPair` holds an exclusive lock: two tests (or two runs of one) never
// fault the pair under each other. Not thread-safe.
class FailoverPair {
 public:
  // FailoverPair::Acquire()
  //
  // Takes the pair's lock, waiting up to `timeout` for another holder.
  // FailedPrecondition, saying how to start the pair (run through
  // `bash .ci/test`), when the variables are unset; DeadlineExceeded when
  // the lock stays taken.
  static absl::StatusOr<std::unique_ptr<FailoverPair>> Acquire(
      absl::Duration timeout = absl::Seconds(300));

  FailoverPair(const FailoverPair&) = delete;
  FailoverPair& operator=(const FailoverPair&) = delete;

  // Releases the lock; the servers keep running as they are.
  ~FailoverPair();

  // The multi-host connection string ("host=A,B port=5432,5432
  // user=postgres dbname=postgres target_session_attrs=read-write"): it
  // reaches whichever server accepts writes.
  const std::string& conninfo() const { return conninfo_; }

  // FailoverPair::Reset()
  //
  // Stops both servers and creates a fresh pair (an empty `postgres`
  // database, server A primary, B its synchronous standby); returns once the
  // standby streams and is synchronous.
  absl::Status Reset();

  // FailoverPair::KillPrimary()
  //
  // SIGKILL to server A's postmaster (its backends then exit on their own);
  // returns once the postmaster is gone.
  absl::Status KillPrimary();

  // FailoverPair::Promote()
  //
  // Promotes server B; returns once it accepts writes.
  absl::Status Promote();

 private:
  FailoverPair(std::string conninfo, std::string ctl, int lock_fd)
      : conninfo_(std::move(conninfo)),
        ctl_(std::move(ctl)),
        lock_fd_(lock_fd) {}
  absl::Status Control(const std::string& action);

  std::string conninfo_;
  std::string ctl_;
  int lock_fd_;
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_POSTGRES_FIXTURE_H_
