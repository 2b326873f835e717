// Copyright 2026 The timingwheel Authors.
//
// Several schedulers on one store: fair shares, exactly one SUCCESS per
// task, and takeover from a scheduler process that stops renewing (really
// stopped with SIGSTOP), whose writes after waking change nothing.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"

extern char** environ;

namespace timingwheel {
namespace {

using durable_test::Reaper;
using durable_test::Recorder;
using durable_test::WaitFor;
using durable_testing::ExecSql;
using durable_testing::LeaseMatch;
using durable_testing::QueryInt;
using durable_testing::TaskMatch;
using durable_testing::TestDatabase;

class MultiSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  DurableOptions Options(const std::string& node, Recorder& recorder) {
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.node_id = node;
    options.handler = recorder.Handler();
    options.lease_ttl = absl::Seconds(1);
    options.slot_count = 64;
    return options;
  }

  // The integer `sql` returns, or -1 on error (before the schema exists).
  int64_t Query(const std::string& sql) {
    auto n = QueryInt(db_->conninfo(), sql);
    return n.ok() ? *n : -1;
  }

  durable_testing::StoreInspector Store() const {
    return durable_testing::StoreInspector(db_->conninfo());
  }

  // The value, or -1 on error (before the schema exists).
  static int64_t OrMinusOne(const absl::StatusOr<int64_t>& n) {
    return n.ok() ? *n : -1;
  }
  int64_t CountTasks(const TaskMatch& match) {
    return OrMinusOne(Store().CountTasks(match));
  }
  int64_t CountSlots(const LeaseMatch& match) {
    return OrMinusOne(Store().CountSlots(match));
  }

