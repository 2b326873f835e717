// Copyright 2026 The timingwheel Authors.
//
// durable_perf: //durable's DurableScheduler side by side with a polling
// scheduler of the kind River, db-scheduler and Quartz use
// (benchmarks/baselines/polling_scheduler.h), on a PostgreSQL this binary
// starts itself (through .ci/with-postgres: Unix socket only, stopped and
// deleted at exit, also on failure). Each run measures, for both:
//
//   * adds/s, one Schedule() per task (unbatched) and 1000 per statement
//     (batched), 32-byte payloads, due in 48 h (beyond the horizon);
//   * bytes per stored timer: pg_total_relation_size(table) / rows after
//     those adds (heap + indexes + TOAST, 32-byte payloads);
//   * fires completed/s end to end: --fire_tasks due at one instant, from
//     the first handler call until every row is recorded done in the table
//     (handlers do nothing);
//   * lateness (mean, p99, max) of --lateness_tasks spread over
//     --lateness_span, stored in batches of --lateness_batch 0.5 s before
//     the first is due (within ours' horizon): handler call - due;
//   * statements/s while idle: server-side, from pg_stat_database
//     (xact_commit + xact_rollback of the scheduler's own database: every
//     statement is one transaction), over --idle after --settle; the poller's
//     client-side count is printed beside it as a cross-check;
//   * takeover after kill -9: two scheduler processes (forked), the one
//     holding everything killed; ours: until the survivor holds every slot;
//     the poller: until the survivor has re-run the rows the dead one had
//     claimed. Both with lease/lock TTL --ttl.
//
// Medians of --runs runs; ratios are ours / poller of the same medians.
//
//   bazel run -c opt //benchmarks:durable_perf             (~3 min, 3 runs)
//   bazel run -c opt //benchmarks:durable_perf -- --smoke  (CI, seconds)

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmarks/baselines/polling_scheduler.h"
#include "benchmarks/pg_bench_util.h"
#include "durable/durable_scheduler.h"
#include "libpq-fe.h"

ABSL_FLAG(int, runs, 3, "Repetitions; medians are reported.");
ABSL_FLAG(int, adds, 2000, "Unbatched adds per run.");
ABSL_FLAG(int, batched_adds, 50000, "Batched adds per run (batches of 1000).");
ABSL_FLAG(int, fire_tasks, 20000, "Tasks due at one instant (fire rate).");
ABSL_FLAG(int, lateness_tasks, 2000, "Tasks spread over --lateness_span.");
ABSL_FLAG(int, lateness_batch, 1000, "Lateness tasks per ScheduleBatch().");
ABSL_FLAG(absl::Duration, lateness_span, absl::Seconds(4),
          "Span of the lateness tasks' due times.");
ABSL_FLAG(absl::Duration, idle, absl::Seconds(10), "Idle window.");
ABSL_FLAG(absl::Duration, settle, absl::Seconds(11),
          "Wait before the idle window (statistics flush lag).");
ABSL_FLAG(absl::Duration, ttl, absl::Seconds(10),
          "Lease TTL (ours) and lock TTL (poller) for the takeover.");
ABSL_FLAG(absl::Duration, poll_interval, absl::Seconds(1),
          "The poller's interval (River's default fetch poll: 1 s).");
ABSL_FLAG(int, max_in_flight, 1000, "Ours: handlers at once.");
ABSL_FLAG(bool, smoke, false, "Tiny sizes, one run (CI).");
ABSL_FLAG(bool, json, false, "Also print the medians as one JSON object.");
ABSL_FLAG(bool, attempt_history, true,
          "DurableOptions::attempt_history of ours (one tw_attempt row per "
          "outcome).");

