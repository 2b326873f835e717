// Copyright 2026 The timingwheel Authors.
//
// durable_perf: //durable's DurableScheduler side by side with a polling
// scheduler of the kind River, db-scheduler and Quartz use
// (benchmarks/baselines/polling_scheduler.h), on a PostgreSQL this binary
// starts itself (through .ci/with-postgres: Unix socket only, stopped and
// deleted at exit, also on failure). Each run measures, for both:
//
//   * adds/s, one Schedule() per task (unbatched; also from --add_threads
//     threads at once) and 1000 per statement
//     (batched), 32-byte payloads, due in 48 h (beyond the horizon);
//   * bytes per stored timer: pg_total_relation_size(table) / rows after
//     those adds (heap + indexes + TOAST, 32-byte payloads);
//   * fires completed/s end to end: --fire_tasks due at one instant, from
//     the first handler call until every row is recorded done in the table
//     (handlers do nothing);
//   * lateness (mean, p99, max) of --lateness_tasks spread over
//     --lateness_span, stored in batches of --lateness_batch 0.5 s before
//     the first is due (within ours' horizon): handler call - due;
//   * lateness beside a burn-down: --burn_lateness_tasks spread over
//     --lateness_span while --fire_tasks due at the span's start run;
//   * updates in place: the share of the table's updates from the burn-down
//     on that were HOT (pg_stat_user_tables, read after the idle window);
//   * statements/s while idle: server-side, from pg_stat_database
//     (xact_commit + xact_rollback of the scheduler's own database: every
//     statement is one transaction), over --idle after --settle; the poller's
//     client-side count is printed beside it as a cross-check;
//   * takeover after kill -9: two scheduler processes (forked), the one
//     holding everything killed; ours: until the survivor holds every slot;
//     the poller: until the survivor has re-run the rows the dead one had
//     claimed. Both with lease/lock TTL --ttl.
//
// With --stored=N both tables hold N more rows (due in 48 h) before the
// burn-down: run it at 10000, 1000000 and 10000000 to see whether a plan
// grows with the table. Medians of --runs runs; ratios are ours / poller of
// the same medians.
//
//   bazel run -c opt //benchmarks:durable_perf             (~3 min, 3 runs)
//   bazel run -c opt //benchmarks:durable_perf -- --smoke  (CI, seconds)
//   bazel run -c opt //benchmarks:durable_perf -- --stored=1000000 --runs=1

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmarks/baselines/polling_scheduler.h"
#include "benchmarks/durable_perf_util.h"
#include "benchmarks/pg_bench_util.h"
#include "durable/durable_scheduler.h"
#include "libpq-fe.h"

ABSL_FLAG(int, runs, 3, "Repetitions; medians are reported.");
ABSL_FLAG(int, adds, 2000, "Unbatched adds per run.");
ABSL_FLAG(int, add_threads, 8,
          "Threads calling Schedule() at once for the threaded adds row.");
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
ABSL_FLAG(int64_t, stored, 0,
          "Rows stored (due in 48 h) before the burn-down and lateness "
          "phases, on top of the adds: the table size the fire statements "
          "run beside (10000, 1000000, 10000000).");
ABSL_FLAG(int, burn_lateness_tasks, 2000,
          "Tasks spread over --lateness_span while a burn-down of "
          "--fire_tasks due at the span's start runs beside them (0: "
          "skip).");
ABSL_FLAG(bool, attempt_history, true,
          "DurableOptions::attempt_history of ours (one tw_attempt row per "
          "outcome).");

