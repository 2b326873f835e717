// Copyright 2026 The timingwheel Authors.
//
// durable_demo: the durable tier under a crash, in one command
// (`bash .ci/durable-demo`). On a PostgreSQL it starts itself
// (.ci/with-postgres), it forks --processes scheduler processes sharing one
// store, schedules --tasks tasks due evenly over --span from a client
// connection of its own (ScheduleInTransaction, batches of 1000), kills one
// scheduler with SIGKILL halfway through, prints a live progress line, and
// ends with a table: tasks fired per process, duplicates, lost, early, p99
// lateness, takeover time.
//
// Each handler writes one fixed-size record (process, task, fire and due
// time) to a pipe the parent reads: a record written before the kill
// survives it. Exits 1 if a task was lost or fired early, or fired twice
// other than in the at-least-once window (the killed process ran the
// handler but its SUCCESS was not committed).

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmarks/pg_bench_util.h"
#include "durable/durable_scheduler.h"
#include "libpq-fe.h"

ABSL_FLAG(int, tasks, 100000, "Tasks to schedule.");
ABSL_FLAG(absl::Duration, span, absl::Seconds(30), "Due times spread over.");
ABSL_FLAG(absl::Duration, lead, absl::Seconds(20),
          "From the start of scheduling to the first due time.");
ABSL_FLAG(int, processes, 3, "Scheduler processes (the first is killed).");
ABSL_FLAG(absl::Duration, ttl, absl::Seconds(10), "Lease TTL.");

namespace timingwheel {
namespace bench {
namespace {

struct Record {
  int32_t process;
  int32_t task;
  int64_t fire_us;
  int64_t due_us;
};
static_assert(sizeof(Record) <= PIPE_BUF, "atomic pipe writes");

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "\ndurable_demo: %s\n", what.c_str());
  std::exit(1);
}

std::string Node(int i) { return absl::StrCat("scheduler-", i + 1); }

// A scheduler process: handler -> one record on `fd`; SIGTERM: clean
// shutdown.
int SchedulerMain(const std::string& conninfo, int index, int fd) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  DurableOptions options;
  options.conninfo = conninfo;
  options.node_id = Node(index);
  options.lease_ttl = absl::GetFlag(FLAGS_ttl);
  options.max_in_flight = 1000;
  options.handler = [index, fd](const DurableTask& task) {
    Record r{index, 0, absl::ToUnixMicros(absl::Now()),
             absl::ToUnixMicros(task.due)};
    if (!absl::SimpleAtoi(absl::string_view(task.id).substr(2), &r.task)) {
      return absl::InvalidArgumentError("bad id");
    }
    if (write(fd, &r, sizeof(r)) != static_cast<ssize_t>(sizeof(r))) {
      return absl::InternalError("pipe");
    }
    return absl::OkStatus();
  };
  auto scheduler = DurableScheduler::Create(options);
  if (!scheduler.ok()) {
    std::fprintf(stderr, "%s: %s\n", Node(index).c_str(),
                 scheduler.status().ToString().c_str());
    return 1;
  }
  int signal = 0;
  sigwait(&signals, &signal);
  (*scheduler)->Shutdown();
  return 0;
}

StoreStatus Status(AdminStore& store) {
  absl::StatusOr<StoreStatus> status = store.Status();
  if (!status.ok()) Die(status.status().ToString());
  return *std::move(status);
}

