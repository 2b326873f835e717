// Copyright 2026 The timingwheel Authors.
//
// Never lost, never run twice outside the window: each test forces one
// interleaving against the real server (a statement held inside the server
// by a trigger, a reply dropped after its commit by a proxy, a thread held
// at a fault point) and checks that every task still runs, once.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/pause_points.h"
#include "durable/testing/pg_proxy.h"
#include "durable/testing/statement_gate.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_testing::TaskMatch;

using durable_test::DurableFixture;
using durable_test::WaitFor;
using durable_testing::PausePoint;
using durable_testing::PgProxy;
using durable_testing::StatementGate;

// The statements, by a piece of their text (durable/sql/store.cc).
constexpr char kLoadSql[] = "SET state = 1, epoch = c.epoch";
constexpr char kFireSql[] = "SET state = 2";
constexpr char kCompleteSql[] = "CASE c.outcome";

class NeverLostTest : public DurableFixture {
 protected:
  std::unique_ptr<PgProxy> StartProxy() {
    auto proxy = PgProxy::Start(db_->conninfo());
    EXPECT_TRUE(proxy.ok()) << proxy.status();
    return proxy.ok() ? *std::move(proxy) : nullptr;
  }
  // node-a's options, its connections through `proxy`.
  DurableOptions ThroughProxy(const PgProxy& proxy) {
    DurableOptions options = Options("node-a");
    options.conninfo = proxy.conninfo();
    return options;
  }
};

// A load that read the lease before a takeover and commits after it: the
// load holds the lease row (FOR KEY SHARE) until it commits, so the taker skips
// the slot instead of taking it while the load's rows are uncommitted.
TEST_F(NeverLostTest, LoadInFlightDuringATakeoverLosesNothing) {
  auto a = Start(Options("node-a"));
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->Metrics().slots_owned, 1);
  InsertPending("t1", 300);
  auto gate =
      StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE", kLoadSql,
                             StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  // A's own insert asks for a load; the load claims both rows, locks them
  // and waits before committing.
  ASSERT_TRUE(a->Schedule("t2", absl::Milliseconds(300), "p").ok());
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(10)));
  // A stall expires A's lease (unless the load holds the lease row), and B
  // takes every slot it can meanwhile.
  ASSERT_TRUE(Store().ExpireLeases(/*skip_locked=*/true).ok());
  auto b = Start(Options("node-b"));
  ASSERT_NE(b, nullptr);
  (*gate)->Release();
  EXPECT_TRUE(Succeeded("t1"))
      << "t1 lost: " << Count(TaskMatch().State(TaskState::kScheduled))
      << " rows SCHEDULED";
  EXPECT_TRUE(Succeeded("t2"));
  EXPECT_EQ(recorder_.size(), 2u);
}

// A load commits, its reply is lost: after reconnecting, the process puts
// its SCHEDULED rows back to PENDING and loads them again.
TEST_F(NeverLostTest, LoadWhoseReplyIsLostAfterCommitStillRuns) {
  auto proxy = StartProxy();
  ASSERT_NE(proxy, nullptr);
  DurableOptions options = ThroughProxy(*proxy);
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  proxy->DropReplyTo(kLoadSql);
  ASSERT_TRUE(a->Schedule("t", absl::Milliseconds(300), "p").ok());
  ASSERT_TRUE(proxy->WaitDropped(absl::Seconds(10)));
  EXPECT_TRUE(Succeeded("t"))
      << Count(TaskMatch().State(TaskState::kScheduled)) << " rows SCHEDULED";
  EXPECT_EQ(recorder_.size(), 1u);
  EXPECT_GE(a->Metrics().reconnects, 1);
}

// A failed attempt's completion writes the retry SCHEDULED and its reply is
// lost: the retry still runs.
TEST_F(NeverLostTest, RetryWhoseCompletionReplyIsLostStillRuns) {
  auto proxy = StartProxy();
  ASSERT_NE(proxy, nullptr);
  DurableOptions options = ThroughProxy(*proxy);
  recorder_.SetResult([](const DurableTask& task) {
    return task.attempt == 1 ? absl::UnavailableError("first fails")
                             : absl::OkStatus();
  });
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  proxy->DropReplyTo(kCompleteSql);
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(proxy->WaitDropped(absl::Seconds(10)));
  EXPECT_TRUE(Succeeded("t"))
      << Count(TaskMatch().State(TaskState::kScheduled)) << " rows SCHEDULED";
  auto calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].task.attempt, 1);
  EXPECT_EQ(calls[1].task.attempt, 2);
}

