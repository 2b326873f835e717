// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler against a real PostgreSQL, one database per test:
// schedule/fire/cancel round trips, duplicates and bad input, retries with
// backoff and FAILED, backpressure, horizon loading, never early on the
// database's clock, scheduling inside the caller's transaction (reaching the
// owner by LISTEN/NOTIFY), and dropped connections.

#include "durable/durable_scheduler.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::Recorder;
using durable_test::WaitFor;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;
using ::timingwheel::testing::PoolExecutor;

class DurableSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  DurableOptions Options() {
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.handler = recorder_.Handler();
    options.lease_ttl = absl::Seconds(2);
    options.slot_count = 64;
    return options;
  }

  std::unique_ptr<DurableScheduler> Start(DurableOptions options) {
    auto scheduler = DurableScheduler::Create(std::move(options));
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    return scheduler.ok() ? *std::move(scheduler) : nullptr;
  }

  bool StateIs(DurableScheduler& s, const std::string& id, TaskState state) {
    auto info = s.Get(id);
    return info.ok() && info->state == state;
  }

  int64_t Count(const durable_testing::TaskMatch& match) {
    auto n = durable_testing::StoreInspector(db_->conninfo()).CountTasks(match);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }
  int64_t Count(TaskState state) {
    return Count(durable_testing::TaskMatch().State(state));
  }

  std::unique_ptr<TestDatabase> db_;
  Recorder recorder_;
};

TEST_F(DurableSchedulerTest, ScheduledTaskFiresOnceWithItsPayload) {
  auto s = Start(Options());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Metrics().slots_owned, 64);
  const absl::Time before = absl::Now();
  ASSERT_TRUE(s->Schedule("task-1", absl::Milliseconds(200), "payload").ok());
  auto info = s->Get("task-1");
  ASSERT_TRUE(info.ok());
  EXPECT_GE(info->due, before + absl::Milliseconds(200));
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "task-1", TaskState::kSuccess); }));
  auto calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.id, "task-1");
  EXPECT_EQ(calls[0].task.payload, "payload");
  EXPECT_EQ(calls[0].task.attempt, 1);
  EXPECT_EQ(calls[0].task.due, info->due);
  EXPECT_GE(calls[0].at, info->due);  // Never early (same host clock).
  EXPECT_EQ(s->Get("task-1")->attempt, 1);
  // The counter moves once the completing statement has returned.
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().succeeded == 1; }));
  DurableMetrics m = s->Metrics();
  EXPECT_EQ(m.succeeded, 1);
  EXPECT_EQ(m.attempts, 1);
  EXPECT_EQ(m.scheduled, 1);
}

TEST_F(DurableSchedulerTest, CancelledTaskNeverRuns) {
  auto s = Start(Options());
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("cancel-me", absl::Milliseconds(300), "x").ok());
  ASSERT_TRUE(s->Schedule("sentinel", absl::Milliseconds(600), "y").ok());
  auto cancelled = s->Cancel("cancel-me");
  ASSERT_TRUE(cancelled.ok());
  EXPECT_TRUE(*cancelled);
  EXPECT_TRUE(absl::IsNotFound(s->Get("cancel-me").status()));
  EXPECT_FALSE(*s->Cancel("cancel-me"));
  EXPECT_FALSE(*s->Cancel("never-scheduled"));
  // The later sentinel ran, so the cancelled one was due and did not run.
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "sentinel", TaskState::kSuccess); }));
  EXPECT_EQ(recorder_.CountById(),
            (std::map<std::string, int>{{"sentinel", 1}}));
  // A finished task cannot be cancelled.
  EXPECT_FALSE(*s->Cancel("sentinel"));
  // The id of a cancelled task can be used again.
  EXPECT_TRUE(s->Schedule("cancel-me", absl::Hours(2), "again").ok());
}

