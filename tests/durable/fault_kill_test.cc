// Copyright 2026 The timingwheel Authors.
//
// kill -9 and SIGSTOP at each step of a task's life, in a real scheduler
// process on the real PostgreSQL. The process kills or stops itself at a
// named fault point (durable/engine/fault_point.h); a second process takes its
// slots over after the lease TTL. Every task ends SUCCESS exactly once; a
// handler runs twice only when the process died after the handler returned
// and before SUCCESS was recorded (counted and printed); a stalled process
// that wakes up changes nothing in the table.

#include <signal.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::IsKilled;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::TaskMatch;

constexpr int kTtlMs = 1000;
constexpr int kTasks = 40;

class FaultKillTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string error;
    db_ = FaultDb::Create(&error);
    ASSERT_NE(db_, nullptr) << error;
  }

  // Starts the first owner A with `fault`, waits until it holds every slot,
  // watches the leases, and schedules the tasks (due in 300 ms..700 ms).
  // `threads` handler threads, 20 ms per handler: a batch is in flight.
  void StartOwnerAndSchedule(SchedulerProcess& a, const std::string& fault,
                             int threads) {
    ASSERT_TRUE(
        a.Start(db_->conninfo(), "owner-a", kTtlMs,
                {"--fault=" + fault, absl::StrCat("--threads=", threads),
                 "--handler_ms=20"}));
    ASSERT_TRUE(WaitFor([&] { return db_->SlotsOf("owner-a") == 64; }))
        << "owner-a never took the 64 slots";
    ASSERT_TRUE(db_->WatchLeases());
    ASSERT_TRUE(db_->ScheduleTasks("task-", kTasks, absl::Milliseconds(300),
                                   absl::Milliseconds(10)));
  }

  // All tasks SUCCESS, each exactly once in the table, none in another state.
  void ExpectAllSucceeded() {
    ASSERT_TRUE(WaitFor([&] {
      return db_->CountTasks(TaskMatch().State(TaskState::kSuccess)) == kTasks;
    })) << "not every task reached SUCCESS: "
        << db_->CountTasks(TaskMatch().State(TaskState::kSuccess)) << " of "
        << kTasks;
    EXPECT_EQ(db_->CountTasks(), kTasks);
    EXPECT_EQ(db_->EarlyTakeovers(), 0)
        << "a slot was taken before its lease ran out";
    // Never early against the database's clock.
    EXPECT_EQ(db_->RunsBeforeDue(), 0);
  }

  std::unique_ptr<FaultDb> db_;
};

// kill -9 at each point: the next owner finishes everything.
TEST_P(FaultKillTest, KilledAtPointNextOwnerFinishesEveryTaskOnce) {
  const std::string point = GetParam();
  SchedulerProcess a, b;
  ASSERT_NO_FATAL_FAILURE(StartOwnerAndSchedule(a, "kill:" + point, 4));
  const int status = a.WaitExit(absl::Seconds(20));
  ASSERT_TRUE(IsKilled(status)) << "owner-a did not die at " << point
                                << " (wait status " << status << ")";
  const absl::Time killed_at = absl::Now();
  // What A left behind: claimed (SCHEDULED) or RUNNING rows under its epoch.
  const int64_t left_running =
      db_->CountTasks(TaskMatch().State(TaskState::kRunning));
  const int64_t runs_by_a =
      db_->Query("SELECT count(*) FROM test_runs WHERE node = 'owner-a'");

  ASSERT_TRUE(b.Start(db_->conninfo(), "owner-b", kTtlMs));
  ASSERT_NO_FATAL_FAILURE(ExpectAllSucceeded());
  const absl::Duration takeover = absl::Now() - killed_at;
  // One TTL (A's last renewal) plus B's start and a renewal round, with room
  // for a loaded machine.
  EXPECT_LT(takeover, absl::Milliseconds(kTtlMs) + absl::Seconds(8));

  std::map<std::string, int> runs = db_->RunsById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks));
  int doubled = 0;
  for (const auto& [id, n] : runs) {
    EXPECT_GE(n, 1) << id;
    EXPECT_LE(n, 2) << id;
    if (n > 1) ++doubled;
  }
  std::printf(
      "kill -9 at %s: %lld RUNNING rows left, %lld handler runs by the killed "
      "owner, %d tasks run twice, all %d SUCCESS %.0f ms after the kill\n",
      point.c_str(), static_cast<long long>(left_running),
      static_cast<long long>(runs_by_a), doubled, kTasks,
      absl::ToDoubleMilliseconds(takeover));
  if (point == "handler.returned") {
    // The one window of at-least-once: A's handler ran, SUCCESS was not
    // recorded; the next owner runs it again, as attempt 2 if A had
    // recorded the start, else under the same number 1.
    EXPECT_GE(runs_by_a, 1);
    EXPECT_EQ(doubled, runs_by_a);
    EXPECT_EQ(db_->CountTasks(TaskMatch().AttemptAbove(2)), 0);
    EXPECT_LE(db_->CountTasks(TaskMatch().Attempt(2)), left_running);
  } else {
    EXPECT_EQ(doubled, 0) << "a handler ran twice, killed at " << point;
    EXPECT_EQ(runs_by_a, 0) << "owner-a ran a handler before " << point;
  }
  if (point == "fire.started") {
    // RUNNING rows whose handler never started run once, and as attempt 1:
    // an attempt counts only once its handler has started.
    EXPECT_GE(left_running, 1);
    EXPECT_EQ(db_->MaxAttempt(), 1);
  }
  if (point == "load.claimed" || point == "fire.before") {
    EXPECT_EQ(left_running, 0);
    EXPECT_EQ(db_->MaxAttempt(), 1);
  }
  EXPECT_TRUE(b.Terminate());
}

