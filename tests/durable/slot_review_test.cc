// Copyright 2026 The timingwheel Authors.
//
// Review of the fire by slot (DurableOptions::fire_by_slot): interleavings
// forced where its features meet. Built twice: slot_review_test (the fire
// by slot, env TIMINGWHEEL_FIRE_BY_SLOT=1) and slot_review_default_test
// (today's engine), so each check is compared against today's behaviour.

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/statement_gate.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::DurableFixture;
using durable_test::Gate;
using durable_test::WaitFor;
using durable_testing::StatementGate;
using durable_testing::StoreLock;

class SlotReviewTest : public DurableFixture {
 protected:
  durable_testing::LeaseRow Lease() {
    auto lease = Store().Lease(0);
    EXPECT_TRUE(lease.ok()) << lease.status();
    return lease.ok() ? *lease : durable_testing::LeaseRow();
  }
  bool WaitForDbTime(int64_t until_us) {
    return WaitFor([&] {
      auto now = Store().DbNowUs();
      return now.ok() && *now > until_us;
    });
  }
  ScheduleRequest Request(const std::string& id, absl::Duration delay,
                          int priority) {
    ScheduleRequest r;
    r.id = id;
    r.payload = "p";
    r.delay = delay;
    r.priority = priority;
    return r;
  }
};

// README ("Task kinds, priorities"): "Among due tasks waiting for a handler
// slot, higher `priority` starts first (ties in due order)". The only place
// is busy; a low-priority task becomes due, then a high-priority one; both
// wait; when the place frees, the high-priority one must start first.
TEST_F(SlotReviewTest, HigherPriorityStartsFirstAmongWaitingDueTasks) {
  Gate gate;
  std::atomic<bool> gate_entered{false};
  std::mutex mu;
  std::vector<std::string> order;
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "gate") {
      gate_entered = true;
      gate.Wait();
    } else {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(task.id);
    }
    return absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.max_in_flight = 1;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->ScheduleBatch({Request("gate", absl::ZeroDuration(), 0)})
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return gate_entered.load(); }));
  ASSERT_TRUE(
      scheduler
          ->ScheduleBatch({Request("low", absl::ZeroDuration(), -5),
                           Request("high", absl::Milliseconds(200), 10)})
          .ok());
  // Both due (and waiting for the one place) well before it frees.
  absl::SleepFor(absl::Milliseconds(1000));
  gate.Open();
  ASSERT_TRUE(Succeeded("low"));
  ASSERT_TRUE(Succeeded("high"));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(order, (std::vector<std::string>{"high", "low"}));
}

