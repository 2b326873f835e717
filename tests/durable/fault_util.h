// Copyright 2026 The timingwheel Authors.
//
// fault_util.h
// -----------------------------------------------------------------------------
//
// Helpers for the fault tests of //durable, which run schedulers as real
// processes (tests/durable/scheduler_process) against the real PostgreSQL:
//
//   * `SchedulerProcess`: starts one, signals it (SIGKILL, SIGSTOP, SIGCONT,
//     SIGTERM), waits for it with a deadline, and kills and reaps it when the
//     test ends early. Only ever signals the positive pid it started.
//   * `FaultDb`: the test's database plus the tables the tests read:
//     test_runs (one row per handler call, with the database's clock at the
//     call) and the early-takeover log (`WatchLeases()`: every slot that
//     changes owner while the previous owner's lease was still valid; must
//     stay empty). The store's own tables are read through `store()`, a
//     `durable_testing::StoreInspector`.

#ifndef TIMINGWHEEL_TESTS_DURABLE_FAULT_UTIL_H_
#define TIMINGWHEEL_TESTS_DURABLE_FAULT_UTIL_H_

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "libpq-fe.h"

extern char** environ;

namespace timingwheel {
namespace durable_test {

// SchedulerProcess
//
// One scheduler process. Not thread-safe.
class SchedulerProcess {
 public:
  SchedulerProcess() = default;
  SchedulerProcess(const SchedulerProcess&) = delete;
  SchedulerProcess& operator=(const SchedulerProcess&) = delete;

  // Kills (SIGCONT then SIGKILL) and reaps the process if it still runs.
  ~SchedulerProcess() { KillAndReap(); }