// The slots held under a valid lease by nodes other than `node`.
int64_t SlotsHeldByOthers(AdminStore& store, const std::string& node) {
  int64_t held = 0;
  for (const AdminSlot& slot : Status(store).slots) {
    if (slot.lease_valid && slot.owner != node) ++held;
  }
  return held;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

int Main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<std::string> admin = RunUnderPostgres(argc, argv);
  if (!admin.ok()) Die(admin.status().ToString());
  const int n = absl::GetFlag(FLAGS_tasks);
  const int procs = absl::GetFlag(FLAGS_processes);
  const absl::Duration span = absl::GetFlag(FLAGS_span);
  const absl::Duration ttl = absl::GetFlag(FLAGS_ttl);
  if (n < 1 || procs < 2) Die("need --tasks >= 1 and --processes >= 2");
  const bool tty = isatty(STDOUT_FILENO);

  auto db = BenchDatabase::Create(*admin, "demo");
  if (!db.ok()) Die(db.status().ToString());
  const std::string conninfo = (*db)->conninfo();
  int fds[2];
  if (pipe(fds) != 0) Die("pipe");
  fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);

  std::printf(
      "durable_demo: %d scheduler processes, %d tasks due over %s, "
      "lease TTL %s; %s is killed (SIGKILL) halfway\n",
      procs, n, absl::FormatDuration(span).c_str(),
      absl::FormatDuration(ttl).c_str(), Node(0).c_str());
  std::vector<pid_t> pids;
  for (int i = 0; i < procs; ++i) {
    pid_t pid = SpawnChild(
        [&conninfo, i, &fds] { return SchedulerMain(conninfo, i, fds[1]); });
    if (pid <= 0) Die("fork");
    pids.push_back(pid);
  }
  close(fds[1]);

  // Wait until every process holds a fair share of the slots.
  PGconn* conn = nullptr;             // The demo's inserts.
  std::unique_ptr<AdminStore> store;  // What it reads of the store.
  const absl::Time join_limit = absl::Now() + 3 * ttl + absl::Seconds(30);
  int64_t slot_count = 0;
  for (;;) {
    if (absl::Now() > join_limit) Die("the schedulers did not share the slots");
    absl::SleepFor(absl::Milliseconds(100));
    if (conn == nullptr) {
      auto c = PgConnect(conninfo);
      if (!c.ok()) continue;
      conn = *c;
    }
    if (store == nullptr) {
      auto a = AdminStore::Connect(conninfo);
      if (!a.ok()) continue;
      store = *std::move(a);
    }
    // The schema is the schedulers' to create: until then Status() fails.
    absl::StatusOr<StoreStatus> status = store->Status();
    if (!status.ok()) continue;
    slot_count = status->slot_count;
    int64_t min_share = 0;
    if (static_cast<int>(status->nodes.size()) == procs) {
      min_share = slot_count;
      for (const AdminNode& node : status->nodes) {
        min_share = std::min(min_share, node.slots_held);
      }
    }
    if (min_share >= slot_count / procs - procs) break;  // Ceil shares.
  }
  std::printf("durable_demo: each process holds about %lld of %lld slots\n",
              static_cast<long long>(slot_count / procs),
              static_cast<long long>(slot_count));

  std::vector<std::vector<Record>> runs(n);
  std::vector<int64_t> fired_by(procs, 0);
  int64_t fired = 0;
  auto drain = [&] {
    Record buf[512];
    for (;;) {
      ssize_t got = read(fds[0], buf, sizeof(buf));
      if (got <= 0) return;
      for (size_t k = 0; k < static_cast<size_t>(got) / sizeof(Record); ++k) {
        const Record& r = buf[k];
        if (r.task < 0 || r.task >= n) continue;
        if (runs[r.task].empty()) ++fired;
        runs[r.task].push_back(r);
        ++fired_by[r.process];
      }
    }
  };

  // The client: batches of 1000 in transactions, in due order.
  const absl::Time start = absl::Now() + absl::GetFlag(FLAGS_lead);
  const absl::Time kill_at = start + span / 2;
  const absl::Time t0 = absl::Now();
  std::vector<int64_t> committed_us(n, 0);
  for (int b = 0; b < n; b += 1000) {
    std::vector<ScheduleRequest> batch;
    for (int i = b; i < std::min(n, b + 1000); ++i) {
      ScheduleRequest r;
      r.id = absl::StrCat("t-", i);
      r.payload = "demo";
      r.due = start + span * i / n;
      batch.push_back(std::move(r));
    }
    if (!PgExec(conn, "BEGIN").ok()) Die("BEGIN");
    absl::Status s = ScheduleInTransaction(conn, batch, slot_count);
    if (!s.ok()) Die(s.ToString());
    if (!PgExec(conn, "COMMIT").ok()) Die("COMMIT");
    const int64_t committed = absl::ToUnixMicros(absl::Now());
    for (int i = b; i < std::min(n, b + 1000); ++i) {
      committed_us[i] = committed;
    }
    drain();
  }
  std::printf("durable_demo: client scheduled %d tasks in %.1f s\n", n,
              absl::ToDoubleSeconds(absl::Now() - t0));

  // Progress, the kill, the takeover.
  absl::Time killed = absl::InfiniteFuture();
  double takeover_s = -1;
  const absl::Time deadline = start + span + 3 * ttl + absl::Seconds(60);
  absl::Time next_line = absl::Now();
  for (;;) {
    drain();
    const absl::Time now = absl::Now();
    if (killed == absl::InfiniteFuture() && now >= kill_at) {
      if (!KillChild(pids[0], SIGKILL)) Die("no victim pid");
      pids[0] = -1;
      killed = absl::Now();
      if (tty) std::printf("\n");
      std::printf("durable_demo: %s killed (SIGKILL) at t=%.1f s\n",
                  Node(0).c_str(), absl::ToDoubleSeconds(killed - start));
    }
    if (killed != absl::InfiniteFuture() && takeover_s < 0 &&
        SlotsHeldByOthers(*store, Node(0)) == slot_count) {
      takeover_s = absl::ToDoubleSeconds(absl::Now() - killed);
      if (tty) std::printf("\n");
      std::printf(
          "durable_demo: survivors hold all %lld slots %.2f s after "
          "the kill\n",
          static_cast<long long>(slot_count), takeover_s);
    }
    if (now >= next_line) {
      std::string line =
          absl::StrFormat("t=%5.1f s  fired %6d/%d",
                          absl::ToDoubleSeconds(now - start), fired, n);
      for (int i = 0; i < procs; ++i) {
        absl::StrAppend(&line, "  ", Node(i), " ", fired_by[i],
                        i == 0 && pids[0] < 0 ? " (killed)" : "");
      }
      if (tty) {
        std::printf("\r%s   ", line.c_str());
      } else {
        std::printf("%s\n", line.c_str());
      }
      std::fflush(stdout);
      next_line = now + (tty ? absl::Milliseconds(250) : absl::Seconds(2));
    }
    if (fired == n && takeover_s >= 0) break;
    if (now > deadline) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  if (tty) std::printf("\n");
  // Let the last completions commit, then check the table.
  const absl::Time settle = absl::Now() + absl::Seconds(10);
  int64_t success = 0;
  while (absl::Now() < settle) {
    drain();
    success = Status(*store).counts[static_cast<int>(TaskState::kSuccess)];
    if (success == n) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  drain();
  for (pid_t& pid : pids) {
    if (pid > 0) KillChild(pid, SIGTERM);  // Clean shutdown, then reaped.
    pid = -1;
  }
  PQfinish(conn);

  int64_t lost = 0, early = 0, dup_window = 0, dup_other = 0;
  int64_t stored_late = 0;  // Committed by the client after their due time.
  std::vector<double> late_ms, late_before_kill_ms;
  const int64_t killed_us = absl::ToUnixMicros(killed);
  for (int i = 0; i < n; ++i) {
    if (runs[i].empty()) {
      ++lost;
      continue;
    }
    for (const Record& r : runs[i]) {
      if (r.fire_us < r.due_us) ++early;
    }
    if (runs[i].size() > 1) {
      // Only the first run may be the killed process's, before the kill.
      bool window = runs[i].size() == 2 && runs[i][0].process == 0 &&
                    runs[i][0].fire_us <= killed_us;
      ++(window ? dup_window : dup_other);
    }
    const Record& first = runs[i].front();
    if (committed_us[i] > first.due_us) {
      ++stored_late;  // Could not be on time: not in the lateness figures.
      continue;
    }
    double ms = (first.fire_us - first.due_us) / 1000.0;
    late_ms.push_back(ms);
    if (first.due_us < killed_us - 1000000) late_before_kill_ms.push_back(ms);
  }
  std::printf("\n%-46s %s\n", "", "result");
  for (int i = 0; i < procs; ++i) {
    std::printf(
        "%-46s %lld%s\n", absl::StrCat("tasks fired by ", Node(i)).c_str(),
        static_cast<long long>(fired_by[i]), i == 0 ? " (killed halfway)" : "");
  }
  std::printf("%-46s %lld of %d\n", "tasks fired at least once",
              static_cast<long long>(fired), n);
  std::printf("%-46s %lld of %d\n", "SUCCESS rows in the table",
              static_cast<long long>(success), n);
  std::printf("%-46s %lld\n", "lost (never fired)",
              static_cast<long long>(lost));
  std::printf("%-46s %lld\n", "early (fired before due)",
              static_cast<long long>(early));
  std::printf("%-46s %lld\n", "duplicates: at-least-once window (*)",
              static_cast<long long>(dup_window));
  std::printf("%-46s %lld\n", "duplicates: other",
              static_cast<long long>(dup_other));
  std::printf("%-46s %lld\n", "stored after their due time (not timed)",
              static_cast<long long>(stored_late));
  std::printf("%-46s %.1f ms\n", "p99 lateness, all tasks",
              Percentile(late_ms, 0.99));
  std::printf("%-46s %.1f ms\n",
              "p99 lateness, tasks due > 1 s before the kill",
              Percentile(late_before_kill_ms, 0.99));
  std::printf("%-46s %.1f s\n", "max lateness", Percentile(late_ms, 1.0) / 1e3);
  std::printf("%-46s %.2f s (TTL %s)\n", "takeover (kill -> all slots held)",
              takeover_s, absl::FormatDuration(ttl).c_str());
  std::printf(
      "(*) the killed process ran the handler, its SUCCESS was not yet "
      "committed: the task runs again elsewhere (at least once; handlers get "
      "(id, attempt) as an idempotency key).\n");
  const bool ok = lost == 0 && early == 0 && dup_other == 0 &&
                  takeover_s >= 0 && success == n;
  std::printf("durable_demo: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) { return timingwheel::bench::Main(argc, argv); }