namespace timingwheel {
namespace bench {
namespace {

constexpr int kBatch = 1000;
const std::string kPayload(32, 'p');

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Handler calls of one phase: lateness and first/last call.
class Recorder {
 public:
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    lateness_.clear();
    first_ = absl::InfiniteFuture();
    last_ = absl::InfinitePast();
  }
  void Record(absl::Time due) {
    absl::Time now = absl::Now();
    std::lock_guard<std::mutex> lock(mu_);
    lateness_.push_back(absl::ToDoubleMilliseconds(now - due));
    first_ = std::min(first_, now);
    last_ = std::max(last_, now);
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu_);
    return lateness_.size();
  }
  // Waits until `n` calls were recorded (false after `timeout`).
  bool WaitFor(size_t n, absl::Duration timeout) {
    absl::Time deadline = absl::Now() + timeout;
    while (Count() < n) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return true;
  }
  // Calls per second from the first call to `end`.
  double RateUntil(absl::Time end) {
    std::lock_guard<std::mutex> lock(mu_);
    double s = absl::ToDoubleSeconds(end - first_);
    return lateness_.size() / std::max(s, 1e-6);
  }
  void Lateness(double* mean, double* p99, double* max) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<double> v = lateness_;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    *mean = v.empty() ? 0 : sum / v.size();
    *p99 = v.empty() ? 0 : v[static_cast<size_t>(0.99 * (v.size() - 1))];
    *max = v.empty() ? 0 : v.back();
  }

 private:
  std::mutex mu_;
  std::vector<double> lateness_;
  absl::Time first_, last_;
};

// Metric name -> value of one run, per implementation.
using Sample = std::map<std::string, double>;

// The 1-, 5- and 15-minute load averages, to print beside each figure.
std::string LoadAverage() {
  double load[3] = {-1, -1, -1};
  if (getloadavg(load, 3) != 3) return "unknown";
  return absl::StrFormat("%.2f %.2f %.2f", load[0], load[1], load[2]);
}

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "durable_perf: %s\n", status.ToString().c_str());
  std::exit(1);
}
template <typename T>
T Must(absl::StatusOr<T> v) {
  if (!v.ok()) Die(v.status());
  return *std::move(v);
}
void Must(const absl::Status& s) {
  if (!s.ok()) Die(s);
}

int64_t Int(PGconn* conn, const std::string& sql) {
  return Must(PgQueryInt(conn, sql));
}

// Server-side transaction count of database `name` (one per statement).
int64_t Xacts(PGconn* admin, const std::string& name) {
  return Int(admin, absl::StrCat("SELECT xact_commit + xact_rollback FROM "
                                 "pg_stat_database WHERE datname = '",
                                 name, "'"));
}

// Polls `count_sql` until it reaches `n`; returns when (dies after 120 s).
absl::Time WaitDone(PGconn* conn, const std::string& count_sql, int64_t n) {
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (Int(conn, count_sql) < n) {
    if (absl::Now() > deadline) Die(absl::DeadlineExceededError(count_sql));
    absl::SleepFor(absl::Milliseconds(2));
  }
  return absl::Now();
}