// A fire commits RUNNING, its reply is lost: no handler started, so the
// attempt is not used up; with one attempt allowed the task still runs.
TEST_F(NeverLostTest, FireWhoseReplyIsLostDoesNotUseUpTheOnlyAttempt) {
  auto proxy = StartProxy();
  ASSERT_NE(proxy, nullptr);
  DurableOptions options = ThroughProxy(*proxy);
  options.retry.max_attempts = 1;
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  proxy->DropReplyTo(kFireSql);
  ASSERT_TRUE(a->Schedule("t", absl::Milliseconds(100), "p").ok());
  ASSERT_TRUE(proxy->WaitDropped(absl::Seconds(10)));
  EXPECT_TRUE(Succeeded("t"))
      << Count(TaskMatch().State(TaskState::kFailed)) << " rows FAILED";
  auto calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.attempt, 1);
}

// A wheel with room for 5 tasks and 10 due: the loads claim what fits, the
// rest as fires make room; every task runs.
TEST_F(NeverLostTest, FullWheelRunsEveryClaimedTask) {
  DurableOptions options = Options("node-a");
  options.timer_options.max_pending = 5;
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  std::vector<ScheduleRequest> requests(10);
  for (int i = 0; i < 10; ++i) {
    requests[i].id = absl::StrCat("t", i);
    requests[i].payload = "p";
    requests[i].delay = absl::Milliseconds(300);
  }
  ASSERT_TRUE(a->ScheduleBatch(requests).ok());
  EXPECT_TRUE(WaitFor([&] {
    return Count(TaskMatch().State(TaskState::kSuccess)) == 10;
  })) << Count(TaskMatch().State(TaskState::kSuccess))
      << " of 10 ran";
  EXPECT_EQ(recorder_.size(), 10u);
}

// After a reconnect, the requeue of RUNNING rows leaves alone the ones
// whose handlers still run in this process: no second run.
TEST_F(NeverLostTest, ReconnectRequeueSparesHandlersStillRunning) {
  auto proxy = StartProxy();
  ASSERT_NE(proxy, nullptr);
  testing::PoolExecutor executor(2);
  DurableOptions options = ThroughProxy(*proxy);
  options.executor = &executor;
  std::atomic<bool> release{false};
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "slow") {
      WaitFor([&] { return release.load(); }, absl::Seconds(30));
    }
    return absl::OkStatus();
  });
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("slow", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  proxy->CutAll();
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().reconnects >= 1; }));
  // A task scheduled after the reconnect runs: the requeue and the load
  // after it are done.
  ASSERT_TRUE(a->Schedule("probe", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("probe"));
  EXPECT_EQ(Count(TaskMatch().Id("slow").State(TaskState::kRunning)), 1);
  release = true;
  EXPECT_TRUE(Succeeded("slow"));
  EXPECT_EQ(recorder_.CountById()["slow"], 1);
  a.reset();
}

// A row another transaction holds locked delays only itself: the load
// skips it (FOR UPDATE SKIP LOCKED) and claims the rest.
TEST_F(NeverLostTest, RowLockedElsewhereDelaysOnlyItself) {
  auto a = Start(Options("node-a"));
  ASSERT_NE(a, nullptr);
  InsertPending("locked", 0);
  auto held = durable_testing::StoreLock::LockTask(db_->conninfo(), "locked");
  ASSERT_TRUE(held.ok()) << held.status();
  ASSERT_TRUE(a->Schedule("free", absl::Milliseconds(100), "p").ok());
  EXPECT_TRUE(Succeeded("free"));
  held->reset();  // Released.
  // The next load takes it.
  ASSERT_TRUE(a->Schedule("poke", absl::ZeroDuration(), "p").ok());
  EXPECT_TRUE(Succeeded("locked"));
}

// A lease row another transaction holds locked delays only that slot: the
// acquire skips it (FOR UPDATE SKIP LOCKED) and takes the others at once.
TEST_F(NeverLostTest, LockedLeaseRowDelaysOnlyItsSlot) {
  // The schema first (a scheduler that leaves), then the lock.
  DurableOptions options = Options("node-a");
  options.slot_count = 4;
  Start(options).reset();
  auto held = durable_testing::StoreLock::LockLease(db_->conninfo(), 0);
  ASSERT_TRUE(held.ok()) << held.status();
  options.node_id = "node-b";
  auto b = Start(options);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Metrics().slots_owned, 3);  // When Create() returns.
  held->reset();                           // Released.
  EXPECT_TRUE(WaitFor([&] { return b->Metrics().slots_owned == 4; }));
}