namespace timingwheel {
namespace bench {
namespace {

// Adds, bytes, fire rate, lateness and idle statements, both
// implementations, in this process.
void MeasureInProcess(const std::string& admin, Sample* ours, Sample* poller) {
  auto ours_db = Must(BenchDatabase::Create(admin, "perf_ours"));
  auto poll_db = Must(BenchDatabase::Create(admin, "perf_poll"));
  Recorder ours_rec, poll_rec;
  // The lateness tasks of the phase beside a burn-down ("bl-" ids).
  Recorder ours_beside, poll_beside;

  DurableOptions o;
  o.conninfo = ours_db->conninfo();
  o.node_id = "bench-ours";
  o.max_in_flight = absl::GetFlag(FLAGS_max_in_flight);
  o.attempt_history = absl::GetFlag(FLAGS_attempt_history);
  o.handler = [&](const DurableTask& t) {
    ours_rec.Record(t.due);
    if (absl::StartsWith(t.id, "bl-")) ours_beside.Record(t.due);
    return absl::OkStatus();
  };
  auto sched = Must(DurableScheduler::Create(o));
  Must(PollingScheduler::CreateSchema(poll_db->conninfo()));
  PollingOptions po;
  po.conninfo = poll_db->conninfo();
  po.node_id = "bench-poller";
  po.interval = absl::GetFlag(FLAGS_poll_interval);
  po.handler = [&](const PolledTask& t) {
    poll_rec.Record(t.due);
    if (absl::StartsWith(t.id, "bl-")) poll_beside.Record(t.due);
  };
  auto poll = Must(PollingScheduler::Create(po));

  PGconn* admin_conn = Must(PgConnect(admin));
  PGconn* poll_conn = Must(PgConnect(poll_db->conninfo()));
  // Ours holds every slot before the measurement.
  const absl::Time limit = absl::Now() + absl::Seconds(30);
  while (sched->Metrics().slots_owned < o.slot_count) {
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
    // The same number of single adds from --add_threads threads at once.
    const int threads = absl::GetFlag(FLAGS_add_threads);
    auto threaded = [&](const std::function<void(int, int)>& add) {
      const absl::Time start = absl::Now();
      std::vector<std::thread> workers;
      for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
          for (int i = t; i < adds; i += threads) add(t, i);
        });
      }
      for (std::thread& w : workers) w.join();
      return adds / absl::ToDoubleSeconds(absl::Now() - start);
    };
    (*ours)["adds_threaded"] = threaded([&](int t, int i) {
      Must(sched->Schedule(absl::StrCat("m-", t, "-", i), absl::Hours(48),
                           kPayload));
    });
    (*poller)["adds_threaded"] = threaded([&](int t, int i) {
      Must(poll->Schedule(absl::StrCat("m-", t, "-", i),
                          absl::Now() + absl::Hours(48), kPayload));
    });
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
  {
    const StoreStatus table = OursStatus(ours_db->conninfo());
    int64_t rows = 0;
    for (int64_t n : table.counts) rows += n;
    (*ours)["bytes_per_timer"] =
        static_cast<double>(table.task_table_bytes) / rows;
  }
  (*poller)["bytes_per_timer"] =
      static_cast<double>(
          Int(poll_conn, "SELECT pg_total_relation_size('poll_timer')")) /
      Int(poll_conn, "SELECT count(*) FROM poll_timer");

  // The table size the next phases run beside.
  const int64_t stored = absl::GetFlag(FLAGS_stored);
  {
    const absl::Time due = absl::Now() + absl::Hours(48);
    std::vector<ScheduleRequest> batch;
    std::vector<PollingScheduler::Request> poll_batch;
    for (int64_t b = 0; b < stored; b += kBatch) {
      batch.clear();
      poll_batch.clear();
      for (int64_t i = b; i < std::min<int64_t>(stored, b + kBatch); ++i) {
        ScheduleRequest r;
        r.id = absl::StrCat("s-", i);
        r.payload = kPayload;
        r.due = due;
        batch.push_back(std::move(r));
        poll_batch.push_back({absl::StrCat("s-", i), due, kPayload});
      }
      Must(sched->ScheduleBatch(batch));
      Must(poll->ScheduleBatch(poll_batch));
    }
  }
  const StoreStatus before_fires = OursStatus(ours_db->conninfo());
  const int64_t upd0 = before_fires.task_updates;
  const int64_t hot0 = before_fires.task_hot_updates;
  const int64_t poll_upd0 = Updates(poll_conn, "poll_timer", "n_tup_upd");
  const int64_t poll_hot0 = Updates(poll_conn, "poll_timer", "n_tup_hot_upd");

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
    // Every outcome written (the scheduler counts them as they commit).
    (*ours)["fires_per_s"] = ours_rec.RateUntil(
        WaitUntilCount([&] { return sched->Metrics().succeeded; }, fire));
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

