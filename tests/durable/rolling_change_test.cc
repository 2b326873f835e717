// Copyright 2026 The timingwheel Authors.
//
// A rolling change from today's engine to the fire by slot
// (DurableOptions::fire_by_slot) on one store: processes of both engines
// share the slots for a while, one is replaced by the other, and a process
// of today's engine is killed holding rows it claimed (SCHEDULED under its
// epoch) for a process of the new engine to take over. Every task runs
// once (the only second run allowed is the attempt of a killed process,
// at least once), none before its due time.

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
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

class RollingChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  DurableOptions Options(const std::string& node, Recorder& recorder,
                         bool by_slot) {
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.node_id = node;
    options.handler = recorder.Handler();
    options.lease_ttl = absl::Seconds(1);
    options.slot_count = 64;
    options.fire_by_slot = by_slot;
    return options;
  }

  std::unique_ptr<DurableScheduler> Start(const std::string& node,
                                          Recorder& recorder, bool by_slot) {
    auto scheduler = DurableScheduler::Create(Options(node, recorder, by_slot));
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    if (!scheduler.ok()) return nullptr;
    EXPECT_EQ((*scheduler)->Metrics().fire_by_slot, by_slot ? 1 : 0);
    return *std::move(scheduler);
  }

  int64_t Query(const std::string& sql) {
    auto n = QueryInt(db_->conninfo(), sql);
    return n.ok() ? *n : -1;
  }

  durable_testing::StoreInspector Store() const {
    return durable_testing::StoreInspector(db_->conninfo());
  }

  int64_t Count(const TaskMatch& match) {
    auto n = Store().CountTasks(match);
    return n.ok() ? *n : -1;
  }

  // Every call of `recorders` ran at or after its task's due time.
  static void ExpectNeverEarly(std::vector<Recorder*> recorders) {
    for (Recorder* r : recorders) {
      for (const Recorder::Call& call : r->calls()) {
        EXPECT_GE(call.at, call.task.due) << call.task.id << " ran early";
      }
    }
  }

  std::unique_ptr<TestDatabase> db_;
};

// Today's engine (A) and the fire by slot (B) share the slots while tasks
// of mixed priorities come due; A is replaced by a process of the new
// engine (A2) in the middle, as a rolling change does: each task runs once.
TEST_F(RollingChangeTest, BothEnginesShareTheSlotsAndEachTaskRunsOnce) {
  Recorder ra, rb, ra2;
  auto a = Start("node-a", ra, /*by_slot=*/false);
  auto b = Start("node-b", rb, /*by_slot=*/true);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(WaitFor([&] {
    return a->Metrics().slots_owned == 32 && b->Metrics().slots_owned == 32;
  }));
  constexpr int kTasks = 300;
  const auto schedule = [&](DurableScheduler& via, int i) {
    ScheduleRequest r;
    r.id = absl::StrCat("t", i);
    r.payload = absl::StrCat("p", i);
    r.delay = absl::Milliseconds((i % 100) * 15);
    r.priority = i % 3 - 1;
    return via.ScheduleBatch({r});
  };
  for (int i = 0; i < kTasks / 2; ++i) {
    ASSERT_TRUE(schedule(i % 2 == 0 ? *a : *b, i).ok()) << i;
  }
  // The change: A hands its slots over (B takes them), A2 starts and
  // takes its share back, while the second half is scheduled.
  a->Shutdown();
  EXPECT_EQ(Store().CountSlots(LeaseMatch().Owner("node-a")).value_or(-1), 0);
  auto a2 = Start("node-a2", ra2, /*by_slot=*/true);
  ASSERT_NE(a2, nullptr);
  for (int i = kTasks / 2; i < kTasks; ++i) {
    ASSERT_TRUE(schedule(i % 2 == 0 ? *a2 : *b, i).ok()) << i;
  }
  ASSERT_TRUE(WaitFor(
      [&] { return Count(TaskMatch().State(TaskState::kSuccess)) == kTasks; },
      absl::Seconds(30)));
  std::map<std::string, int> runs;
  for (Recorder* r : {&ra, &rb, &ra2}) {
    for (const auto& [id, n] : r->CountById()) runs[id] += n;
  }
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id;
  EXPECT_GT(ra.size(), 0u);
  EXPECT_GT(rb.size(), 0u);
  ExpectNeverEarly({&ra, &rb, &ra2});
  b->Shutdown();
  a2->Shutdown();
}

