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
//   * `ExecSql()`, `QueryInt()`: one statement on a fresh connection.
//   * `ServerControl()`: stop/start/restart the server (fault tests).

#ifndef TIMINGWHEEL_DURABLE_TESTING_POSTGRES_FIXTURE_H_
#define TIMINGWHEEL_DURABLE_TESTING_POSTGRES_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

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

// ServerControl()
//
// Runs `$TIMINGWHEEL_PG_CTL <action>` (action: "stop", "start", "restart"),
// which `.ci/with-postgres` provides. Fails when the variable is unset or the
// command fails.
absl::Status ServerControl(const std::string& action);

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_POSTGRES_FIXTURE_H_
