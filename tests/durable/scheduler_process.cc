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
//                                  reaches POINT (durable/fault_point.h);
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
// The handler's own connection reconnects after the server restarted.
//   --metrics_file=PATH            at exit, also write the metrics line here.
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
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "durable/durable_scheduler.h"
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
  SkewedClock clock(offset_ms * 1000000, jump_ms * 1000000);
  if (offset_ms != 0 || jump_ms != 0) options.timer_options.clock = &clock;
  std::unique_ptr<timingwheel::testing::PoolExecutor> pool;
  if (threads > 1) {
    pool = std::make_unique<timingwheel::testing::PoolExecutor>(threads);
    options.executor = pool.get();
  }
  options.handler = [&](const timingwheel::DurableTask& task) {
    if (handler_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(handler_ms));
    }
    std::unique_lock<std::mutex> lock(runs_mu);
    std::string attempt = absl::StrCat(task.attempt);
    const std::string call = absl::StrCat(node, "-", getpid(), "-", ++calls);
    const char* values[] = {task.id.data(), node.c_str(), attempt.c_str(),
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
    lock.unlock();
    if (!ok) return absl::InternalError("test_runs insert");
    if (work_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(work_ms));
    }
    if (!fail_prefix.empty() && absl::StartsWith(task.id, fail_prefix)) {
      return absl::UnavailableError("this handler always fails");
    }
    return absl::OkStatus();
  };
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
  while (sigwait(&signals, &signal) == 0 && signal == SIGUSR1) {
    clock.Jump();
  }
  (*scheduler)->Shutdown();
  timingwheel::DurableMetrics m = (*scheduler)->Metrics();
  const std::string line = absl::StrCat(
      "metrics: ", node, " loaded=", m.loaded, " attempts=", m.attempts,
      " succeeded=", m.succeeded, " retried=", m.retried, " failed=", m.failed,
      " dropped=", m.dropped, " abandoned=", m.abandoned,
      " not_due=", m.not_due, " db_errors=", m.db_errors,
      " reconnects=", m.reconnects, " slots_acquired=", m.slots_acquired,
      " slots_lost=", m.slots_lost, "\n");
  std::fputs(line.c_str(), stderr);
  if (!metrics_file.empty()) {
    if (FILE* f = std::fopen(metrics_file.c_str(), "w")) {
      std::fputs(line.c_str(), f);
      std::fclose(f);
    }
  }
  PQfinish(runs);
  return 0;
}