  std::unique_ptr<TestDatabase> db_;
};

TEST_F(MultiSchedulerTest, TwoSchedulersShareSlotsAndRunEachTaskOnce) {
  Recorder ra, rb;
  auto a = DurableScheduler::Create(Options("node-a", ra));
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = DurableScheduler::Create(Options("node-b", rb));
  ASSERT_TRUE(b.ok()) << b.status();
  // node-a releases half at its next renewal; node-b takes it.
  ASSERT_TRUE(WaitFor([&] {
    return (*a)->Metrics().slots_owned == 32 &&
           (*b)->Metrics().slots_owned == 32;
  }));
  constexpr int kTasks = 200;
  for (int i = 0; i < kTasks; ++i) {
    DurableScheduler& via = i % 2 == 0 ? **a : **b;
    ASSERT_TRUE(via.Schedule(absl::StrCat("t", i), absl::Milliseconds(i * 5),
                             absl::StrCat("p", i))
                    .ok());
  }
  ASSERT_TRUE(WaitFor([&] {
    return CountTasks(TaskMatch().State(TaskState::kSuccess)) == kTasks;
  }));
  std::map<std::string, int> runs = ra.CountById();
  for (const auto& [id, n] : rb.CountById()) runs[id] += n;
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id;
  EXPECT_GT(ra.size(), 0u);
  EXPECT_GT(rb.size(), 0u);
  auto tasks = Store().SummarizeTasks();
  EXPECT_EQ(tasks.ok() ? tasks->max_attempt : -1, 1);
  // Shutdown hands slots over at once, not after the TTL.
  (*a)->Shutdown();
  // Released in the database before Shutdown() returned.
  EXPECT_EQ(CountSlots(LeaseMatch().Owner("node-a")), 0);
  auto registered = Store().HasNode("node-a");
  EXPECT_EQ(registered.ok() ? int{*registered} : -1, 0);
  ASSERT_TRUE(WaitFor([&] { return (*b)->Metrics().slots_owned == 64; },
                      absl::Milliseconds(900)));
}

TEST_F(MultiSchedulerTest, StalledSchedulerIsTakenOverAndFencedOut) {
  ASSERT_TRUE(
      ExecSql(db_->conninfo(),
              "CREATE TABLE test_runs (task_id bytea, node text, attempt int)")
          .ok());
  // Process A owns every slot.
  std::string conninfo = db_->conninfo();
  std::string node_a = "stalled-a", ttl = "1000";
  std::string binary = "tests/durable/scheduler_process";
  char* argv[] = {binary.data(), conninfo.data(), node_a.data(), ttl.data(),
                  nullptr};
  pid_t a = 0;
  ASSERT_EQ(posix_spawn(&a, binary.c_str(), nullptr, nullptr, argv, environ),
            0);
  Reaper reaper{a};
  ASSERT_GT(a, 0);
  ASSERT_TRUE(WaitFor(
      [&] { return CountSlots(LeaseMatch().Owner("stalled-a")) == 64; }));

  // Tasks scheduled by a plain client reach A by notification: SCHEDULED.
  PGconn* conn = PQconnectdb(conninfo.c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  constexpr int kTasks = 50;
  std::vector<ScheduleRequest> batch(kTasks);
  for (int i = 0; i < kTasks; ++i) {
    batch[i].id = absl::StrCat("job-", i);
    batch[i].payload = "p";
    batch[i].delay = absl::Milliseconds(1500);
  }
  PQclear(PQexec(conn, "BEGIN"));
  ASSERT_TRUE(ScheduleInTransaction(conn, batch, 64).ok());
  PQclear(PQexec(conn, "COMMIT"));
  PQfinish(conn);
  ASSERT_TRUE(WaitFor([&] {
    return CountTasks(TaskMatch().State(TaskState::kScheduled)) == kTasks;
  }));

  // A stalls (a GC pause, a VM migration): it stops renewing.
  ASSERT_GT(a, 0);
  ASSERT_EQ(kill(a, SIGSTOP), 0);
  const absl::Time stalled_at = absl::Now();
  Recorder rb;
  auto b = DurableScheduler::Create(Options("taker-b", rb));
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(WaitFor([&] { return (*b)->Metrics().slots_owned == 64; }));
  // Within one TTL plus a renewal round (a third of it), with margin.
  EXPECT_LT(absl::Now() - stalled_at, absl::Milliseconds(2500));
  auto leases = Store().SummarizeLeases();
  EXPECT_EQ(leases.ok() ? leases->min_epoch : -1, 2);
  ASSERT_TRUE(WaitFor([&] {
    return CountTasks(TaskMatch().State(TaskState::kSuccess)) == kTasks;
  }));

  // A wakes up: its wheel fires its stale copies of the tasks, its renewal
  // fails; its writes change nothing. It rejoins and takes a fair share.
  ASSERT_EQ(kill(a, SIGCONT), 0);
  ASSERT_TRUE(
      WaitFor([&] { return CountSlots(LeaseMatch().Owner("stalled-a")) > 0; }));
  EXPECT_EQ(Query("SELECT count(*) FROM test_runs"), 0);
  EXPECT_EQ(CountTasks(TaskMatch().State(TaskState::kSuccess).Attempt(1)),
            kTasks);
  auto runs = rb.CountById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id;

  // A shuts down cleanly on SIGTERM and hands its slots back.
  ASSERT_EQ(kill(a, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(a, &status, 0), a);
  reaper.pid = 0;  // Reaped.
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_TRUE(WaitFor([&] { return (*b)->Metrics().slots_owned == 64; }));
}

TEST_F(MultiSchedulerTest, KilledSchedulersRunningTaskIsRetriedByTheNextOwner) {
  ASSERT_TRUE(
      ExecSql(db_->conninfo(),
              "CREATE TABLE test_runs (task_id bytea, node text, attempt int)")
          .ok());
  std::string conninfo = db_->conninfo();
  std::string node_a = "crashing-a", ttl = "1000";
  std::string binary = "tests/durable/scheduler_process";
  char* argv[] = {binary.data(), conninfo.data(), node_a.data(), ttl.data(),
                  nullptr};
  pid_t a = 0;
  ASSERT_EQ(posix_spawn(&a, binary.c_str(), nullptr, nullptr, argv, environ),
            0);
  Reaper reaper{a};
  ASSERT_GT(a, 0);
  ASSERT_TRUE(WaitFor(
      [&] { return CountSlots(LeaseMatch().Owner("crashing-a")) == 64; }));
  // A row left RUNNING by A (its handler was mid-flight when it crashed).
  durable_testing::InsertedTask mid_flight;
  mid_flight.id = "mid-flight";
  mid_flight.slot = 0;
  mid_flight.state = TaskState::kRunning;
  mid_flight.epoch_of_lease = true;
  mid_flight.attempt = 1;
  ASSERT_TRUE(Store().InsertTask(mid_flight).ok());
  ASSERT_GT(a, 0);
  ASSERT_EQ(kill(a, SIGKILL), 0);
  ASSERT_EQ(waitpid(a, nullptr, 0), a);
  reaper.pid = 0;  // Reaped.
  Recorder rb;
  auto b = DurableScheduler::Create(Options("next-b", rb));
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(WaitFor([&] { return rb.size() == 1; }));
  EXPECT_EQ(rb.calls()[0].task.id, "mid-flight");
  EXPECT_EQ(rb.calls()[0].task.attempt, 2);  // At least once, new attempt.
  ASSERT_TRUE(WaitFor(
      [&] { return CountTasks(TaskMatch().State(TaskState::kSuccess)) == 1; }));
}

}  // namespace
}  // namespace timingwheel
