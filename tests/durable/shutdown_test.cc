// Copyright 2026 The timingwheel Authors.
//
// Shutdown(), the destructor and the session limits, against the real
// server: bounded by the lease TTL whatever handlers and locks do; outcomes
// of handlers that return during Shutdown() (or call it) are recorded; a
// node id held by a live scheduler is refused; statements that wait on a
// lock end at statement_timeout.

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/client/request.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/pause_points.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::DurableFixture;
using durable_test::WaitFor;
using durable_testing::PausePoint;
using durable_testing::StoreLock;
using durable_testing::TaskMatch;

class DurableShutdownTest : public DurableFixture {};

TEST_F(DurableShutdownTest, ReturnsWithinTheTtlWhileAHandlerNeverReturns) {
  std::atomic<bool> release{false};
  recorder_.SetResult([&](const DurableTask&) {
    WaitFor([&] { return release.load(); }, absl::Seconds(60));
    return absl::OkStatus();
  });
  auto s = Start(Options("node-a"));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("stuck", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  const absl::Time start = absl::Now();
  s.reset();  // Shutdown() and the destructor.
  const absl::Duration took = absl::Now() - start;
  // One TTL (1 s), with room for a loaded machine; never the handler's 60 s.
  EXPECT_LT(took, absl::Seconds(5));
  release = true;  // The handler returns to a scheduler that is gone.
  // Its row stays RUNNING: the next owner runs it again after the lease.
  EXPECT_EQ(Count(TaskMatch().Id("stuck").State(TaskState::kRunning)), 1);
  auto next = Start(Options("node-b"));
  ASSERT_NE(next, nullptr);
  EXPECT_TRUE(Succeeded("stuck"));
}

TEST_F(DurableShutdownTest, ReturnsWithinTheTtlWhileItsStatementsWaitForALock) {
  auto s = Start(Options("node-a"));
  ASSERT_NE(s, nullptr);
  auto lock = StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kLeases);
  ASSERT_TRUE(lock.ok()) << lock.status();
  const absl::Time start = absl::Now();
  s->Shutdown();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_F(DurableShutdownTest, OutcomeOfAHandlerReturningDuringShutdownIsKept) {
  std::atomic<bool> release{false};
  recorder_.SetResult([&](const DurableTask&) {
    WaitFor([&] { return release.load(); }, absl::Seconds(30));
    return absl::OkStatus();
  });
  auto s = Start(Options("node-a"));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  PausePoint waiting("shutdown.waiting");
  std::thread shutdown([&] { s->Shutdown(); });
  ASSERT_TRUE(waiting.WaitReached(absl::Seconds(10)));
  waiting.Resume();
  release = true;  // Returns while Shutdown() waits for it.
  shutdown.join();
  EXPECT_EQ(Count(TaskMatch().Id("t").State(TaskState::kSuccess)), 1);
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kRunning)), 0);
  EXPECT_EQ(recorder_.size(), 1u);
}

// The final outcome write fails (the task table locked: the statement
// times out) while Shutdown() waits: it is written again, within the
// shutdown's bound, once the lock is gone.
TEST_F(DurableShutdownTest, AFailedFinalOutcomeWriteIsRetriedWithinTheBound) {
  std::atomic<bool> release{false};
  recorder_.SetResult([&](const DurableTask&) {
    WaitFor([&] { return release.load(); }, absl::Seconds(30));
    return absl::OkStatus();
  });
  DurableOptions options = Options("node-a");
  // Half a TTL (2 s) for the final writes; statements end after 1 s.
  options.lease_ttl = absl::Seconds(4);
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  // The start is recorded before the lock (so the one write that fails is
  // the outcome's).
  ASSERT_TRUE(WaitFor([&] {
    auto task = Store().Task("t");
    return task.ok() && task->attempt == 1;
  }));
  const int64_t errors_before = s->Metrics().db_errors;
  auto lock = StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kTasks);
  ASSERT_TRUE(lock.ok()) << lock.status();
  PausePoint waiting("shutdown.waiting");
  std::thread shutdown([&] { s->Shutdown(); });
  ASSERT_TRUE(waiting.WaitReached(absl::Seconds(10)));
  waiting.Resume();
  release = true;  // Its outcome's write waits for the lock, and fails.
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().db_errors > errors_before; },
                      absl::Seconds(10)));
  lock->reset();
  shutdown.join();
  EXPECT_EQ(Count(TaskMatch().Id("t").State(TaskState::kSuccess)), 1)
      << "the failed final outcome write was not retried";
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kRunning)), 0);
  EXPECT_EQ(recorder_.size(), 1u);
}