TEST_F(DurableSchedulerTest, DuplicatesAndBadInputAreAnsweredWithStatus) {
  DurableOptions options = Options();
  options.max_payload_bytes = 2 << 20;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("dup", absl::Hours(2), "same").ok());
  EXPECT_TRUE(s->Schedule("dup", absl::Hours(2), "same").ok());  // Retry.
  EXPECT_TRUE(
      absl::IsAlreadyExists(s->Schedule("dup", absl::Hours(2), "other")));
  const absl::Time due = absl::Now() + absl::Hours(3);
  ASSERT_TRUE(s->ScheduleAt("at", due, "p").ok());
  EXPECT_TRUE(s->ScheduleAt("at", due, "p").ok());
  EXPECT_TRUE(
      absl::IsAlreadyExists(s->ScheduleAt("at", due + absl::Seconds(1), "p")));

  EXPECT_TRUE(absl::IsInvalidArgument(s->Schedule("", absl::Seconds(1), "p")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      s->Schedule(std::string(2000, 'i'), absl::Seconds(1), "p")));
  EXPECT_TRUE(absl::IsInvalidArgument(s->Schedule("e", absl::Seconds(1), "")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      s->Schedule("big", absl::Seconds(1), std::string(3 << 20, 'p'))));
  EXPECT_TRUE(absl::IsInvalidArgument(
      s->ScheduleAt("old", absl::UnixEpoch() - absl::Hours(1), "p")));
  EXPECT_TRUE(
      absl::IsInvalidArgument(s->ScheduleAt("inf", absl::InfinitePast(), "p")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      s->ScheduleAt("y10k",
                    absl::FromCivil(absl::CivilSecond(10000, 1, 1, 0, 0, 0),
                                    absl::UTCTimeZone()),
                    "p")));
  // 1 MiB of NULs and quotes round-trips as a payload.
  std::string hostile(1 << 20, '\0');
  hostile.replace(0, 6, "'\\\"--;");
  ASSERT_TRUE(
      s->Schedule(std::string("nul\0id'", 7), absl::Milliseconds(1), hostile)
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  EXPECT_EQ(recorder_.calls()[0].task.id, std::string("nul\0id'", 7));
  EXPECT_EQ(recorder_.calls()[0].task.payload, hostile);

  // A batch with one bad request stores nothing.
  std::vector<ScheduleRequest> batch(3);
  batch[0].id = "b0";
  batch[0].payload = "p";
  batch[1].id = "b1";
  batch[1].payload = "p";
  batch[2].id = "dup";
  batch[2].payload = "conflict";
  EXPECT_TRUE(absl::IsAlreadyExists(s->ScheduleBatch(batch)));
  EXPECT_TRUE(absl::IsNotFound(s->Get("b0").status()));
  batch[2].id = "b2";
  EXPECT_TRUE(s->ScheduleBatch(batch).ok());
  EXPECT_EQ(Count(durable_testing::TaskMatch().Id("b0")) +
                Count(durable_testing::TaskMatch().Id("b1")) +
                Count(durable_testing::TaskMatch().Id("b2")),
            3);
}

TEST_F(DurableSchedulerTest, InvalidOptionsAndUnreachableDatabase) {
  DurableOptions options = Options();
  options.handler = nullptr;
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
  options = Options();
  options.slot_count = 0;
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
  options = Options();
  options.conninfo =
      "host=/nonexistent/dir dbname=x password=hunter2 connect_timeout=2";
  auto unreachable = DurableScheduler::Create(options);
  EXPECT_TRUE(absl::IsUnavailable(unreachable.status()))
      << unreachable.status();
  EXPECT_EQ(unreachable.status().ToString().find("hunter2"), std::string::npos);
  // A store created with 64 slots refuses a scheduler asking for 128, and a
  // newer schema is refused.
  ASSERT_NE(Start(Options()), nullptr);
  options = Options();
  options.slot_count = 128;
  EXPECT_TRUE(
      absl::IsFailedPrecondition(DurableScheduler::Create(options).status()));
  ASSERT_TRUE(durable_testing::StoreInspector(db_->conninfo())
                  .ForceSchemaVersion(99)
                  .ok());
  auto newer = DurableScheduler::Create(Options());
  EXPECT_TRUE(absl::IsFailedPrecondition(newer.status())) << newer.status();
}

TEST_F(DurableSchedulerTest, FailedAttemptsRetryWithBackoffThenFail) {
  DurableOptions options = Options();
  options.retry.max_attempts = 3;
  options.retry.initial_backoff = absl::Milliseconds(200);
  options.retry.multiplier = 2;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  recorder_.SetResult([](const DurableTask& task) -> absl::Status {
    if (task.id == "throws" && task.attempt == 1) {
      throw std::runtime_error("boom");
    }
    if (task.id == "throws") return absl::OkStatus();
    return absl::UnavailableError(absl::StrCat("attempt ", task.attempt));
  });
  ASSERT_TRUE(s->Schedule("always-fails", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(s->Schedule("throws", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "always-fails", TaskState::kFailed); }));
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "throws", TaskState::kSuccess); }));
  std::vector<absl::Time> at;
  for (const auto& call : recorder_.calls()) {
    if (call.task.id == "always-fails") {
      EXPECT_EQ(call.task.attempt, static_cast<int>(at.size()) + 1);
      at.push_back(call.at);
    }
  }
  ASSERT_EQ(at.size(), 3u);
  EXPECT_GE(at[1] - at[0], absl::Milliseconds(200));
  EXPECT_GE(at[2] - at[1], absl::Milliseconds(400));
  auto info = s->Get("always-fails");
  EXPECT_EQ(info->attempt, 3);
  EXPECT_NE(info->last_error.find("attempt 3"), std::string::npos)
      << info->last_error;
  EXPECT_EQ(s->Get("throws")->attempt, 2);
  EXPECT_EQ(recorder_.CountById()["throws"], 2);
  // The counters move once the completing statement has returned, a moment
  // after the rows above changed.
  ASSERT_TRUE(WaitFor([&] {
    DurableMetrics m = s->Metrics();
    return m.failed + m.succeeded == 2;
  }));
  DurableMetrics m = s->Metrics();
  EXPECT_EQ(m.failed, 1);
  EXPECT_EQ(m.retried, 3);  // Two of always-fails, one of throws.
  EXPECT_EQ(m.succeeded, 1);
}

