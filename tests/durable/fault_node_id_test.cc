// Copyright 2026 The timingwheel Authors.
//
// A node id does not wedge: real scheduler processes on the real
// PostgreSQL, one of them stopped with SIGSTOP.
//
//   * Stopped past its TTL (every lease expired, its heartbeat stale on the
//     database's clock): a replacement with the same node id starts (it
//     ends the stopped process's sessions), takes the slots over under
//     higher epochs and runs the tasks; the stopped process, woken with
//     SIGCONT, runs no task, does not take the id back, and stops
//     (DurableMetrics::node_id_lost; the helper process exits with 3).
//   * Stopped with its heartbeat still fresh: the replacement is refused
//     (Create() fails), and the stopped process, woken, works on with its
//     sessions untouched.

#include <signal.h>
#include <sys/wait.h>

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::TaskMatch;

class FaultNodeIdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    db_ = FaultDb::Create(&error);
    ASSERT_NE(db_, nullptr) << error;
  }

  // Slots `node` holds under a lease still valid on the database's clock.
  int64_t LiveSlotsOf(const std::string& node) const {
    return db_->Query(
        absl::StrCat("SELECT count(*) FROM tw_slot_lease WHERE owner = '", node,
                     "' AND lease_until_us > tw_now_us()"));
  }

  // Whether `node` is stale on the database's clock: no heartbeat within
  // `ttl_ms` and no valid lease.
  bool Stale(const std::string& node, int ttl_ms) const {
    return LiveSlotsOf(node) == 0 &&
           db_->Query(absl::StrCat(
               "SELECT count(*) FROM tw_node WHERE node_id = '", node,
               "' AND heartbeat_us > tw_now_us() - ", ttl_ms * 1000)) == 0;
  }

  int64_t RunsBy(const std::string& label) const {
    return db_->Query(absl::StrCat(
        "SELECT count(*) FROM test_runs WHERE node = '", label, "'"));
  }

  int64_t MaxEpoch() const {
    return db_->Query("SELECT coalesce(max(epoch), 0) FROM tw_slot_lease");
  }

  // Schedules `count` tasks "<prefix><i>" due in `delay` and waits until
  // the owner holds all of them in its wheel (SCHEDULED).
  void ScheduleLoaded(const std::string& prefix, int count,
                      absl::Duration delay) {
    ASSERT_TRUE(db_->ScheduleTasks(prefix, count, delay));
    ASSERT_TRUE(WaitFor([&] {
      return db_->CountTasks(
                 TaskMatch().State(TaskState::kScheduled).IdPrefix(prefix)) ==
             count;
    })) << "the owner did not load the tasks "
        << prefix;
  }

  // Waits until every task "<prefix>*" succeeded and `label` ran each.
  void ExpectRunBy(const std::string& prefix, int count,
                   const std::string& label) {
    ASSERT_TRUE(WaitFor([&] {
      return db_->CountTasks(
                 TaskMatch().State(TaskState::kSuccess).IdPrefix(prefix)) ==
             count;
    })) << "not every task "
        << prefix << " succeeded";
    EXPECT_EQ(db_->Query(absl::StrCat(
                  "SELECT count(*) FROM test_runs WHERE node = '", label,
                  "' AND convert_from(task_id, 'UTF8') LIKE '", prefix, "%'")),
              count);
  }

  std::unique_ptr<FaultDb> db_;
};

