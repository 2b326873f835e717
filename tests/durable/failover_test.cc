// Copyright 2026 The timingwheel Authors.
//
// Database failover under two schedulers: the primary of the pair
// `.ci/with-postgres` provides (synchronous streaming standby, see
// `durable/testing/postgres_fixture.h`) is killed with SIGKILL while tasks
// fire, the standby is promoted, and the schedulers, connected with the
// multi-host connection string (target_session_attrs=read-write), carry on
// against the new primary. Checked afterwards, on the new primary's table:
//
//   * both schedulers reconnected by themselves (`reconnects` > 0);
//   * every task reached SUCCESS and its handler ran at least once: the 300
//     scheduled before the kill, and every task a producer thread got
//     acknowledged (Schedule() returned OK) while the primary died, during
//     the outage and after the promotion (its inserts wake the owners'
//     loads, so loads are in flight at the kill); an unacknowledged one is
//     SUCCESS or absent, never stuck;
//   * no handler call started before its task's due time, on the database's
//     clock (each call inserts a row stamped with `clock_timestamp()`);
//   * a task whose handler ran twice did so only in the documented window:
//     at most two calls, the first started before the kill (its SUCCESS was
//     in flight), the second after it;
//   * the gap (kill -> first SUCCESS committed after the promotion) is
//     printed.
//
// Holds the pair's lock for its whole run (`FailoverPair`), so runs of it
// never fault the pair under each other; the shared server is not touched.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::WaitFor;
using durable_testing::ExecSql;
using durable_testing::FailoverPair;
using durable_testing::QueryInt;
using durable_testing::TaskMatch;

constexpr int kTasks = 300;
constexpr int kSlots = 64;
constexpr absl::Duration kFirstDue = absl::Milliseconds(1500);
constexpr absl::Duration kSpread = absl::Seconds(5);  // Due over ~5 s.
constexpr absl::Duration kLeaseTtl = absl::Seconds(3);
constexpr int kRunsBeforeKill = kTasks / 4;
// The producer's tasks acknowledged after the promotion before it stops.
constexpr int kAckedAfterPromotion = 20;

// One handler call, as the handler saw it.
struct Call {
  std::string id;
  std::string node;
  int attempt = 0;
  absl::Time due;  // This attempt's due time (database clock).
  absl::Time at;   // When the call started (this process's wall clock).
};

// The handler of both schedulers: records each call in memory and inserts a
// row per call into test_runs, stamped by the database. Each call has a
// number of its own (the primary key), so an insert retried after a lost
// reply cannot count one call twice. Thread-safe.
class Runs {
 public:
  explicit Runs(std::string conninfo) : conninfo_(std::move(conninfo)) {}

  // The handler of the scheduler `node`, with a connection of its own (so
  // that one scheduler's handler waiting out the outage does not hold up the
  // other's). Call before the schedulers start.
  DurableHandler Handler(const std::string& node) {
    NodeConn* conn =
        conns_.emplace(node, std::make_unique<NodeConn>()).first->second.get();
    return [this, node, conn](const DurableTask& task) {
      int64_t call_id;
      {
        std::lock_guard<std::mutex> lock(mu_);
        call_id = static_cast<int64_t>(calls_.size());
        calls_.push_back({task.id, node, task.attempt, task.due, absl::Now()});
      }
      return Insert(conn, node, call_id, task);
    };
  }