TEST_F(DurableShutdownTest, ShutdownFromInsideAHandlerKeepsItsOutcome) {
  testing::PoolExecutor executor(2);
  DurableOptions options = Options("node-a");
  options.executor = &executor;
  std::atomic<DurableScheduler*> self{nullptr};
  recorder_.SetResult([&](const DurableTask&) {
    self.load()->Shutdown();
    return absl::OkStatus();
  });
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  self = s.get();
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  EXPECT_TRUE(Succeeded("t", absl::Seconds(10)));
  // Counted by the handler's thread just after its outcome committed.
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().late_outcomes == 1; },
                      absl::Seconds(10)))
      << "late_outcomes " << s->Metrics().late_outcomes;
  s.reset();
  EXPECT_EQ(recorder_.size(), 1u);
  // Its slot was released once the handler returned.
  EXPECT_EQ(Value(Store().CountSlots(durable_testing::LeaseMatch().Owned())),
            0);
}

// A rolling deploy with a handler longer than half the TTL: with a grace
// above it, Shutdown() keeps that handler's slot leased (renewed past three
// TTLs) so no other node runs the task again, while every other slot is
// released at once (another node runs a task of one while the grace runs).
TEST_F(DurableShutdownTest, TheGraceOutlastsTheTtlAndOtherSlotsMoveAtOnce) {
  constexpr int kSlots = 8;
  std::atomic<bool> release{false};
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "long") {
      WaitFor([&] { return release.load(); }, absl::Seconds(60));
    }
    return absl::OkStatus();
  });
  std::string other = "other";
  for (int i = 0; durable_internal::SlotFor(other, kSlots) ==
                  durable_internal::SlotFor("long", kSlots);
       ++i) {
    other = absl::StrCat("other-", i);
  }
  DurableOptions options = Options("node-a");
  options.slot_count = kSlots;
  options.shutdown_grace = absl::Seconds(30);
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("long", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  PausePoint waiting("shutdown.waiting");
  std::thread shutdown([&] { a->Shutdown(); });
  ASSERT_TRUE(waiting.WaitReached(absl::Seconds(10)));
  // Due now, in an idle slot of the stopping node: not fired by it.
  DurableOptions b_options = Options("node-b");
  b_options.slot_count = kSlots;
  auto b = Start(b_options);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->Schedule(other, absl::ZeroDuration(), "p").ok());
  const int64_t t0 = Query("SELECT tw_now_us()");
  waiting.Resume();
  EXPECT_TRUE(Succeeded(other, absl::Seconds(10)))
      << "the idle slots were not released at the start of the grace";
  // Three TTLs (1 s each) on: node-a still renews the busy slot.
  EXPECT_TRUE(WaitFor(
      [&] {
        return Query(absl::StrCat("SELECT count(*) FROM tw_slot_lease WHERE "
                                  "owner = 'node-a' AND lease_until_us > ",
                                  t0 + 3000000)) == 1;
      },
      absl::Seconds(15)))
      << "the busy slot's lease was not renewed through the grace";
  release = true;
  shutdown.join();
  EXPECT_TRUE(Succeeded("long"));
  EXPECT_EQ(recorder_.CountById()["long"], 1) << "ran again elsewhere";
  EXPECT_EQ(Value(Store().CountSlots(
                durable_testing::LeaseMatch().Owned().Owner("node-a"))),
            0);
}

TEST_F(DurableShutdownTest, SecondLiveSchedulerWithTheSameNodeIdIsRefused) {
  auto first = Start(Options("node-a"));
  ASSERT_NE(first, nullptr);
  auto second = DurableScheduler::Create(Options("node-a"));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
  EXPECT_NE(second.status().message().find("node-a"), absl::string_view::npos);
  first.reset();
  // Free again once the first is gone.
  auto third = DurableScheduler::Create(Options("node-a"));
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST_F(DurableShutdownTest, ClientCallsWaitingOnALockEndAtStatementTimeout) {
  auto s = Start(Options("node-a"));
  ASSERT_NE(s, nullptr);
  auto lock = StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kTasks);
  ASSERT_TRUE(lock.ok()) << lock.status();
  const absl::Time start = absl::Now();
  absl::Status scheduled = s->Schedule("t", absl::ZeroDuration(), "p");
  EXPECT_TRUE(absl::IsDeadlineExceeded(scheduled)) << scheduled;
  EXPECT_TRUE(absl::IsDeadlineExceeded(s->Get("t").status()));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s->Cancel("t").status()));
  // A quarter of the 1 s TTL each, with room for a loaded machine.
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
}

TEST_F(DurableShutdownTest, MaintenanceStatementsWaitingOnALockEndAtTimeout) {
  auto s = Start(Options("node-a"));
  ASSERT_NE(s, nullptr);
  {
    auto lock =
        StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kLeases);
    ASSERT_TRUE(lock.ok()) << lock.status();
    ASSERT_TRUE(WaitFor([&] {
      return s->Metrics().statement_timeouts + s->Metrics().db_errors >= 1;
    }));
  }
  // Once the lock is gone, work goes on.
  ASSERT_TRUE(s->Schedule("t", absl::ZeroDuration(), "p").ok());
  EXPECT_TRUE(Succeeded("t"));
}

}  // namespace
}  // namespace timingwheel