// One attempt of a task at a time per process. The row of an attempt
// still running here is taken from this process and given back (as in
// LeaseRenewalTest.ARowGivenBackWaitsForItsAttemptStillRunningHere): it is
// held behind its own attempt. Then the process loses its slot (renewals
// time out past the TTL) and takes it back. The held attempt was dropped
// with the slot; the first attempt still runs here. The row must not be
// started beside it.
TEST_F(SlotReviewTest, HeldRowDroppedWithItsSlotNeverRunsBesideItsAttempt) {
  testing::PoolExecutor pool(3);
  DurableOptions options = Options("node-a");
  options.executor = &pool;
  absl::Notification started, let_go;
  std::atomic<int> calls{0}, running{0}, most_at_once{0};
  recorder_.SetResult([&](const DurableTask&) {
    const int now = running.fetch_add(1) + 1;
    int most = most_at_once.load();
    while (now > most && !most_at_once.compare_exchange_weak(most, now)) {
    }
    if (calls.fetch_add(1) == 0) {
      started.Notify();
      let_go.WaitForNotificationWithTimeout(absl::Seconds(60));
    }
    running.fetch_sub(1);
    return absl::OkStatus();
  });
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(15)));
  // Taken from this process and given back: PENDING under a new version.
  ASSERT_TRUE(durable_testing::ExecSql(
                  db_->conninfo(),
                  "UPDATE tw_timer SET state = 0, "
                  "version = nextval('tw_version_seq') WHERE task_id = 't'")
                  .ok());
  ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(),
                                       "SELECT pg_notify('timingwheel', '0')")
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().held_behind_own_attempt >= 1; },
                      absl::Seconds(15)));
  ASSERT_EQ(calls.load(), 1);
  const durable_testing::LeaseRow held = Lease();
  {
    // Renewals time out: the process forgets its slot after a TTL.
    auto lock =
        StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kLeases);
    ASSERT_TRUE(lock.ok()) << lock.status();
    ASSERT_TRUE(WaitFor([&] { return a->Metrics().slots_lost >= 1; },
                        absl::Seconds(15)));
    ASSERT_TRUE(WaitForDbTime(held.lease_until_us));
  }
  ASSERT_TRUE(WaitFor(
      [&] {
        return a->Metrics().slots_owned == 1 && Lease().epoch > held.epoch;
      },
      absl::Seconds(15)))
      << "node-a did not take its slot back";
  // The first attempt still runs: the row must wait for it.
  WaitFor([&] { return calls.load() > 1; }, absl::Seconds(4));
  EXPECT_EQ(calls.load(), 1) << "the row ran beside its own attempt";
  let_go.Notify();
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_TRUE(WaitFor([&] { return a->Metrics().in_flight == 0; }));
  a->Shutdown();
  EXPECT_EQ(most_at_once.load(), 1) << "two attempts of t at once here";
  EXPECT_EQ(a->Metrics().in_flight, 0);
}

// Shutdown while an attempt is held behind its own still-running attempt:
// the held attempt is abandoned; the row is never lost and the counters
// return to zero.
TEST_F(SlotReviewTest, ShutdownWithAHeldAttemptLosesNothing) {
  testing::PoolExecutor pool(3);
  DurableOptions options = Options("node-a");
  options.executor = &pool;
  absl::Notification started, let_go;
  std::atomic<int> calls{0};
  recorder_.SetResult([&](const DurableTask&) {
    if (calls.fetch_add(1) == 0) {
      started.Notify();
      let_go.WaitForNotificationWithTimeout(absl::Seconds(60));
    }
    return absl::OkStatus();
  });
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(15)));
  ASSERT_TRUE(durable_testing::ExecSql(
                  db_->conninfo(),
                  "UPDATE tw_timer SET state = 0, "
                  "version = nextval('tw_version_seq') WHERE task_id = 't'")
                  .ok());
  ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(),
                                       "SELECT pg_notify('timingwheel', '0')")
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().held_behind_own_attempt >= 1; },
                      absl::Seconds(15)));
  std::thread stopper([&] { a->Shutdown(); });
  absl::SleepFor(absl::Milliseconds(300));
  let_go.Notify();
  stopper.join();
  EXPECT_EQ(a->Metrics().in_flight, 0);
  // The next owner runs the row (its first attempt's outcome was refused).
  auto b = Start(Options("node-b"));
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(Succeeded("t", absl::Seconds(20)));
  b->Shutdown();
  EXPECT_EQ(b->Metrics().in_flight, 0);
}

// `in_flight` is "Handlers running now". While a fire statement is in the
// database and no handler runs, today's engine counts the rows it fires
// (1 here); it must not count every free place of the scheduler.
TEST_F(SlotReviewTest, InFlightCountsNoReservationWhileAFireIsInTheDatabase) {
  DurableOptions options = Options("a");
  options.max_in_flight = 16;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  auto gate = StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE",
                                     "SET state = 2");
  ASSERT_TRUE(gate.ok()) << gate.status();
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(10)));
  const int64_t in_flight = scheduler->Metrics().in_flight;
  (*gate)->Release();
  EXPECT_LE(in_flight, 1) << "no handler runs while the fire is held";
  ASSERT_TRUE(Succeeded("t"));
  EXPECT_TRUE(WaitFor([&] { return scheduler->Metrics().in_flight == 0; }));
  scheduler->Shutdown();
}

}  // namespace
}  // namespace timingwheel
