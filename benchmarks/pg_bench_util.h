// Copyright 2026 The timingwheel Authors.
//
// pg_bench_util.h
// -----------------------------------------------------------------------------
//
// What //benchmarks:durable_perf and //benchmarks:durable_demo share:
//
//   * `RunUnderPostgres()`: without `$TIMINGWHEEL_PG`, re-runs this very
//     binary under `.ci/with-postgres` (a throwaway server on a Unix socket,
//     stopped and deleted when the binary exits, also on failure or Ctrl-C).
//   * `BenchDatabase`: a fresh database, dropped when destroyed.
//   * `PgQueryInt()`, `PgExec()`: one statement on a connection.
//   * `SpawnChild()` / `KillChild()`: a forked child process that dies with
//     its parent (PR_SET_PDEATHSIG), killed only by its recorded pid.
//
// Not thread-safe; fork only while the process has a single thread.

#ifndef TIMINGWHEEL_BENCHMARKS_PG_BENCH_UTIL_H_
#define TIMINGWHEEL_BENCHMARKS_PG_BENCH_UTIL_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace bench {

// RunUnderPostgres()
//
// Returns the admin connection string from `$TIMINGWHEEL_PG` if set.
// Otherwise replaces the process (exec) with `bash .ci/with-postgres
// /proc/self/exe ARGS...`, found under `$BUILD_WORKSPACE_DIRECTORY` (bazel
// run) or the current directory; returns an error only if that fails.
absl::StatusOr<std::string> RunUnderPostgres(int argc, char** argv);

// BenchDatabase
//
// A database named `prefix_<pid>_<n>` created on the admin connection,
// dropped (WITH (FORCE)) when destroyed.
class BenchDatabase {
 public:
  static absl::StatusOr<std::unique_ptr<BenchDatabase>> Create(
      const std::string& admin, const std::string& prefix);
  ~BenchDatabase();
  const std::string& conninfo() const { return conninfo_; }
  const std::string& name() const { return name_; }

 private:
  BenchDatabase(std::string admin, std::string name, std::string conninfo)
      : admin_(std::move(admin)),
        name_(std::move(name)),
        conninfo_(std::move(conninfo)) {}
  std::string admin_, name_, conninfo_;
};

// PgConnect()
//
// A connection, or Unavailable. Caller PQfinish()es it.
absl::StatusOr<PGconn*> PgConnect(const std::string& conninfo);

// PgExec()
//
// Runs `sql` (no parameters: benchmark-controlled text only).
absl::Status PgExec(PGconn* conn, const std::string& sql);

// PgQueryInt()
//
// Runs `sql`, which returns one row of one integer (NULL reads as 0).
absl::StatusOr<int64_t> PgQueryInt(PGconn* conn, const std::string& sql);

// SpawnChild()
//
// Forks; the child runs `body` and exits with its result, and is killed
// with SIGKILL if the parent dies. Returns the child's pid (> 0) or -1.
pid_t SpawnChild(const std::function<int()>& body);

// KillChild()
//
// Sends `signal` to `pid` (only if pid > 0) and reaps it. Returns whether
// the pid was positive.
bool KillChild(pid_t pid, int signal);

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_PG_BENCH_UTIL_H_