TEST_F(DurableSchedulerTest, AtMostMaxInFlightHandlersRunTheRestWait) {
  PoolExecutor pool(4);
  DurableOptions options = Options();
  options.executor = &pool;
  options.max_in_flight = 2;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> running{0}, most{0};
  options.handler = [&](const DurableTask&) {
    int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(20), [&] { return release; });
    --running;
    return absl::OkStatus();
  };
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  std::vector<ScheduleRequest> batch(6);
  for (int i = 0; i < 6; ++i) {
    batch[i].id = absl::StrCat("bp-", i);
    batch[i].payload = "p";
  }
  ASSERT_TRUE(s->ScheduleBatch(batch).ok());
  ASSERT_TRUE(WaitFor(
      [&] { return s->Metrics().waiting == 4 && running.load() == 2; }));
  EXPECT_EQ(s->Metrics().in_flight, 2);
  EXPECT_EQ(Count(TaskState::kRunning), 2);
  EXPECT_EQ(Count(TaskState::kScheduled), 4);  // Waiting, nothing lost.
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(WaitFor([&] { return Count(TaskState::kSuccess) == 6; }));
  EXPECT_EQ(most.load(), 2);
  s->Shutdown();
}

TEST_F(DurableSchedulerTest, TaskBeyondTheHorizonIsLoadedLaterAndNeverEarly) {
  DurableOptions options = Options();
  options.horizon = absl::Seconds(1);  // Loads every 500 ms.
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  // Due in 3 horizons (as 3 h is with the default 1 h horizon).
  ASSERT_TRUE(s->Schedule("far", absl::Seconds(3), "p").ok());
  const absl::Time due = s->Get("far")->due;
  EXPECT_TRUE(StateIs(*s, "far", TaskState::kPending));
  EXPECT_EQ(s->Metrics().wheel_pending, 0);
  const int64_t loads_before = s->Metrics().loads;
  // It reaches the wheel once a load finds it within the horizon...
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "far", TaskState::kScheduled); }));
  const absl::Time loaded_at = absl::Now();
  EXPECT_GT(s->Metrics().loads, loads_before);
  EXPECT_LT(due - loaded_at, absl::Seconds(1) + absl::Milliseconds(100));
  EXPECT_EQ(recorder_.size(), 0u);
  // ...and fires then, not before its due time.
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  EXPECT_GE(recorder_.calls()[0].at, due);
  EXPECT_LT(recorder_.calls()[0].at - due, absl::Milliseconds(500));
}

TEST_F(DurableSchedulerTest, ProcessClockAheadOfTheDatabaseNeverFiresEarly) {
  testing::ManualClock clock;
  DurableOptions options = Options();
  options.timer_options.clock = &clock;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("early?", absl::Seconds(1), "p").ok());
  const absl::Time due = s->Get("early?")->due;
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().wheel_pending == 1; }));
  // The process clock jumps 10 s ahead: the wheel fires, the database says
  // "not due yet", and the task goes back into the wheel.
  clock.AdvanceBy(absl::Seconds(10));
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().not_due >= 1; }));
  EXPECT_EQ(recorder_.size(), 0u);
  EXPECT_TRUE(StateIs(*s, "early?", TaskState::kScheduled));
  // Time passes on the database; the process clock follows in steps.
  ASSERT_TRUE(WaitFor([&] {
    clock.AdvanceBy(absl::Milliseconds(100));
    return recorder_.size() == 1;
  }));
  EXPECT_GE(recorder_.calls()[0].at, due);
}