// Takeover after kill -9, both at once, in forked processes (the parent is
// single-threaded here). Returns seconds: {ours, poller}.
std::pair<double, double> MeasureTakeover(const std::string& admin,
                                          absl::Duration ttl,
                                          absl::Duration interval) {
  auto ours_db = Must(BenchDatabase::Create(admin, "perf_takeover_ours"));
  auto poll_db = Must(BenchDatabase::Create(admin, "perf_takeover_poll"));
  const std::string ours = ours_db->conninfo(), poll = poll_db->conninfo();
  auto ours_node = [&](const std::string& node) {
    return [ours, node, ttl]() {
      DurableOptions o;
      o.conninfo = ours;
      o.node_id = node;
      o.lease_ttl = ttl;
      o.handler = [](const DurableTask&) { return absl::OkStatus(); };
      auto s = DurableScheduler::Create(o);
      if (!s.ok()) return 1;
      for (;;) pause();
    };
  };
  auto poll_node = [&](const std::string& node, bool block) {
    return [poll, node, ttl, interval, block]() {
      PollingOptions o;
      o.conninfo = poll;
      o.node_id = node;
      o.lock_ttl = ttl;
      o.interval = interval;
      o.handler = [block](const PolledTask&) {
        if (block) absl::SleepFor(absl::Hours(1));  // Dies holding its batch.
      };
      auto s = PollingScheduler::Create(o);
      if (!s.ok()) return 1;
      for (;;) pause();
    };
  };
  Must(PollingScheduler::CreateSchema(poll));
  PGconn* pc = Must(PgConnect(poll));
  Must(PgExec(pc,
              "INSERT INTO poll_timer (task_id, due_us, payload) SELECT "
              "'k' || g, (extract(epoch FROM clock_timestamp()) * 1e6)::bigint,"
              " '\\x00' FROM generate_series(1, 100) g"));
  std::vector<pid_t> pids;
  pid_t ours_victim = SpawnChild(ours_node("victim"));
  pid_t poll_victim = SpawnChild(poll_node("victim", true));
  pids = {ours_victim, poll_victim};
  const absl::Time limit = absl::Now() + absl::Seconds(60);
  // The victims hold everything: every slot, every claimed row.
  PGconn* oc = nullptr;
  for (;;) {
    if (absl::Now() > limit) Die(absl::DeadlineExceededError("victims"));
    absl::SleepFor(absl::Milliseconds(20));
    if (oc == nullptr) {
      auto c = PgConnect(ours);
      if (!c.ok()) continue;
      oc = *c;
    }
    auto held = PgQueryInt(
        oc,
        "SELECT count(*) FROM tw_slot_lease WHERE owner = 'victim' AND "
        "lease_until_us > tw_now_us()");
    auto meta =
        PgQueryInt(oc, "SELECT value FROM tw_meta WHERE key = 'slot_count'");
    if (!held.ok() || !meta.ok() || *held < *meta) continue;
    if (Int(pc,
            "SELECT count(*) FROM poll_timer WHERE state = 1 AND "
            "owner = 'victim'") == 100) {
      break;
    }
  }
  const int64_t slots =
      Int(oc, "SELECT value FROM tw_meta WHERE key = 'slot_count'");
  pid_t ours_survivor = SpawnChild(ours_node("survivor"));
  pid_t poll_survivor = SpawnChild(poll_node("survivor", false));
  pids.push_back(ours_survivor);
  pids.push_back(poll_survivor);
  while (Int(oc, "SELECT count(*) FROM tw_node WHERE node_id = 'survivor'") ==
         0) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  absl::SleepFor(absl::Milliseconds(200));  // The poller survivor connects.
  const absl::Time t0 = absl::Now();
  KillChild(ours_victim, SIGKILL);
  KillChild(poll_victim, SIGKILL);
  double ours_s = -1, poll_s = -1;
  const absl::Time deadline = t0 + 3 * ttl + 4 * interval + absl::Seconds(10);
  while ((ours_s < 0 || poll_s < 0) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    if (ours_s < 0 &&
        Int(oc,
            "SELECT count(*) FROM tw_slot_lease WHERE owner = 'survivor' "
            "AND lease_until_us > tw_now_us()") == slots) {
      ours_s = absl::ToDoubleSeconds(absl::Now() - t0);
    }
    if (poll_s < 0 &&
        Int(pc, "SELECT count(*) FROM poll_timer WHERE state < 2") == 0) {
      poll_s = absl::ToDoubleSeconds(absl::Now() - t0);
    }
  }
  KillChild(ours_survivor, SIGKILL);
  KillChild(poll_survivor, SIGKILL);
  PQfinish(oc);
  PQfinish(pc);
  return {ours_s, poll_s};
}