  std::vector<Call> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.size();
  }

 private:
  // Retries for up to 30 s, reconnecting (to whichever server accepts
  // writes) between tries: the outage lasts until the promotion.
  struct NodeConn {
    ~NodeConn() { PQfinish(conn); }
    std::mutex mu;
    PGconn* conn = nullptr;  // Under mu.
  };

  absl::Status Insert(NodeConn* node_conn, const std::string& node,
                      int64_t call_id, const DurableTask& task) {
    std::lock_guard<std::mutex> lock(node_conn->mu);
    PGconn*& conn = node_conn->conn;
    if (conn == nullptr) conn = PQconnectdb(conninfo_.c_str());
    const std::string call = absl::StrCat(call_id);
    const std::string attempt = absl::StrCat(task.attempt);
    const std::string due = absl::StrCat(absl::ToUnixMicros(task.due));
    const char* values[] = {call.c_str(), task.id.data(), node.c_str(),
                            attempt.c_str(), due.c_str()};
    const int lengths[] = {0, static_cast<int>(task.id.size()), 0, 0, 0};
    const int formats[] = {0, 1, 0, 0, 0};
    for (int i = 0; i < 300; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (PQstatus(conn) != CONNECTION_OK) PQreset(conn);
      PGresult* r = PQexecParams(
          conn,
          "INSERT INTO test_runs (call_id, task_id, node, attempt, due_us) "
          "VALUES ($1::bigint, $2::bytea, $3, $4::int, $5::bigint) "
          "ON CONFLICT (call_id) DO NOTHING",
          5, nullptr, values, lengths, formats, 0);
      const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
      if (ok) return absl::OkStatus();
    }
    return absl::UnavailableError("test_runs insert failed for 30 s");
  }

  const std::string conninfo_;
  std::mutex mu_;
  std::vector<Call> calls_;  // Under mu_.
  // Filled before the schedulers start, read-only afterwards.
  std::map<std::string, std::unique_ptr<NodeConn>> conns_;
};

std::string MetricsLine(const char* name, const DurableMetrics& m) {
  return absl::StrCat(
      name, ": loaded=", m.loaded, " attempts=", m.attempts,
      " succeeded=", m.succeeded, " retried=", m.retried, " failed=", m.failed,
      " dropped=", m.dropped, " abandoned=", m.abandoned,
      " not_due=", m.not_due, " db_errors=", m.db_errors,
      " reconnects=", m.reconnects, " wheel_pending=", m.wheel_pending,
      " waiting=", m.waiting, " in_flight=", m.in_flight,
      " slots_owned=", m.slots_owned, " slots_acquired=", m.slots_acquired,
      " slots_lost=", m.slots_lost);
}

// Rows of `sql` as text, one line per row, columns separated by spaces.
std::string Rows(const std::string& conninfo, const std::string& sql) {
  std::string out;
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    out = absl::StrCat("(cannot connect: ", PQerrorMessage(conn), ")");
  } else {
    PGresult* r = PQexec(conn, sql.c_str());
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      out = absl::StrCat("(", PQresultErrorMessage(r), ")");
    } else {
      for (int i = 0; i < PQntuples(r); ++i) {
        for (int j = 0; j < PQnfields(r); ++j) {
          absl::StrAppend(&out, j > 0 ? " " : "  ", PQfname(r, j), "=",
                          PQgetvalue(r, i, j));
        }
        out += "\n";
      }
    }
    PQclear(r);
  }
  PQfinish(conn);
  return out;
}

// One row of test_runs: a handler call as the database stamped it.
struct DbRun {
  std::string id;
  int attempt = 0;
  int64_t at_us = 0;
};

// The rows of test_runs; `ok` false on error.
std::vector<DbRun> LoadRuns(const std::string& conninfo, bool* ok) {
  std::vector<DbRun> out;
  *ok = false;
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* r = PQexec(conn,
                         "SELECT convert_from(task_id, 'UTF8'), attempt, at_us "
                         "FROM test_runs");
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
      *ok = true;
      for (int i = 0; i < PQntuples(r); ++i) {
        out.push_back({PQgetvalue(r, i, 0), std::atoi(PQgetvalue(r, i, 1)),
                       std::strtoll(PQgetvalue(r, i, 2), nullptr, 10)});
      }
    }
    PQclear(r);
  }
  PQfinish(conn);
  return out;
}