// The check before a handler starts compares the epoch, not only the
// owner: a process that lost and re-took the slot between the fire and the
// start abandons the old attempt, and the task runs once.
TEST_F(NeverLostTest, AttemptFiredUnderAnOldEpochIsAbandoned) {
  auto a = Start(Options("node-a"));
  ASSERT_NE(a, nullptr);
  PausePoint before_start("attempt.before_start");
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(before_start.WaitReached(absl::Seconds(10)));
  // The lease runs out; A's next round loses the slot and takes it back
  // under a new epoch.
  ExpireLeases();
  ASSERT_TRUE(WaitFor([&] {
    DurableMetrics m = a->Metrics();
    return m.slots_lost >= 1 && m.slots_acquired >= 2;
  }));
  before_start.Resume();
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_EQ(recorder_.size(), 1u);
  EXPECT_EQ(a->Metrics().abandoned, 1);
}

// A fire the database answers "not due yet" re-arms the task from the
// process clock read after that statement, however long it ran.
TEST_F(NeverLostTest, NotDueReArmsFromTheClockReadAfterTheFire) {
  testing::ManualClock clock;
  DurableOptions options = Options("node-a");
  options.timer_options.clock = &clock;
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("later", absl::Seconds(60), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().wheel_pending == 1; }));
  auto gate =
      StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE", kFireSql);
  ASSERT_TRUE(gate.ok()) << gate.status();
  clock.AdvanceBy(absl::Seconds(60));  // Fires (the database disagrees).
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(10)));
  clock.AdvanceBy(absl::Seconds(1000));  // While the fire statement runs.
  (*gate)->Release();
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().not_due == 1; }));
  // Re-armed about 60 s after the statement returned (process clock), not
  // 60 s after it started (long past): no second fire.
  EXPECT_FALSE(WaitFor([&] { return a->Metrics().not_due >= 2; },
                       absl::Milliseconds(500)));
  EXPECT_EQ(recorder_.size(), 0u);
}

// The cleanup deletes finished rows past the retention, never unfinished
// ones, however old.
TEST_F(NeverLostTest, CleanupDeletesOnlyFinishedRows) {
  DurableOptions options = Options("node-a");
  options.retain_finished = absl::Milliseconds(200);
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  InsertPending("pending", 2 * 3600 * 1000);  // Beyond the horizon.
  ASSERT_TRUE(a->Schedule("scheduled", absl::Minutes(50), "p").ok());
  ASSERT_TRUE(a->Schedule("done", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("done"));
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().finished_deleted >= 1; }));
  EXPECT_EQ(Count(TaskMatch().Id("done")), 0);
  EXPECT_EQ(Count(TaskMatch().Id("pending").State(TaskState::kPending)), 1);
  EXPECT_EQ(Count(TaskMatch().Id("scheduled").State(TaskState::kScheduled)), 1);
}

// A cancel deletes the row and its reply is lost: the client reconnects and
// tries again, which finds no row. The task will not run, so the caller is
// told it was cancelled (not "false", which says the task may still run).
TEST_F(NeverLostTest, CancelWhoseReplyIsLostAnswersCancelled) {
  auto proxy = StartProxy();
  ASSERT_NE(proxy, nullptr);
  DurableOptions options = ThroughProxy(*proxy);
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("t", absl::Hours(1), "p").ok());
  ASSERT_TRUE(a->Schedule("u", absl::Hours(1), "p").ok());
  // Cancel() runs a prepared statement: prepared now, so the reply lost
  // below is the delete's, not the preparation's.
  ASSERT_TRUE(a->Cancel("warm-up").ok());
  proxy->DropReplyTo("DELETE FROM tw_timer WHERE task_id = $1");
  absl::StatusOr<bool> cancelled = a->Cancel("t");
  ASSERT_TRUE(proxy->WaitDropped(absl::Seconds(10)));
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_TRUE(*cancelled) << "told 'not cancelled' for a task it deleted";
  EXPECT_TRUE(absl::IsNotFound(Store().Task("t").status()));
  proxy->DropReplyTo("DELETE FROM tw_timer t USING prior");
  absl::StatusOr<CancelOutcome> outcome = a->CancelTask("u");
  ASSERT_TRUE(proxy->WaitDropped(absl::Seconds(10)));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, CancelOutcome::kCancelled);
  EXPECT_TRUE(absl::IsNotFound(Store().Task("u").status()));
  // A task still stored keeps its answer: false, not cancelled.
  ASSERT_TRUE(a->Schedule("v", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("v"));
  proxy->DropReplyTo("DELETE FROM tw_timer WHERE task_id = $1");
  cancelled = a->Cancel("v");
  ASSERT_TRUE(proxy->WaitDropped(absl::Seconds(10)));
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_FALSE(*cancelled);
}

}  // namespace
}  // namespace timingwheel