// Adds, bytes, fire rate, lateness and idle statements, both
// implementations, in this process.
void MeasureInProcess(const std::string& admin, Sample* ours, Sample* poller) {
  auto ours_db = Must(BenchDatabase::Create(admin, "perf_ours"));
  auto poll_db = Must(BenchDatabase::Create(admin, "perf_poll"));
  Recorder ours_rec, poll_rec;

  DurableOptions o;
  o.conninfo = ours_db->conninfo();
  o.node_id = "bench-ours";
  o.max_in_flight = absl::GetFlag(FLAGS_max_in_flight);
  o.attempt_history = absl::GetFlag(FLAGS_attempt_history);
  o.handler = [&](const DurableTask& t) {
    ours_rec.Record(t.due);
    return absl::OkStatus();
  };
  auto sched = Must(DurableScheduler::Create(o));
  Must(PollingScheduler::CreateSchema(poll_db->conninfo()));
  PollingOptions po;
  po.conninfo = poll_db->conninfo();
  po.node_id = "bench-poller";
  po.interval = absl::GetFlag(FLAGS_poll_interval);
  po.handler = [&](const PolledTask& t) { poll_rec.Record(t.due); };
  auto poll = Must(PollingScheduler::Create(po));

  PGconn* admin_conn = Must(PgConnect(admin));
  PGconn* ours_conn = Must(PgConnect(ours_db->conninfo()));
  PGconn* poll_conn = Must(PgConnect(poll_db->conninfo()));
  // Ours holds every slot before the measurement.
  const absl::Time limit = absl::Now() + absl::Seconds(30);
  while (Int(ours_conn,
             "SELECT count(*) FROM tw_slot_lease WHERE owner = "
             "'bench-ours'") < o.slot_count) {
    if (absl::Now() > limit) Die(absl::DeadlineExceededError("slots"));
    absl::SleepFor(absl::Milliseconds(10));
  }

  // Adds, unbatched then batched, due in 48 h.
  const int adds = absl::GetFlag(FLAGS_adds);
  const int batched = absl::GetFlag(FLAGS_batched_adds);
  {
    absl::Time start = absl::Now();
    for (int i = 0; i < adds; ++i) {
      Must(sched->Schedule(absl::StrCat("u-", i), absl::Hours(48), kPayload));
    }
    (*ours)["adds_unbatched"] =
        adds / absl::ToDoubleSeconds(absl::Now() - start);
    start = absl::Now();
    for (int i = 0; i < adds; ++i) {
      Must(poll->Schedule(absl::StrCat("u-", i), absl::Now() + absl::Hours(48),
                          kPayload));
    }
    (*poller)["adds_unbatched"] =
        adds / absl::ToDoubleSeconds(absl::Now() - start);
  }
  {
    absl::Time due = absl::Now() + absl::Hours(48);
    absl::Time start = absl::Now();
    for (int b = 0; b < batched; b += kBatch) {
      std::vector<ScheduleRequest> batch;
      for (int i = b; i < std::min(batched, b + kBatch); ++i) {
        ScheduleRequest r;
        r.id = absl::StrCat("b-", i);
        r.payload = kPayload;
        r.due = due;
        batch.push_back(std::move(r));
      }
      Must(sched->ScheduleBatch(batch));
    }
    (*ours)["adds_batched"] =
        batched / absl::ToDoubleSeconds(absl::Now() - start);
    start = absl::Now();
    for (int b = 0; b < batched; b += kBatch) {
      std::vector<PollingScheduler::Request> batch;
      for (int i = b; i < std::min(batched, b + kBatch); ++i) {
        batch.push_back({absl::StrCat("b-", i), due, kPayload});
      }
      Must(poll->ScheduleBatch(batch));
    }
    (*poller)["adds_batched"] =
        batched / absl::ToDoubleSeconds(absl::Now() - start);
  }
  (*ours)["bytes_per_timer"] =
      static_cast<double>(
          Int(ours_conn, "SELECT pg_total_relation_size('tw_timer')")) /
      Int(ours_conn, "SELECT count(*) FROM tw_timer");
  (*poller)["bytes_per_timer"] =
      static_cast<double>(
          Int(poll_conn, "SELECT pg_total_relation_size('poll_timer')")) /
      Int(poll_conn, "SELECT count(*) FROM poll_timer");

  // Fire rate: a burst due at one instant, one implementation at a time.
  const int fire = absl::GetFlag(FLAGS_fire_tasks);
  {
    ours_rec.Reset();
    absl::Time due = absl::Now() + absl::Seconds(1) +
                     absl::Microseconds(static_cast<int64_t>(fire) * 30);
    for (int b = 0; b < fire; b += kBatch) {
      std::vector<ScheduleRequest> batch;
      for (int i = b; i < std::min(fire, b + kBatch); ++i) {
        ScheduleRequest r;
        r.id = absl::StrCat("f-", i);
        r.payload = kPayload;
        r.due = due;
        batch.push_back(std::move(r));
      }
      Must(sched->ScheduleBatch(batch));
    }
    if (!ours_rec.WaitFor(fire, absl::Seconds(120))) {
      Die(absl::DeadlineExceededError("ours: fire burst"));
    }
    (*ours)["fires_per_s"] = ours_rec.RateUntil(WaitDone(
        ours_conn, "SELECT count(*) FROM tw_timer WHERE state = 3", fire));
    poll_rec.Reset();
    due = absl::Now() + absl::Seconds(1) +
          absl::Microseconds(static_cast<int64_t>(fire) * 30);
    for (int b = 0; b < fire; b += kBatch) {
      std::vector<PollingScheduler::Request> batch;
      for (int i = b; i < std::min(fire, b + kBatch); ++i) {
        batch.push_back({absl::StrCat("f-", i), due, kPayload});
      }
      Must(poll->ScheduleBatch(batch));
    }
    if (!poll_rec.WaitFor(fire, absl::Seconds(120))) {
      Die(absl::DeadlineExceededError("poller: fire burst"));
    }
    (*poller)["fires_per_s"] = poll_rec.RateUntil(WaitDone(
        poll_conn, "SELECT count(*) FROM poll_timer WHERE state = 2", fire));
  }

  // Lateness: tasks spread over the span, one implementation at a time.
  const int late_n = absl::GetFlag(FLAGS_lateness_tasks);
  const absl::Duration span = absl::GetFlag(FLAGS_lateness_span);
  const int late_batch = std::max(1, absl::GetFlag(FLAGS_lateness_batch));
  auto lateness = [&](Recorder* rec, const std::function<void(absl::Time)>& add,
                      Sample* out) {
    rec->Reset();
    add(absl::Now() + absl::Milliseconds(500));
    if (!rec->WaitFor(late_n, span + absl::Seconds(60))) {
      Die(absl::DeadlineExceededError("lateness"));
    }
    rec->Lateness(&(*out)["late_mean_ms"], &(*out)["late_p99_ms"],
                  &(*out)["late_max_ms"]);
  };
  lateness(
      &ours_rec,
      [&](absl::Time start) {
        std::vector<ScheduleRequest> batch;
        for (int i = 0; i < late_n; ++i) {
          ScheduleRequest r;
          r.id = absl::StrCat("l-", i);
          r.payload = kPayload;
          r.due = start + span * i / late_n;
          batch.push_back(std::move(r));
          if (static_cast<int>(batch.size()) == late_batch || i == late_n - 1) {
            Must(sched->ScheduleBatch(batch));
            batch.clear();
          }
        }
      },
      ours);
  lateness(
      &poll_rec,
      [&](absl::Time start) {
        std::vector<PollingScheduler::Request> batch;
        for (int i = 0; i < late_n; ++i) {
          batch.push_back(
              {absl::StrCat("l-", i), start + span * i / late_n, kPayload});
          if (static_cast<int>(batch.size()) == late_batch || i == late_n - 1) {
            Must(poll->ScheduleBatch(batch));
            batch.clear();
          }
        }
      },
      poller);

  // Idle: nothing due for 48 h; both at once.
  PQfinish(ours_conn);
  PQfinish(poll_conn);
  // An idle backend flushes its statistics up to 10 s late (PostgreSQL 15's
  // PGSTAT_IDLE_INTERVAL): let the burst above settle, then count in steady
  // state (both ends lag alike).
  absl::SleepFor(absl::GetFlag(FLAGS_settle));
  const absl::Duration idle = absl::GetFlag(FLAGS_idle);
  const int64_t ours0 = Xacts(admin_conn, ours_db->name());
  const int64_t poll0 = Xacts(admin_conn, poll_db->name());
  const int64_t client0 = poll->Metrics().statements;
  absl::SleepFor(idle);
  const double secs = absl::ToDoubleSeconds(idle);
  (*ours)["idle_stmts_per_s"] =
      (Xacts(admin_conn, ours_db->name()) - ours0) / secs;
  (*poller)["idle_stmts_per_s"] =
      (Xacts(admin_conn, poll_db->name()) - poll0) / secs;
  (*poller)["idle_client_stmts_per_s"] =
      (poll->Metrics().statements - client0) / secs;
  PQfinish(admin_conn);
  sched->Shutdown();
  poll->Stop();
}