// A process of today's engine claims rows (SCHEDULED under its epoch, its
// wheel holding them) and is killed (SIGKILL) before they are due; a
// process of the fire by slot takes the slots over after the lease TTL and
// runs each row once, at or after its due time. A row the killed process
// had RUNNING runs again (a new attempt: at least once).
TEST_F(RollingChangeTest, TheNewEngineTakesOverRowsADeadOldEngineClaimed) {
  ASSERT_TRUE(
      ExecSql(db_->conninfo(),
              "CREATE TABLE test_runs (task_id bytea, node text, attempt int)")
          .ok());
  std::string conninfo = db_->conninfo();
  std::string node_a = "old-a", ttl = "1000";
  std::string binary = "tests/durable/scheduler_process";
  char* argv[] = {binary.data(), conninfo.data(), node_a.data(), ttl.data(),
                  nullptr};
  // The child runs today's engine whatever this process's environment says.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("TIMINGWHEEL_FIRE_BY_SLOT=", 0) == 0) continue;
    env_strings.push_back(*e);
  }
  std::vector<char*> env;
  for (std::string& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(
      posix_spawn(&pid, binary.c_str(), nullptr, nullptr, argv, env.data()), 0);
  Reaper reaper{pid};
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitFor([&] {
    return Store().CountSlots(LeaseMatch().Owner("old-a")).value_or(-1) == 64;
  }));

  DurableClientOptions client_options;
  client_options.conninfo = db_->conninfo();
  client_options.slot_count = 64;
  auto client = DurableClient::Create(client_options);
  ASSERT_TRUE(client.ok()) << client.status();
  constexpr int kTasks = 100;
  std::vector<ScheduleRequest> batch;
  for (int i = 0; i < kTasks; ++i) {
    ScheduleRequest r;
    r.id = absl::StrCat("claimed-", i);
    r.payload = "p";
    r.delay = absl::Seconds(3) + absl::Milliseconds(i * 10);
    r.priority = i % 2;
    batch.push_back(r);
  }
  ASSERT_TRUE((*client)->ScheduleBatch(batch).ok());
  // Claimed by the old engine's load (notified of the inserts).
  ASSERT_TRUE(WaitFor([&] {
    return Count(TaskMatch().State(TaskState::kScheduled)) == kTasks;
  }));
  // And one row it was running when it died.
  durable_testing::InsertedTask mid_flight;
  mid_flight.id = "mid-flight";
  mid_flight.slot = 0;
  mid_flight.state = TaskState::kRunning;
  mid_flight.epoch_of_lease = true;
  mid_flight.attempt = 1;
  ASSERT_TRUE(Store().InsertTask(mid_flight).ok());
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  reaper.pid = 0;

  Recorder rb;
  auto b = Start("new-b", rb, /*by_slot=*/true);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(WaitFor(
      [&] {
        return Count(TaskMatch().State(TaskState::kSuccess)) == kTasks + 1;
      },
      absl::Seconds(30)));
  EXPECT_EQ(Query("SELECT count(*) FROM test_runs"), 0)
      << "the old engine ran a task before it died";
  const std::map<std::string, int> runs = rb.CountById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks + 1));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id;
  for (const Recorder::Call& call : rb.calls()) {
    if (call.task.id == "mid-flight") {
      EXPECT_EQ(call.task.attempt, 2);  // At least once: a new attempt.
    }
  }
  ExpectNeverEarly({&rb});
  b->Shutdown();
}

}  // namespace
}  // namespace timingwheel