TEST(FailoverTest, KilledPrimaryPromotedStandbyNothingLostNothingEarly) {
  auto pair = FailoverPair::Acquire();
  ASSERT_TRUE(pair.ok()) << pair.status();
  ASSERT_TRUE((*pair)->Reset().ok()) << "failover-reset failed";
  const std::string conninfo = (*pair)->conninfo();
  auto query = [&](const std::string& sql) -> int64_t {
    absl::StatusOr<int64_t> n = QueryInt(conninfo, sql);
    return n.ok() ? *n : -1;
  };
  ASSERT_TRUE(ExecSql(conninfo,
                      "CREATE TABLE test_runs (call_id bigint PRIMARY KEY, "
                      "task_id bytea, node text, attempt int, due_us bigint, "
                      "at_us bigint DEFAULT "
                      "(extract(epoch FROM clock_timestamp()) * 1000000)"
                      "::bigint)")
                  .ok());

  Runs runs(conninfo);
  auto make = [&](const std::string& node) {
    DurableOptions options;
    options.conninfo = conninfo;
    options.node_id = node;
    options.slot_count = kSlots;
    options.lease_ttl = kLeaseTtl;
    options.handler = runs.Handler(node);
    return DurableScheduler::Create(options);
  };
  auto s1 = make("failover-1");
  ASSERT_TRUE(s1.ok()) << s1.status();
  auto s2 = make("failover-2");
  ASSERT_TRUE(s2.ok()) << s2.status();
  ASSERT_TRUE(WaitFor([&] {
    return (*s1)->Metrics().slots_owned == kSlots / 2 &&
           (*s2)->Metrics().slots_owned == kSlots / 2;
  })) << "the two schedulers did not share the slots";

  std::vector<ScheduleRequest> requests;
  for (int i = 0; i < kTasks; ++i) {
    ScheduleRequest request;
    request.id = absl::StrCat("task-", i);
    request.payload = "p";
    request.delay = kFirstDue + kSpread * i / kTasks;
    requests.push_back(std::move(request));
  }
  ASSERT_TRUE((*s1)->ScheduleBatch(requests).ok());
  // The due times as scheduled (a retry would move a row's due_us).
  const durable_testing::StoreInspector store(conninfo);
  const auto scheduled_due = store.DueTimes();
  ASSERT_TRUE(scheduled_due.ok()) << scheduled_due.status();

  // A producer: one task at a time, due 300 ms on, through either
  // scheduler, from just before the kill until kAckedAfterPromotion more
  // were acknowledged after the promotion (or 60 s). The 2 ms between two
  // calls only paces the workload.
  std::mutex producer_mu;
  std::vector<std::string> acked, refused;  // Under producer_mu.
  std::atomic<bool> is_promoted{false};
  std::thread producer([&] {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    int after_promotion = 0;
    for (int i = 0;
         after_promotion < kAckedAfterPromotion && absl::Now() < deadline;
         ++i) {
      const bool promoted_before = is_promoted.load();
      const std::string id = absl::StrCat("late-", i);
      DurableScheduler* s = (i % 2 == 0 ? *s1 : *s2).get();
      const absl::Status status = s->Schedule(id, absl::Milliseconds(300), "p");
      {
        std::lock_guard<std::mutex> lock(producer_mu);
        (status.ok() ? acked : refused).push_back(id);
      }
      if (status.ok() && promoted_before) ++after_promotion;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });

  // The kill, while tasks are firing.
  const bool firing = WaitFor([&] { return runs.size() >= kRunsBeforeKill; });
  const absl::Time kill_start = absl::Now();
  const absl::Status killed_status = (*pair)->KillPrimary();
  const absl::Time killed = absl::Now();
  const absl::Status promoted_status = (*pair)->Promote();
  const absl::Time promoted = absl::Now();
  is_promoted = true;
  producer.join();
  ASSERT_TRUE(firing) << "only " << runs.size()
                      << " handler calls before the kill";
  ASSERT_TRUE(killed_status.ok()) << killed_status;
  ASSERT_TRUE(promoted_status.ok()) << promoted_status;
  std::vector<std::string> acked_ids, refused_ids;
  {
    std::lock_guard<std::mutex> lock(producer_mu);
    acked_ids = acked;
    refused_ids = refused;
  }
  const int expected = kTasks + static_cast<int>(acked_ids.size());

  auto count = [&](const durable_testing::TaskMatch& match) -> int64_t {
    absl::StatusOr<int64_t> n = store.CountTasks(match);
    return n.ok() ? *n : -1;
  };
  auto succeeded = [&] {
    return count(TaskMatch().State(TaskState::kSuccess));
  };
  auto not_succeeded = [&] {
    return count(TaskMatch().NotState(TaskState::kSuccess));
  };
  // The count in each state, and the first 40 tasks not SUCCESS (by due
  // time) with their slot's lease.
  auto states = [&] {
    std::string out;
    for (TaskState s :
         {TaskState::kPending, TaskState::kScheduled, TaskState::kRunning,
          TaskState::kSuccess, TaskState::kFailed}) {
      const int64_t n = count(TaskMatch().State(s));
      if (n != 0)
        absl::StrAppend(&out, "  state=", TaskStateName(s), " count=", n, "\n");
    }
    return out;
  };
  auto unfinished = [&] {
    auto tasks = store.Tasks(TaskMatch().NotState(TaskState::kSuccess),
                             /*by_due=*/true);
    if (!tasks.ok()) return absl::StrCat("(", tasks.status().ToString(), ")");
    std::string out;
    for (size_t i = 0; i < tasks->size() && i < 40; ++i) {
      const durable_testing::TaskRow& t = (*tasks)[i];
      absl::StrAppend(&out, "  id=", t.id, " slot=", t.slot,
                      " state=", TaskStateName(t.state), " attempt=", t.attempt,
                      " version=", t.version, " epoch=", t.epoch,
                      " owner=", t.owner.value_or(""),
                      " lease_epoch=", t.lease_epoch,
                      " due_in_us=", t.due_us - t.now_us, "\n");
    }
    return out;
  };
  const bool all_done =
      WaitFor([&] { return succeeded() >= expected && not_succeeded() == 0; },
              absl::Seconds(60));
  const DurableMetrics m1 = (*s1)->Metrics();
  const DurableMetrics m2 = (*s2)->Metrics();
  const std::string metrics = absl::StrCat(MetricsLine("failover-1", m1), "\n",
                                           MetricsLine("failover-2", m2));
  EXPECT_TRUE(all_done)
      << succeeded() << " SUCCESS (" << kTasks << " + " << acked_ids.size()
      << " acknowledged by the producer, " << refused_ids.size()
      << " refused), " << not_succeeded()
      << " rows not SUCCESS, 60 s after the promotion. States:\n"
      << states() << "Tasks not SUCCESS (with their slot's lease):\n"
      << unfinished() << metrics;
  EXPECT_GT(m1.reconnects, 0) << metrics;
  EXPECT_GT(m2.reconnects, 0) << metrics;

  // Every task ran at least once; a second run only across the kill.
  std::map<std::string, std::vector<Call>> by_id;
  for (const Call& call : runs.calls()) by_id[call.id].push_back(call);
  std::vector<std::string> must_run = acked_ids;
  for (int i = 0; i < kTasks; ++i) must_run.push_back(absl::StrCat("task-", i));
  for (const std::string& id : must_run) {
    EXPECT_GE(by_id[id].size(), 1u) << id << " never ran";
  }
  int twice = 0;
  for (const auto& [id, calls] : by_id) {
    if (calls.size() < 2) continue;
    ++twice;
    std::string detail;
    for (const Call& c : calls) {
      absl::StrAppend(&detail, " [", c.node, " attempt ", c.attempt, " at kill",
                      c.at >= kill_start ? "+" : "",
                      absl::FormatDuration(c.at - kill_start), "]");
    }
    std::printf("ran twice: %s%s\n", id.c_str(), detail.c_str());
    EXPECT_EQ(calls.size(), 2u) << id << detail;
    EXPECT_LT(calls.front().at, killed)
        << id << ": a second run without a kill in between:" << detail;
    EXPECT_GT(calls.back().at, kill_start)
        << id << ": both runs before the kill:" << detail;
  }

  // Never early, on the database's clock: the handler's row is stamped
  // when it reaches the database (after the promotion for a call made
  // during the outage: later, never earlier, than the call). Against the
  // due times as scheduled (test_due) and the attempt's own (due_us).
  bool runs_read = false;
  const std::vector<DbRun> db_runs = LoadRuns(conninfo, &runs_read);
  int64_t early = runs_read ? 0 : -1;
  std::string early_rows;
  for (const DbRun& r : db_runs) {
    auto due = scheduled_due->find(r.id);
    if (due == scheduled_due->end() || r.at_us >= due->second) continue;
    if (early++ < 20) {
      absl::StrAppend(&early_rows, "  id=", r.id, " attempt=", r.attempt,
                      " early_by_minus_us=", r.at_us - due->second, "\n");
    }
  }
  EXPECT_EQ(early, 0) << early_rows;
  EXPECT_EQ(query("SELECT count(*) FROM test_runs WHERE at_us < due_us"), 0)
      << Rows(conninfo,
              "SELECT convert_from(task_id, 'UTF8') AS id, attempt, at_us - "
              "due_us AS early_by_minus_us FROM test_runs WHERE at_us < "
              "due_us LIMIT 20");
  // ... and on this process's wall clock at the call (the same machine's
  // clock as the servers').
  for (const auto& [id, calls] : by_id) {
    for (const Call& c : calls) {
      EXPECT_GE(c.at, c.due) << id << " attempt " << c.attempt << " early by "
                             << absl::FormatDuration(c.due - c.at);
    }
  }
  // Every call reached test_runs, and no row was left by a call not made.
  EXPECT_EQ(query("SELECT count(*) FROM test_runs"),
            static_cast<int64_t>(runs.size()));

  // The gap: kill -> first SUCCESS committed after the promotion.
  const int64_t kill_us = absl::ToUnixMicros(kill_start);
  const auto after_promotion =
      store.SummarizeTasks(TaskMatch()
                               .State(TaskState::kSuccess)
                               .FinishedAfter(absl::ToUnixMicros(promoted)));
  const int64_t first_success_us =
      after_promotion.ok() ? after_promotion->min_finished_us : -1;
  std::optional<int64_t> latest;  // max(at - due) of the tasks due after.
  for (const DbRun& r : db_runs) {
    auto due = scheduled_due->find(r.id);
    if (due == scheduled_due->end() || due->second < kill_us) continue;
    latest =
        std::max(latest.value_or(r.at_us - due->second), r.at_us - due->second);
  }
  const int64_t late_max_us = runs_read ? latest.value_or(0) : -1;
  EXPECT_GT(first_success_us, 0) << "no SUCCESS after the promotion";
  std::printf(
      "failover: kill -9 of the primary took %.0f ms, promotion %.0f ms; "
      "first SUCCESS %.0f ms after the kill (gap); tasks due after the kill "
      "ran at most %.0f ms late; %lld handler calls for %d tasks (%d + %d "
      "acknowledged by the producer, %d refused during the outage), %d ran "
      "twice\n%s\n",
      absl::ToDoubleMilliseconds(killed - kill_start),
      absl::ToDoubleMilliseconds(promoted - killed),
      (first_success_us - kill_us) / 1000.0, late_max_us / 1000.0,
      static_cast<long long>(runs.size()), expected, kTasks,
      static_cast<int>(acked_ids.size()), static_cast<int>(refused_ids.size()),
      twice, metrics.c_str());

  (*s1)->Shutdown();
  (*s2)->Shutdown();
}

}  // namespace
}  // namespace timingwheel