TEST_F(DurableSchedulerTest, ScheduleInTransactionCommitsWithTheCallersRows) {
  auto s = Start(Options());  // Horizon 1 h: loads every 30 min.
  ASSERT_NE(s, nullptr);
  PGconn* conn = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  auto exec = [&](const char* sql) {
    PGresult* r = PQexec(conn, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    return ok;
  };
  ASSERT_TRUE(exec("CREATE TABLE orders (id int)"));
  ScheduleRequest request;
  request.id = "order-1-expiry";
  request.payload = "order=1";
  request.delay = absl::Milliseconds(100);
  // Rolled back with the caller's row: never stored.
  ASSERT_TRUE(exec("BEGIN"));
  ASSERT_TRUE(exec("INSERT INTO orders VALUES (1)"));
  ASSERT_TRUE(ScheduleInTransaction(conn, {&request, 1}, 64).ok());
  ASSERT_TRUE(exec("ROLLBACK"));
  EXPECT_TRUE(absl::IsNotFound(s->Get("order-1-expiry").status()));
  // Committed: the owner hears of it by notification (its next load is 30
  // minutes away) and runs it.
  ASSERT_TRUE(exec("BEGIN"));
  ASSERT_TRUE(exec("INSERT INTO orders VALUES (1)"));
  ASSERT_TRUE(ScheduleInTransaction(conn, {&request, 1}, 64).ok());
  ScheduleRequest conflicting = request;
  conflicting.payload = "other";
  EXPECT_TRUE(absl::IsAlreadyExists(
      ScheduleInTransaction(conn, {&conflicting, 1}, 64)));
  ASSERT_TRUE(exec("COMMIT"));
  ASSERT_TRUE(
      WaitFor([&] { return recorder_.size() == 1; }, absl::Seconds(10)));
  EXPECT_EQ(recorder_.calls()[0].task.payload, "order=1");
  PQfinish(conn);
}

// Outside a transaction each task would commit on its own, which the name
// promises not to do: refused, nothing stored; in a failed transaction too.
TEST_F(DurableSchedulerTest, ScheduleInTransactionRefusesAConnWithoutOne) {
  auto s = Start(Options());
  ASSERT_NE(s, nullptr);
  PGconn* conn = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  ScheduleRequest request;
  request.id = "no-tx";
  request.payload = "p";
  absl::Status status = ScheduleInTransaction(conn, {&request, 1}, 64);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_NE(status.message().find("BEGIN"), absl::string_view::npos) << status;
  EXPECT_TRUE(absl::IsNotFound(s->Get("no-tx").status()));
  PQclear(PQexec(conn, "BEGIN"));
  PQclear(PQexec(conn, "SELECT 1/0"));
  status = ScheduleInTransaction(conn, {&request, 1}, 64);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  PQclear(PQexec(conn, "ROLLBACK"));
  PQfinish(conn);
}

TEST_F(DurableSchedulerTest, ConnectionsKilledUnderARunningScheduler) {
  auto s = Start(Options());
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("before", absl::Milliseconds(800), "p").ok());
  const std::string kill_all = absl::StrCat(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
      "WHERE datname = '",
      db_->name(), "' AND pid <> pg_backend_pid()");
  ASSERT_TRUE(QueryInt(db_->conninfo(), kill_all).ok());
  // The client connection reconnects; the maintenance one too.
  EXPECT_TRUE(s->Schedule("after", absl::Milliseconds(100), "p").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "before", TaskState::kSuccess); }));
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(*s, "after", TaskState::kSuccess); }));
  EXPECT_GE(s->Metrics().reconnects, 1);
  EXPECT_EQ(recorder_.CountById(),
            (std::map<std::string, int>{{"after", 1}, {"before", 1}}));

  // A caller's transaction whose connection drops before COMMIT stores
  // nothing.
  PGconn* conn = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  PQclear(PQexec(conn, "BEGIN"));
  ScheduleRequest request;
  request.id = "in-dropped-tx";
  request.payload = "p";
  ASSERT_TRUE(ScheduleInTransaction(conn, {&request, 1}, 64).ok());
  const std::string kill_conn = absl::StrCat(
      "SELECT count(pg_terminate_backend(", PQbackendPID(conn), "))");
  ASSERT_TRUE(QueryInt(db_->conninfo(), kill_conn).ok());
  PGresult* commit = PQexec(conn, "COMMIT");
  EXPECT_NE(PQresultStatus(commit), PGRES_COMMAND_OK);
  PQclear(commit);
  PQfinish(conn);
  EXPECT_TRUE(absl::IsNotFound(s->Get("in-dropped-tx").status()));
}

}  // namespace
}  // namespace timingwheel
