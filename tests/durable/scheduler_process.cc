// Copyright 2026 The timingwheel Authors.
//
// A scheduler in a process of its own, for the tests that stall (SIGSTOP)
// or kill a scheduler: `scheduler_process CONNINFO NODE_ID TTL_MS`. Its
// handler records each attempt as a row of test_runs(task_id, node,
// attempt), which the test creates. Prints "ready" once created; shuts
// down on SIGTERM.
//
// Options for the fault tests (after the three arguments):
//   --fault=kill:POINT|stop:POINT  kill -9 or stop itself the first time it
//                                  reaches POINT
//                                  (durable/engine/fault_point.h);
//   --clock_offset_ms=N            the wheel's clock runs N ms ahead (< 0:
//                                  behind) of the real monotonic clock;
//   --clock_jump_ms=N              ... and jumps by N ms (< 0: backwards)
//                                  when the process receives SIGUSR1;
//   --fail_prefix=P                the handler fails every attempt of tasks
//                                  whose id starts with P (after recording);
//   --handler_ms=N                 each handler call sleeps N ms first;
//   --work_ms=N                    ... and N ms after recording the call
//                                  (the attempt stays in flight);
//   --runs_conninfo=C              record the calls on C instead of CONNINFO
//                                  (e.g. bypassing a proxy that CONNINFO
//                                  goes through), each with a unique call id
//                                  in test_runs.call (a unique column the
//                                  test adds), so that an insert retried
//                                  after a lost reply records once;
//   --max_in_flight=N, --horizon_ms=N, --threads=N (handler threads),
//   --max_attempts=N, --backoff_ms=N (the first retry's backoff);
//   --schedule_every_ms=N          creates (or finds, identical) the
//                                  recurring schedule "tick" every N ms
//                                  (skip while running, run once after an
//                                  outage) once the scheduler runs.
//   --metrics_file=PATH            at exit, also write the metrics line here;
//   --run_label=L                  record L in test_runs.node instead of
//                                  the node id (tells two processes of one
//                                  node id apart);
//   --exit_on_node_id_lost         once a replacement took the node id
//                                  over (DurableMetrics::node_id_lost),
//                                  shut down and exit with status 3;
//   --health_file=PATH             asks Health() every 20 ms, as a liveness
//                                  probe would, and appends its status code
//                                  name (`OK`, `DEADLINE_EXCEEDED`, ...) as
//                                  a line to PATH each time it changes;
//   --max_pending=N                the wheel's TimerOptions::max_pending;
//   --max_id_bytes=N               DurableOptions::max_id_bytes;
//   --outcome_writers=N            DurableOptions::outcome_writers;
//   --kinds=NAME:LIMIT,...         registers these kinds (same handler, each
//                                  with its `max_in_flight`);
//   --verdicts                     (with --runs_conninfo; test_runs has the
//                                  columns kind, verdict and end_us) the
//                                  handler's verdict follows the id's prefix:
//                                  "snooze-" Snooze(300 ms) on its first call,
//                                  "retry-" RetryAfter(300 ms) on attempt 1,
//                                  "discard-" Discard, "park-"
//                                  RetryAfter(absl::InfiniteDuration()) on
//                                  attempt 1, "nap-"
//                                  Snooze(absl::InfiniteDuration()) on its
//                                  first call, "long-" and "big-" work
//                                  --long_ms
//                                  (returning early when asked to stop);
//                                  each call's start (at_us), verdict and
//                                  end are recorded on its row, the times
//                                  on this host's clock (the database's
//                                  host) as the handler began and returned.
// The handler's own connection reconnects after the server restarted.
// On SIGTERM it prints its metrics to stderr ("metrics: ...").

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/handler_outcome.h"
#include "durable/testing/fault_points.h"
#include "libpq-fe.h"
#include "timer/clock.h"
#include "timer/testing/pool_executor.h"

namespace {

// The real monotonic clock, shifted by a fixed offset, plus one jump when
// `Jump()` is called: a process whose own clock is wrong. Waits in progress
// at the jump end at their old real deadline (the next one sees the jump).
class SkewedClock final : public timingwheel::Clock {
 public:
  SkewedClock(int64_t offset_nanos, int64_t jump_nanos)
      : offset_(offset_nanos), jump_(jump_nanos) {}