  // SchedulerProcess::Start()
  //
  // Spawns `scheduler_process CONNINFO NODE TTL_MS FLAGS...`. Returns false
  // when the spawn fails.
  bool Start(const std::string& conninfo, const std::string& node, int ttl_ms,
             const std::vector<std::string>& flags = {}) {
    node_ = node;
    const char* tmp = std::getenv("TEST_TMPDIR");
    metrics_path_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", node, "-",
                                 getpid(), ".metrics");
    std::remove(metrics_path_.c_str());
    std::vector<std::string> args = {"tests/durable/scheduler_process",
                                     conninfo, node, absl::StrCat(ttl_ms),
                                     "--metrics_file=" + metrics_path_};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) !=
        0) {
      return false;
    }
    pid_ = pid;
    return pid_ > 0;
  }

  // SchedulerProcess::Signal()
  //
  // Sends `sig`; false if the process is not running (never signals a pid
  // that is not a positive number this object started).
  bool Signal(int sig) {
    if (pid_ <= 0) return false;
    return kill(pid_, sig) == 0;
  }

  // SchedulerProcess::WaitExit()
  //
  // Waits up to `timeout` for the process to end; returns its wait status,
  // or -1 on timeout. Reaped: later calls return -1.
  int WaitExit(absl::Duration timeout) {
    if (pid_ <= 0) return -1;
    const absl::Time deadline = absl::Now() + timeout;
    for (;;) {
      int status = 0;
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = 0;
        return status;
      }
      if (r < 0 || absl::Now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // SchedulerProcess::WaitStopped()
  //
  // Waits up to `timeout` for the process to stop itself (SIGSTOP).
  bool WaitStopped(absl::Duration timeout) {
    if (pid_ <= 0) return false;
    const absl::Time deadline = absl::Now() + timeout;
    for (;;) {
      int status = 0;
      pid_t r = waitpid(pid_, &status, WNOHANG | WUNTRACED);
      if (r == pid_ && WIFSTOPPED(status)) return true;
      if (r == pid_) {
        pid_ = 0;  // It ended instead.
        return false;
      }
      if (r < 0 || absl::Now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // SchedulerProcess::Terminate()
  //
  // Asks for a clean shutdown (SIGTERM) and waits up to `timeout`; true when
  // the process exited with status 0.
  bool Terminate(absl::Duration timeout = absl::Seconds(20)) {
    if (!Signal(SIGTERM)) return false;
    const int status = WaitExit(timeout);
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

  void KillAndReap() {
    if (pid_ <= 0) return;
    kill(pid_, SIGCONT);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }

  // SchedulerProcess::Metric()
  //
  // A counter from the metrics line the process wrote at its clean exit
  // ("not_due", "abandoned", ...), or -1 if there is none.
  int64_t Metric(const std::string& name) const {
    std::ifstream in(metrics_path_);
    std::string word;
    const std::string key = name + "=";
    while (in >> word) {
      if (word.compare(0, key.size(), key) == 0) {
        return std::strtoll(word.c_str() + key.size(), nullptr, 10);
      }
    }
    return -1;
  }

  // SchedulerProcess::RssBytes()
  //
  // The process's resident set size (VmRSS), or -1.
  int64_t RssBytes() const {
    if (pid_ <= 0) return -1;
    std::ifstream in(absl::StrCat("/proc/", pid_, "/status"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.compare(0, 6, "VmRSS:") == 0) {
        return std::strtoll(line.c_str() + 6, nullptr, 10) * 1024;
      }
    }
    return -1;
  }

  pid_t pid() const { return pid_; }
  const std::string& node() const { return node_; }

 private:
  pid_t pid_ = 0;
  std::string node_;
  std::string metrics_path_;
};

// IsKilled(): whether a wait status says "killed by SIGKILL".
inline bool IsKilled(int status) {
  return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// FaultDb
//
// The test's own database (dropped at the end) and queries on it.
class FaultDb {
 public:
  // Creates the database and test_runs. Empty on failure (see `error()`).
  static std::unique_ptr<FaultDb> Create(std::string* error) {
    auto db = durable_testing::TestDatabase::Create();
    if (!db.ok()) {
      *error = db.status().ToString();
      return nullptr;
    }
    std::unique_ptr<FaultDb> out(new FaultDb(*std::move(db)));
    absl::Status status = durable_testing::ExecSql(
        out->conninfo(),
        "CREATE TABLE test_runs (task_id bytea, node text, attempt int, "
        "at_us bigint DEFAULT "
        "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint)");
    if (!status.ok()) {
      *error = status.ToString();
      return nullptr;
    }
    return out;
  }

  const std::string& conninfo() const { return db_->conninfo(); }

  // The integer `sql` returns, or -1 on error.
  int64_t Query(const std::string& sql) const {
    auto n = durable_testing::QueryInt(conninfo(), sql);
    return n.ok() ? *n : -1;
  }

  bool Exec(const std::string& sql) const {
    return durable_testing::ExecSql(conninfo(), sql).ok();
  }

  // FaultDb::WatchLeases()
  //
  // Once the schema exists: logs in lease_takeovers every slot taken from
  // an owner whose lease had not run out on the database's clock.
  bool WatchLeases() const { return store().WatchEarlyTakeovers().ok(); }

  // Slots taken early since `WatchLeases()` (must stay 0), or -1 on error.
  int64_t EarlyTakeovers() const {
    auto n = store().CountEarlyTakeovers();
    return n.ok() ? *n : -1;
  }

  // The store's tables.
  durable_testing::StoreInspector store() const {
    return durable_testing::StoreInspector(conninfo());
  }

  // The number of tasks `match` covers, or -1 on error.
  int64_t CountTasks(const durable_testing::TaskMatch& match = {}) const {
    auto n = store().CountTasks(match);
    return n.ok() ? *n : -1;
  }

  // The highest attempt counter of any task, or -1 on error.
  int64_t MaxAttempt() const {
    auto summary = store().SummarizeTasks();
    return summary.ok() ? summary->max_attempt : -1;
  }

  // Slots `node` holds now, or -1 on error.
  int64_t SlotsOf(const std::string& node) const {
    auto n = store().CountSlots(durable_testing::LeaseMatch().Owner(node));
    return n.ok() ? *n : -1;
  }

  // One handler call (a row of test_runs) with its task's due time.
  struct RunAgainstDue {
    std::string id;
    int64_t at_us = 0;   // When the handler was called (database clock).
    int64_t due_us = 0;  // Its task's due time, as stored now.
  };

  // FaultDb::RunsAgainstDue()
  //
  // Every handler call whose task `match` covers, with that task's due
  // time (calls of tasks no longer stored are left out). `ok` is false on
  // error.
  std::vector<RunAgainstDue> RunsAgainstDue(
      const durable_testing::TaskMatch& match = {}, bool* ok = nullptr) const {
    std::vector<RunAgainstDue> out;
    auto due = store().DueTimes(match);
    bool read = due.ok();
    PGconn* conn = PQconnectdb(conninfo().c_str());
    read = read && PQstatus(conn) == CONNECTION_OK;
    if (read) {
      PGresult* r = PQexecParams(conn, "SELECT task_id, at_us FROM test_runs",
                                 0, nullptr, nullptr, nullptr, nullptr,
                                 /*resultFormat=*/0);
      read = PQresultStatus(r) == PGRES_TUPLES_OK;
      for (int i = 0; read && i < PQntuples(r); ++i) {
        size_t length = 0;
        unsigned char* id = PQunescapeBytea(
            reinterpret_cast<const unsigned char*>(PQgetvalue(r, i, 0)),
            &length);
        RunAgainstDue run;
        run.id.assign(reinterpret_cast<const char*>(id), length);
        PQfreemem(id);
        run.at_us = std::strtoll(PQgetvalue(r, i, 1), nullptr, 10);
        auto it = due->find(run.id);
        if (it == due->end()) continue;
        run.due_us = it->second;
        out.push_back(std::move(run));
      }
      PQclear(r);
    }
    PQfinish(conn);
    if (ok != nullptr) *ok = read;
    return out;
  }

  // Handler calls made before their task's due time (must be none), or -1
  // on error.
  int64_t RunsBeforeDue(const durable_testing::TaskMatch& match = {}) const {
    bool ok = false;
    std::vector<RunAgainstDue> runs = RunsAgainstDue(match, &ok);
    if (!ok) return -1;
    return std::count_if(runs.begin(), runs.end(), [](const RunAgainstDue& r) {
      return r.at_us < r.due_us;
    });
  }

  // The lateness (call minus due, microseconds) at quantile `q` (0 to 1:
  // the smallest value at or above that share of the calls, as
  // percentile_disc), or -1 when there is no call or on error.
  int64_t LatenessUs(double q,
                     const durable_testing::TaskMatch& match = {}) const {
    bool ok = false;
    std::vector<RunAgainstDue> runs = RunsAgainstDue(match, &ok);
    if (!ok || runs.empty()) return -1;
    std::vector<int64_t> late;
    for (const RunAgainstDue& r : runs) late.push_back(r.at_us - r.due_us);
    std::sort(late.begin(), late.end());
    size_t rank = static_cast<size_t>(std::ceil(q * late.size()));
    if (rank > 0) --rank;
    return late[std::min(rank, late.size() - 1)];
  }

  // Handler calls per task id (from test_runs).
  std::map<std::string, int> RunsById() const {
    std::map<std::string, int> runs;
    PGconn* conn = PQconnectdb(conninfo().c_str());
    if (PQstatus(conn) == CONNECTION_OK) {
      PGresult* r = PQexec(conn,
                           "SELECT convert_from(task_id, 'UTF8'), count(*) "
                           "FROM test_runs GROUP BY 1");
      if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        for (int i = 0; i < PQntuples(r); ++i) {
          runs[PQgetvalue(r, i, 0)] = std::atoi(PQgetvalue(r, i, 1));
        }
      }
      PQclear(r);
    }
    PQfinish(conn);
    return runs;
  }

  // Schedules `count` tasks "<prefix><i>" due `delay` (+ i * `spread`) from
  // the database's now, through a plain client connection (the owners learn
  // of them by notification, or at their next load).
  bool ScheduleTasks(const std::string& prefix, int count, absl::Duration delay,
                     absl::Duration spread = absl::ZeroDuration(),
                     int slot_count = 64) const;

 private:
  explicit FaultDb(std::unique_ptr<durable_testing::TestDatabase> db)
      : db_(std::move(db)) {}
  std::unique_ptr<durable_testing::TestDatabase> db_;
};

inline bool FaultDb::ScheduleTasks(const std::string& prefix, int count,
                                   absl::Duration delay, absl::Duration spread,
                                   int slot_count) const {
  PGconn* conn = PQconnectdb(conninfo().c_str());
  bool ok = PQstatus(conn) == CONNECTION_OK;
  for (int start = 0; ok && start < count; start += 10000) {
    std::vector<ScheduleRequest> batch;
    for (int i = start; i < count && i < start + 10000; ++i) {
      ScheduleRequest request;
      request.id = absl::StrCat(prefix, i);
      request.payload = "p";
      request.delay = delay + spread * i;
      batch.push_back(std::move(request));
    }
    PQclear(PQexec(conn, "BEGIN"));
    ok = ScheduleInTransaction(conn, batch, slot_count).ok();
    PGresult* commit = PQexec(conn, ok ? "COMMIT" : "ROLLBACK");
    ok = ok && PQresultStatus(commit) == PGRES_COMMAND_OK;
    PQclear(commit);
  }
  PQfinish(conn);
  return ok;
}

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_FAULT_UTIL_H_