// Stopped past the TTL: the replacement takes the id over and runs the
// tasks; the stopped process, woken, runs none and stops.
TEST_F(FaultNodeIdTest, ReplacementTakesOverTheIdOfAProcessStoppedPastItsTtl) {
  constexpr int kTtlMs = 1000;
  const std::string node = "node-x";
  SchedulerProcess old_process, replacement;
  ASSERT_TRUE(old_process.Start(db_->conninfo(), node, kTtlMs,
                                {"--run_label=old", "--exit_on_node_id_lost"}));
  ASSERT_TRUE(WaitFor([&] { return LiveSlotsOf(node) == 64; }))
      << "the first process never took the 64 slots";
  ASSERT_TRUE(db_->WatchLeases());
  ASSERT_TRUE(db_->ScheduleTasks("before-", 5, absl::Milliseconds(50)));
  ASSERT_NO_FATAL_FAILURE(ExpectRunBy("before-", 5, "old"));
  // In the first process's wheel, due while it is stopped: it fires them
  // the moment it wakes up.
  ASSERT_NO_FATAL_FAILURE(
      ScheduleLoaded("stalled-", 20, absl::Milliseconds(1500)));
  const int64_t epoch_before = MaxEpoch();

  ASSERT_TRUE(old_process.Signal(SIGSTOP));
  ASSERT_TRUE(WaitFor([&] { return Stale(node, kTtlMs); }))
      << "the stopped process's leases never expired";
  // Its sessions still hold the node id.
  ASSERT_GT(db_->Query("SELECT count(*) FROM pg_stat_activity WHERE "
                       "application_name LIKE 'timingwheel scheduler %'"),
            0);

  const absl::Time started = absl::Now();
  ASSERT_TRUE(replacement.Start(db_->conninfo(), node, kTtlMs,
                                {"--run_label=new", "--exit_on_node_id_lost"}));
  ASSERT_TRUE(WaitFor([&] { return LiveSlotsOf(node) == 64; }))
      << "the replacement never took the 64 slots";
  // Not after the stopped process's sessions died of old age: it ended
  // them, at once.
  EXPECT_LT(absl::Now() - started, absl::Seconds(10));
  EXPECT_EQ(
      db_->Query(absl::StrCat(
          "SELECT count(*) FROM tw_slot_lease WHERE epoch <= ", epoch_before)),
      0)
      << "a slot was taken without a higher epoch";
  ASSERT_NO_FATAL_FAILURE(ExpectRunBy("stalled-", 20, "new"));

  // The first process wakes up: its wheel fires the stalled tasks, but its
  // connections are gone (a write would be fenced by the epochs anyway),
  // and on reconnecting it finds its id taken.
  ASSERT_TRUE(old_process.Signal(SIGCONT));
  const int status = old_process.WaitExit(absl::Seconds(20));
  ASSERT_NE(status, -1) << "the woken process did not stop";
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << "it did not report its id lost";
  EXPECT_EQ(old_process.Metric("node_id_lost"), 1);

  EXPECT_EQ(RunsBy("old"), 5) << "the woken process ran a task";
  for (const auto& [id, runs] : db_->RunsById()) {
    EXPECT_EQ(runs, 1) << id << " ran " << runs << " times";
  }
  EXPECT_EQ(db_->EarlyTakeovers(), 0);
  EXPECT_EQ(db_->RunsBeforeDue(), 0);
  // The replacement keeps the id and its slots, and works on.
  EXPECT_EQ(LiveSlotsOf(node), 64);
  ASSERT_TRUE(db_->ScheduleTasks("after-", 5, absl::Milliseconds(50)));
  ASSERT_NO_FATAL_FAILURE(ExpectRunBy("after-", 5, "new"));
  EXPECT_TRUE(replacement.Terminate());
  EXPECT_EQ(replacement.Metric("node_id_lost"), 0);
}

// Stopped with its heartbeat fresh: the replacement is refused and nothing
// of the stopped process is touched.
TEST_F(FaultNodeIdTest, ReplacementIsRefusedWhileTheHeartbeatIsFresh) {
  // Long enough that the replacement judges the holder (after its first
  // wait of a quarter TTL) well within a TTL of the last heartbeat.
  constexpr int kTtlMs = 8000;
  const std::string node = "node-y";
  SchedulerProcess old_process, replacement;
  ASSERT_TRUE(old_process.Start(db_->conninfo(), node, kTtlMs,
                                {"--run_label=old", "--exit_on_node_id_lost"}));
  ASSERT_TRUE(WaitFor([&] { return LiveSlotsOf(node) == 64; }))
      << "the first process never took the 64 slots";
  ASSERT_TRUE(old_process.Signal(SIGSTOP));
  ASSERT_TRUE(replacement.Start(db_->conninfo(), node, kTtlMs,
                                {"--run_label=new", "--exit_on_node_id_lost"}));
  const int status = replacement.WaitExit(absl::Seconds(30));
  ASSERT_NE(status, -1) << "the replacement neither started nor gave up";
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 1) << "the replacement was not refused";
  EXPECT_FALSE(Stale(node, kTtlMs)) << "the test's timing did not hold";

  ASSERT_TRUE(old_process.Signal(SIGCONT));
  ASSERT_TRUE(db_->ScheduleTasks("later-", 5, absl::Milliseconds(50)));
  ASSERT_NO_FATAL_FAILURE(ExpectRunBy("later-", 5, "old"));
  EXPECT_EQ(RunsBy("new"), 0);
  EXPECT_EQ(LiveSlotsOf(node), 64);
  EXPECT_TRUE(old_process.Terminate());
  // Its sessions were never ended.
  EXPECT_EQ(old_process.Metric("reconnects"), 0);
  EXPECT_EQ(old_process.Metric("node_id_lost"), 0);
}

}  // namespace
}  // namespace timingwheel