// SIGSTOP at each point past the TTL, takeover, SIGCONT: every write of the
// woken process matches nothing, and no handler runs after it woke.
TEST_P(FaultKillTest, StoppedAtPointWakesUpFencedOut) {
  const std::string point = GetParam();
  SchedulerProcess a, b;
  // One handler thread: the attempts behind the stalled one have not
  // started; after the wake-up they must not start (the lease is gone).
  ASSERT_NO_FATAL_FAILURE(StartOwnerAndSchedule(a, "stop:" + point, 1));
  ASSERT_TRUE(a.WaitStopped(absl::Seconds(20)))
      << "owner-a did not stop at " << point;
  const int64_t runs_by_a =
      db_->Query("SELECT count(*) FROM test_runs WHERE node = 'owner-a'");

  ASSERT_TRUE(b.Start(db_->conninfo(), "owner-b", kTtlMs));
  ASSERT_NO_FATAL_FAILURE(ExpectAllSucceeded());
  // Every row's state, version, epoch, attempt and finish time.
  auto snapshot = [&] {
    std::vector<
        std::tuple<std::string, TaskState, int64_t, int64_t, int, int64_t>>
        rows;
    auto tasks = db_->store().Tasks();
    if (!tasks.ok()) return rows;
    for (const durable_testing::TaskRow& t : *tasks) {
      rows.emplace_back(t.id, t.state, t.version, t.epoch, t.attempt,
                        t.finished_us.value_or(0));
    }
    return rows;
  };
  const auto before = snapshot();

  // A wakes up: its stale fire, completion, renewal and load statements all
  // run now, and match nothing. It rejoins under new epochs.
  ASSERT_TRUE(a.Signal(SIGCONT));
  ASSERT_TRUE(WaitFor([&] { return db_->SlotsOf("owner-a") > 0; }))
      << "owner-a did not rejoin after SIGCONT";
  EXPECT_TRUE(snapshot() == before)
      << "a write of the stalled process changed the table";
  EXPECT_EQ(db_->CountTasks(TaskMatch().State(TaskState::kSuccess)), kTasks);
  const int64_t runs_by_a_after =
      db_->Query("SELECT count(*) FROM test_runs WHERE node = 'owner-a'");
  EXPECT_EQ(runs_by_a_after, runs_by_a)
      << "the stalled process ran handlers after it woke up, fenced out";
  std::map<std::string, int> runs = db_->RunsById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks));
  int doubled = 0;
  for (const auto& [id, n] : runs) {
    if (n > 1) ++doubled;
  }
  std::printf("SIGSTOP at %s: %lld runs before the stall, %d tasks run twice\n",
              point.c_str(), static_cast<long long>(runs_by_a), doubled);
  // Only a handler that had returned before the stall runs again.
  EXPECT_EQ(doubled, runs_by_a);
  if (point != "handler.returned") {
    EXPECT_EQ(runs_by_a, 0);
  }
  EXPECT_TRUE(a.Terminate());
  EXPECT_TRUE(b.Terminate());
}

// A recurring schedule's owner killed with SIGKILL after an occurrence's
// handler ran and before its outcome (with the next occurrence) committed:
// the next owner runs that occurrence again (the at-least-once window) and
// then every later occurrence once, never early, with at most one
// occurrence waiting at a time.
class RecurringKillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    db_ = FaultDb::Create(&error);
    ASSERT_NE(db_, nullptr) << error;
  }
  std::unique_ptr<FaultDb> db_;
};

TEST_F(RecurringKillTest, OwnerKilledMidRunNextOwnerRunsEachOccurrenceOnce) {
  const std::vector<std::string> tick = {"--schedule_every_ms=200",
                                         "--horizon_ms=2000"};
  std::vector<std::string> killed = tick;
  killed.push_back("--fault=kill:schedule.completing");
  SchedulerProcess a, b;
  ASSERT_TRUE(a.Start(db_->conninfo(), "owner-a", kTtlMs, killed));
  const int status = a.WaitExit(absl::Seconds(20));
  ASSERT_TRUE(IsKilled(status))
      << "owner-a did not die completing an occurrence (wait status " << status
      << ")";
  const int64_t runs_by_a =
      db_->Query("SELECT count(*) FROM test_runs WHERE node = 'owner-a'");
  EXPECT_GE(runs_by_a, 1);

  ASSERT_TRUE(b.Start(db_->conninfo(), "owner-b", kTtlMs, tick));
  ASSERT_TRUE(WaitFor(
      [&] {
        return db_->Query(
                   "SELECT count(*) FROM test_runs WHERE node = 'owner-b'") >=
               6;
      },
      absl::Seconds(30)))
      << "the next owner did not go on with the schedule";
  EXPECT_TRUE(b.Terminate());

  int doubled = 0;
  for (const auto& [id, n] : db_->RunsById()) {
    EXPECT_LE(n, 2) << "an occurrence ran " << n << " times";
    if (n > 1) ++doubled;
  }
  EXPECT_LE(doubled, runs_by_a) << "an occurrence b alone ran ran twice";
  // What a ran without recording it, b ran again.
  EXPECT_EQ(db_->Query("SELECT count(*) FROM test_runs r WHERE node = "
                       "'owner-a' AND NOT EXISTS (SELECT FROM test_runs s "
                       "WHERE s.task_id = r.task_id AND s.node = 'owner-b')"),
            0);
  EXPECT_EQ(db_->RunsBeforeDue(), 0) << "an occurrence ran before its instant";
  EXPECT_LE(db_->CountTasks(TaskMatch().StateBefore(TaskState::kSuccess)), 1);
}

INSTANTIATE_TEST_SUITE_P(Points, FaultKillTest,
                         ::testing::Values("load.claimed", "fire.before",
                                           "fire.started", "handler.returned"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace timingwheel