  void Jump() { jumped_.store(true); }

  int64_t NowNanos() override { return Real()->NowNanos() + Offset(); }

  // A day added to every reading keeps an offset of -1 h positive on a
  // machine up for less than an hour (a steady clock counts from boot).
  static constexpr int64_t kBase = 24LL * 3600 * 1000000000;

  void WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock,
                 int64_t deadline_nanos) override {
    if (deadline_nanos == kInfinite) {
      Real()->WaitUntil(cv, lock, deadline_nanos);
      return;
    }
    Real()->WaitUntil(cv, lock, deadline_nanos - Offset());
  }

 private:
  static constexpr int64_t kInfinite = INT64_MAX;
  int64_t Offset() const {
    return kBase + offset_ + (jumped_.load() ? jump_ : 0);
  }
  const int64_t offset_;
  const int64_t jump_;
  std::atomic<bool> jumped_{false};
};

bool Flag(absl::string_view arg, absl::string_view name,
          absl::string_view* value) {
  if (!absl::ConsumePrefix(&arg, name) || !absl::ConsumePrefix(&arg, "=")) {
    return false;
  }
  *value = arg;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s CONNINFO NODE_ID TTL_MS [--flags]\n",
                 argv[0]);
    return 2;
  }
  int64_t offset_ms = 0, jump_ms = 0;
  std::string metrics_file;
  std::string runs_conninfo;
  int work_ms = 0;
  int handler_ms = 0, max_in_flight = 64, threads = 1, max_attempts = 3;
  int64_t backoff_ms = 1000;
  int64_t horizon_ms = 3600 * 1000;
  int64_t schedule_every_ms = 0;
  std::string fail_prefix;
  std::string run_label;
  bool exit_on_node_id_lost = false;
  std::string health_file;
  std::vector<std::pair<std::string, int>> kinds;
  bool verdicts = false;
  int long_ms = 3000;
  int64_t max_pending = 0, max_id_bytes = 0;
  int outcome_writers = 0;
  for (int i = 4; i < argc; ++i) {
    absl::string_view value;
    bool ok = true;
    if (Flag(argv[i], "--fault", &value)) {
      absl::Status status = timingwheel::durable_testing::InstallFault(value);
      if (!status.ok()) {
        std::fprintf(stderr, "%s\n", status.ToString().c_str());
        return 2;
      }
    } else if (Flag(argv[i], "--clock_offset_ms", &value)) {
      ok = absl::SimpleAtoi(value, &offset_ms);
    } else if (Flag(argv[i], "--clock_jump_ms", &value)) {
      ok = absl::SimpleAtoi(value, &jump_ms);
    } else if (Flag(argv[i], "--metrics_file", &value)) {
      metrics_file = std::string(value);
    } else if (Flag(argv[i], "--run_label", &value)) {
      run_label = std::string(value);
    } else if (absl::string_view(argv[i]) == "--exit_on_node_id_lost") {
      exit_on_node_id_lost = true;
    } else if (Flag(argv[i], "--health_file", &value)) {
      health_file = std::string(value);
    } else if (Flag(argv[i], "--fail_prefix", &value)) {
      fail_prefix = std::string(value);
    } else if (Flag(argv[i], "--handler_ms", &value)) {
      ok = absl::SimpleAtoi(value, &handler_ms);
    } else if (Flag(argv[i], "--work_ms", &value)) {
      ok = absl::SimpleAtoi(value, &work_ms);
    } else if (Flag(argv[i], "--runs_conninfo", &value)) {
      runs_conninfo = std::string(value);
    } else if (Flag(argv[i], "--max_in_flight", &value)) {
      ok = absl::SimpleAtoi(value, &max_in_flight);
    } else if (Flag(argv[i], "--horizon_ms", &value)) {
      ok = absl::SimpleAtoi(value, &horizon_ms);
    } else if (Flag(argv[i], "--max_attempts", &value)) {
      ok = absl::SimpleAtoi(value, &max_attempts) && max_attempts > 0;
    } else if (Flag(argv[i], "--backoff_ms", &value)) {
      ok = absl::SimpleAtoi(value, &backoff_ms);
    } else if (Flag(argv[i], "--schedule_every_ms", &value)) {
      ok = absl::SimpleAtoi(value, &schedule_every_ms) && schedule_every_ms > 0;
    } else if (Flag(argv[i], "--kinds", &value)) {
      for (absl::string_view k : absl::StrSplit(value, ',')) {
        std::pair<absl::string_view, absl::string_view> nl =
            absl::StrSplit(k, ':');
        int limit = 0;
        ok = ok && absl::SimpleAtoi(nl.second, &limit);
        kinds.emplace_back(std::string(nl.first), limit);
      }
    } else if (absl::string_view(argv[i]) == "--verdicts") {
      verdicts = true;
    } else if (Flag(argv[i], "--max_pending", &value)) {
      ok = absl::SimpleAtoi(value, &max_pending);
    } else if (Flag(argv[i], "--max_id_bytes", &value)) {
      ok = absl::SimpleAtoi(value, &max_id_bytes);
    } else if (Flag(argv[i], "--outcome_writers", &value)) {
      ok = absl::SimpleAtoi(value, &outcome_writers) && outcome_writers > 0;
    } else if (Flag(argv[i], "--long_ms", &value)) {
      ok = absl::SimpleAtoi(value, &long_ms);
    } else if (Flag(argv[i], "--threads", &value)) {
      ok = absl::SimpleAtoi(value, &threads) && threads > 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "bad argument: %s\n", argv[i]);
      return 2;
    }
  }
  // Block SIGTERM (and SIGUSR1) in every thread; main waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const std::string node = argv[2];
  if (run_label.empty()) run_label = node;
  const bool call_ids = !runs_conninfo.empty();
  if (!call_ids) runs_conninfo = argv[1];
  PGconn* runs = PQconnectdb(runs_conninfo.c_str());
  if (PQstatus(runs) != CONNECTION_OK) {
    std::fprintf(stderr, "connect: %s", PQerrorMessage(runs));
    return 1;
  }
  std::mutex runs_mu;
  int64_t calls = 0;  // Under runs_mu.
  timingwheel::DurableOptions options;
  options.conninfo = argv[1];
  options.node_id = node;
  options.slot_count = 64;
  options.lease_ttl = absl::Milliseconds(std::atoi(argv[3]));
  options.max_in_flight = max_in_flight;
  options.horizon = absl::Milliseconds(horizon_ms);
  options.retry.max_attempts = max_attempts;
  options.retry.initial_backoff = absl::Milliseconds(backoff_ms);
  if (max_pending > 0) options.timer_options.max_pending = max_pending;
  if (max_id_bytes > 0) options.max_id_bytes = max_id_bytes;
  if (outcome_writers > 0) options.outcome_writers = outcome_writers;
  SkewedClock clock(offset_ms * 1000000, jump_ms * 1000000);
  if (offset_ms != 0 || jump_ms != 0) options.timer_options.clock = &clock;
  std::unique_ptr<timingwheel::testing::PoolExecutor> pool;
  if (threads > 1) {
    pool = std::make_unique<timingwheel::testing::PoolExecutor>(threads);
    options.executor = pool.get();
  }
  // Runs `sql` with `n` text parameters on `runs` (under runs_mu), retried
  // over a new connection for up to 20 s; the first value of its result
  // ("" for none), or nullopt when it never succeeded.
  auto run_sql =
      [&](const char* sql,
          std::vector<std::string> params) -> std::optional<std::string> {
    std::vector<const char*> values;
    for (const std::string& p : params) values.push_back(p.c_str());
    for (int i = 0; i < 200; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (PQstatus(runs) != CONNECTION_OK) PQreset(runs);
      PGresult* r = PQexecParams(runs, sql, static_cast<int>(values.size()),
                                 nullptr, values.data(), nullptr, nullptr, 0);
      const ExecStatusType status = PQresultStatus(r);
      if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        std::string out = status == PGRES_TUPLES_OK && PQntuples(r) > 0
                              ? PQgetvalue(r, 0, 0)
                              : "";
        PQclear(r);
        return out;
      }
      PQclear(r);
    }
    return std::nullopt;
  };
  auto handle = [&](const timingwheel::DurableTask& task) -> absl::Status {
    if (handler_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(handler_ms));
    }
    // The call's start on this host's clock (the database's host), before
    // waiting for the shared connection.
    const std::string started = absl::StrCat(absl::ToUnixMicros(absl::Now()));
    std::unique_lock<std::mutex> lock(runs_mu);
    std::string attempt = absl::StrCat(task.attempt);
    const std::string call = absl::StrCat(node, "-", getpid(), "-", ++calls);
    const char* values[] = {task.id.data(), run_label.c_str(), attempt.c_str(),
                            call.c_str()};
    const int lengths[] = {static_cast<int>(task.id.size()), 0, 0, 0};
    const int formats[] = {1, 0, 0, 0};
    bool ok = false;
    // Every call is recorded, even one made while the server is stopped
    // (fault_outage_test): a closed connection is re-established and the
    // insert retried for up to 20 s, so that a failed insert never passes
    // for a handler call that did not happen.
    for (int i = 0; i < 200 && !ok; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (PQstatus(runs) != CONNECTION_OK) PQreset(runs);
      PGresult* r =
          call_ids ? PQexecParams(runs,
                                  "INSERT INTO test_runs (task_id, node, "
                                  "attempt, call) VALUES ($1::bytea, $2, "
                                  "$3::int, $4) ON CONFLICT (call) DO NOTHING",
                                  4, nullptr, values, lengths, formats, 0)
                   : PQexecParams(runs,
                                  "INSERT INTO test_runs (task_id, node, "
                                  "attempt) VALUES ($1::bytea, $2, $3::int)",
                                  3, nullptr, values, lengths, formats, 0);
      ok = PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
    }
    int64_t prior_calls = 0;
    if (ok && verdicts) {
      std::optional<std::string> n = run_sql(
          "SELECT count(*) - 1 FROM test_runs WHERE task_id = $1::bytea",
          {absl::StrCat("\\x", absl::BytesToHexString(task.id))});
      ok = ok && run_sql(
                     "UPDATE test_runs SET at_us = $2::bigint "
                     "WHERE call = $1",
                     {call, started})
                     .has_value();
      ok = n.has_value() && absl::SimpleAtoi(*n, &prior_calls);
      ok = ok && run_sql("UPDATE test_runs SET kind = $2 WHERE call = $1",
                         {call, task.kind})
                     .has_value();
    }
    lock.unlock();
    if (!ok) return absl::InternalError("test_runs insert");
    absl::Status verdict = absl::OkStatus();
    std::string name = "ok";
    int sleep_ms = work_ms;
    const absl::string_view id = task.id;
    if (!fail_prefix.empty() && absl::StartsWith(id, fail_prefix)) {
      verdict = absl::UnavailableError("this handler always fails");
      name = "fail";
    } else if (!verdicts) {
    } else if (absl::StartsWith(id, "long-") || absl::StartsWith(id, "big-")) {
      sleep_ms = long_ms;
    } else if (absl::StartsWith(id, "snooze-") && prior_calls == 0) {
      verdict = timingwheel::Snooze(absl::Milliseconds(300));
      name = "snooze";
    } else if (absl::StartsWith(id, "retry-") && task.attempt == 1) {
      verdict = timingwheel::RetryAfter(absl::Milliseconds(300), "later");
      name = "retry";
    } else if (absl::StartsWith(id, "discard-")) {
      verdict = timingwheel::Discard("not wanted");
      name = "discard";
    } else if (absl::StartsWith(id, "park-") && task.attempt == 1) {
      verdict = timingwheel::RetryAfter(absl::InfiniteDuration(), "park");
      name = "park";
    } else if (absl::StartsWith(id, "nap-") && prior_calls == 0) {
      verdict = timingwheel::Snooze(absl::InfiniteDuration());
      name = "nap";
    }
    for (int slept = 0; slept < sleep_ms; slept += 20) {
      if (task.stop_requested()) {
        name = "stopped";
        break;
      }
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::min(20, sleep_ms - slept)));
    }
    if (verdicts) {
      const std::string ended = absl::StrCat(absl::ToUnixMicros(absl::Now()));
      std::lock_guard<std::mutex> end_lock(runs_mu);
      if (!run_sql("UPDATE test_runs SET verdict = $2, end_us = $3::bigint "
                   "WHERE call = $1",
                   {call, name, ended})
               .has_value()) {
        return absl::InternalError("test_runs update");
      }
    }
    return verdict;
  };
  options.handler = handle;
  for (const auto& [name, limit] : kinds) {
    timingwheel::TaskKind kind;
    kind.name = name;
    kind.handler = handle;
    kind.max_in_flight = limit;
    options.kinds.push_back(std::move(kind));
  }
  auto scheduler = timingwheel::DurableScheduler::Create(options);
  if (!scheduler.ok()) {
    std::fprintf(stderr, "create: %s\n", scheduler.status().ToString().c_str());
    return 1;
  }
  if (schedule_every_ms > 0) {
    timingwheel::RecurringSchedule tick;
    tick.name = "tick";
    tick.every = absl::Milliseconds(schedule_every_ms);
    tick.payload = "tick";
    tick.policy.overlap = timingwheel::Overlap::kSkipWhileRunning;
    tick.policy.catch_up = timingwheel::CatchUp::kRunOnce;
    absl::Status created = (*scheduler)->CreateSchedule(tick);
    if (!created.ok()) {
      std::fprintf(stderr, "schedule: %s\n", created.ToString().c_str());
      return 1;
    }
  }
  std::printf("ready\n");
  std::fflush(stdout);
  int signal = 0;
  bool node_id_lost = false;
  if (exit_on_node_id_lost || !health_file.empty()) {
    // Asks Health() every 20 ms between signals, as a liveness probe
    // would; the node id lost is FailedPrecondition.
    const timespec every = {0, 20 * 1000 * 1000};
    std::string reported;
    for (;;) {
      signal = sigtimedwait(&signals, nullptr, &every);
      if (signal == SIGUSR1) clock.Jump();
      if (signal == SIGTERM) break;
      const absl::Status health = (*scheduler)->Health();
      const std::string code = absl::StatusCodeToString(health.code());
      if (!health_file.empty() && code != reported) {
        reported = code;
        if (FILE* f = std::fopen(health_file.c_str(), "a")) {
          std::fprintf(f, "%s\n", code.c_str());
          std::fclose(f);
        }
      }
      if (!exit_on_node_id_lost) continue;
      if (absl::IsFailedPrecondition(health) &&
          (*scheduler)->Metrics().node_id_lost != 0) {
        node_id_lost = true;
        std::fprintf(stderr, "node id %s lost to a replacement: %s\n",
                     node.c_str(), health.ToString().c_str());
        break;
      }
    }
  } else {
    while (sigwait(&signals, &signal) == 0 && signal == SIGUSR1) {
      clock.Jump();
    }
  }
  (*scheduler)->Shutdown();
  timingwheel::DurableMetrics m = (*scheduler)->Metrics();
  const std::string line = absl::StrCat(
      "metrics: ", node, " loaded=", m.loaded, " attempts=", m.attempts,
      " succeeded=", m.succeeded, " retried=", m.retried, " failed=", m.failed,
      " dropped=", m.dropped, " abandoned=", m.abandoned,
      " not_due=", m.not_due, " db_errors=", m.db_errors,
      " reconnects=", m.reconnects, " slots_acquired=", m.slots_acquired,
      " slots_lost=", m.slots_lost, " node_id_lost=", m.node_id_lost, "\n");
  std::fputs(line.c_str(), stderr);
  if (!metrics_file.empty()) {
    if (FILE* f = std::fopen(metrics_file.c_str(), "w")) {
      std::fputs(line.c_str(), f);
      std::fclose(f);
    }
  }
  PQfinish(runs);
  return node_id_lost ? 3 : 0;
}