struct Row {
  const char* key;
  const char* label;
  int decimals;
  const char* target;
};

int Main(int argc, char** argv) {
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_smoke)) {
    absl::SetFlag(&FLAGS_runs, 1);
    absl::SetFlag(&FLAGS_adds, 100);
    absl::SetFlag(&FLAGS_batched_adds, 2000);
    absl::SetFlag(&FLAGS_fire_tasks, 1000);
    absl::SetFlag(&FLAGS_lateness_tasks, 100);
    absl::SetFlag(&FLAGS_lateness_span, absl::Milliseconds(500));
    absl::SetFlag(&FLAGS_idle, absl::Seconds(2));
    absl::SetFlag(&FLAGS_settle, absl::Seconds(1));
    absl::SetFlag(&FLAGS_ttl, absl::Seconds(1));
    absl::SetFlag(&FLAGS_poll_interval, absl::Milliseconds(200));
  }
  const std::string admin = Must(RunUnderPostgres(argc, argv));
  const int runs = absl::GetFlag(FLAGS_runs);
  std::map<std::string, std::vector<double>> ours, poller;
  // Takeovers first: they fork, and the process has one thread only here.
  for (int r = 0; r < runs; ++r) {
    auto [o, p] = MeasureTakeover(admin, absl::GetFlag(FLAGS_ttl),
                                  absl::GetFlag(FLAGS_poll_interval));
    std::fprintf(stderr,
                 "durable_perf: takeover run %d (load %s): ours %.2f s, "
                 "poller %.2f s\n",
                 r + 1, LoadAverage().c_str(), o, p);
    if (o < 0 || p < 0) Die(absl::DeadlineExceededError("takeover"));
    ours["takeover_s"].push_back(o);
    poller["takeover_s"].push_back(p);
  }
  for (int r = 0; r < runs; ++r) {
    Sample o, p;
    MeasureInProcess(admin, &o, &p);
    std::string line = absl::StrCat("durable_perf: run ", r + 1, " (load ",
                                    LoadAverage(), "):");
    for (const auto& [k, v] : o) {
      absl::StrAppend(&line, " ", k, " ", absl::StrFormat("%.2f", v), "/",
                      absl::StrFormat("%.2f", p[k]));
    }
    std::fprintf(stderr, "%s (ours/poller)\n", line.c_str());
    for (auto& [k, v] : o) ours[k].push_back(v);
    for (auto& [k, v] : p) poller[k].push_back(v);
  }
  const std::string ttl = absl::FormatDuration(absl::GetFlag(FLAGS_ttl));
  const std::string interval =
      absl::FormatDuration(absl::GetFlag(FLAGS_poll_interval));
  const Row rows[] = {
      {"adds_unbatched", "adds/s, unbatched", 0, ">= 15,000"},
      {"adds_batched", "adds/s, batched (1000)", 0, ">= 150,000"},
      {"fires_per_s", "fires completed/s, end to end", 0, ">= 50,000"},
      {"late_mean_ms", "lateness mean, ms", 2, ""},
      {"late_p99_ms", "lateness p99, ms", 2, "<= 5"},
      {"late_max_ms", "lateness max, ms", 2, ""},
      {"idle_stmts_per_s", "idle statements/s (server)", 2, "<= 1"},
      {"idle_client_stmts_per_s", "idle statements/s (client count)", 2, ""},
      {"bytes_per_timer", "bytes per stored timer (32 B payload)", 0, "<= 200"},
      {"takeover_s", "takeover after kill -9, s", 2, "<= 15"},
  };
  std::printf(
      "durable_perf: medians of %d run(s); ours = DurableScheduler, poller = "
      "PollingScheduler (interval %s, batch %d); TTL %s; load average at "
      "the end %s\n",
      runs, interval.c_str(), kBatch, ttl.c_str(), LoadAverage().c_str());
  std::printf("%-40s %12s %12s %8s  %s\n", "metric", "ours", "poller",
              "ours/poll", "target (ours)");
  auto cell = [](const std::map<std::string, std::vector<double>>& m,
                 const char* key, int decimals) {
    auto it = m.find(key);
    if (it == m.end()) return std::string("-");
    return absl::StrFormat("%.*f", decimals, Median(it->second));
  };
  for (const Row& row : rows) {
    std::string ratio = "-";
    if (ours.count(row.key) && poller.count(row.key)) {
      double p = Median(poller[row.key]);
      if (p != 0) ratio = absl::StrFormat("%.2f", Median(ours[row.key]) / p);
    }
    std::printf("%-40s %12s %12s %8s  %s\n", row.label,
                cell(ours, row.key, row.decimals).c_str(),
                cell(poller, row.key, row.decimals).c_str(), ratio.c_str(),
                row.target);
  }
  if (absl::GetFlag(FLAGS_json)) {
    std::string json = absl::StrCat("{\"runs\":", runs, ",\"ours\":{");
    for (auto* m : {&ours, &poller}) {
      if (m == &poller) json += "},\"poller\":{";
      bool first = true;
      for (auto& [k, v] : *m) {
        absl::StrAppend(&json, first ? "" : ",", "\"", k,
                        "\":", absl::StrFormat("%.3f", Median(v)));
        first = false;
      }
    }
    json += "}}";
    std::printf("%s\n", json.c_str());
  }
  (void)rest;
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) { return timingwheel::bench::Main(argc, argv); }