  // Lateness beside a burn-down: --fire_tasks due at the span's start and
  // the lateness tasks spread over the span, one implementation at a time.
  const int beside_n = absl::GetFlag(FLAGS_burn_lateness_tasks);
  auto beside =
      [&](Recorder* rec, Recorder* all,
          const std::function<void(const std::string&, absl::Time)>& add_one,
          const std::function<void()>& flush, Sample* out) {
        if (beside_n <= 0) return;
        rec->Reset();
        all->Reset();
        const absl::Time start = absl::Now() + absl::Milliseconds(1500);
        for (int i = 0; i < fire; ++i) add_one(absl::StrCat("bb-", i), start);
        for (int i = 0; i < beside_n; ++i) {
          add_one(absl::StrCat("bl-", i), start + span * i / beside_n);
        }
        flush();
        if (!all->WaitFor(fire + beside_n, span + absl::Seconds(120))) {
          Die(absl::DeadlineExceededError("lateness beside a burn-down"));
        }
        rec->Lateness(&(*out)["burn_late_mean_ms"], &(*out)["burn_late_p99_ms"],
                      &(*out)["burn_late_max_ms"]);
      };
  {
    std::vector<ScheduleRequest> batch;
    auto flush = [&] {
      if (!batch.empty()) Must(sched->ScheduleBatch(batch));
      batch.clear();
    };
    beside(
        &ours_beside, &ours_rec,
        [&](const std::string& id, absl::Time due) {
          ScheduleRequest r;
          r.id = id;
          r.payload = kPayload;
          r.due = due;
          batch.push_back(std::move(r));
          if (static_cast<int>(batch.size()) == kBatch) flush();
        },
        flush, ours);
  }
  {
    std::vector<PollingScheduler::Request> batch;
    auto flush = [&] {
      if (!batch.empty()) Must(poll->ScheduleBatch(batch));
      batch.clear();
    };
    beside(
        &poll_beside, &poll_rec,
        [&](const std::string& id, absl::Time due) {
          batch.push_back({id, due, kPayload});
          if (static_cast<int>(batch.size()) == kBatch) flush();
        },
        flush, poller);
  }

  // Idle: nothing due for 48 h; both at once.
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
  // Updates since the burn-down began, in place (HOT) or not: read after
  // the idle window, when the backends' statistics have been flushed.
  const StoreStatus after_idle = OursStatus(ours_db->conninfo());
  PGconn* poll_stats = Must(PgConnect(poll_db->conninfo()));
  auto hot_pct = [](int64_t hot, int64_t all) {
    return all > 0 ? 100.0 * static_cast<double>(hot) / all : 0.0;
  };
  (*ours)["hot_update_pct"] = hot_pct(after_idle.task_hot_updates - hot0,
                                      after_idle.task_updates - upd0);
  (*poller)["hot_update_pct"] =
      hot_pct(Updates(poll_stats, "poll_timer", "n_tup_hot_upd") - poll_hot0,
              Updates(poll_stats, "poll_timer", "n_tup_upd") - poll_upd0);
  PQfinish(poll_stats);
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
    absl::SetFlag(&FLAGS_burn_lateness_tasks, 100);
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
      {"adds_threaded", "adds/s, unbatched from 8 threads", 0,
       ">= 5x unbatched"},
      {"adds_batched", "adds/s, batched (1000)", 0, ">= 150,000"},
      {"fires_per_s", "fires completed/s, end to end", 0, ">= 50,000"},
      {"late_mean_ms", "lateness mean, ms", 2, ""},
      {"late_p99_ms", "lateness p99, ms", 2, "<= 5"},
      {"late_max_ms", "lateness max, ms", 2, "<= 10"},
      {"burn_late_p99_ms", "lateness p99 beside a burn-down, ms", 2, "<= 5"},
      {"burn_late_max_ms", "lateness max beside a burn-down, ms", 2, "<= 10"},
      {"hot_update_pct", "updates in place (HOT), %", 1, ">= 90"},
      {"idle_stmts_per_s", "idle statements/s (server)", 2, "<= 1"},
      {"idle_client_stmts_per_s", "idle statements/s (client count)", 2, ""},
      {"bytes_per_timer", "bytes per stored timer (32 B payload)", 0, "<= 200"},
      {"takeover_s", "takeover after kill -9, s", 2, "<= 15"},
  };
  std::printf(
      "durable_perf: medians of %d run(s); ours = DurableScheduler, poller = "
      "PollingScheduler (interval %s, batch %d); TTL %s; load average at "
      "the end %s; %lld rows stored beside the burn-down\n",
      runs, interval.c_str(), kBatch, ttl.c_str(), LoadAverage().c_str(),
      static_cast<long long>(absl::GetFlag(FLAGS_stored)));
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
