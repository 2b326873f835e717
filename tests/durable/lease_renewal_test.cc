// Copyright 2026 The timingwheel Authors.
//
// The leases are renewed on a thread and connection of their own: a
// maintenance thread held between statements for longer than the TTL, or a
// load held inside the server with its lease row locked, does not delay a
// renewal; a maintenance thread wedged past the stall limit stops the
// renewals, and a live process takes its slots. Each window is forced: the
// maintenance thread is held at a fault point, the load at a trigger, the
// renewer at its own fault point.

#include <algorithm>
#include <atomic>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/pause_points.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/statement_gate.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::DurableFixture;
using durable_test::WaitFor;
using durable_testing::PausePoint;
using durable_testing::StatementGate;
using durable_testing::StoreLock;

// The horizon load, by a piece of its text (durable/sql/store_attempts.cc).
constexpr char kLoadSql[] = "SET state = 1, epoch = c.epoch";

class LeaseRenewalTest : public DurableFixture {
 protected:
  // Slot 0's lease row (the fixture's stores have one slot).
  durable_testing::LeaseRow Lease() {
    auto lease = Store().Lease(0);
    EXPECT_TRUE(lease.ok()) << lease.status();
    return lease.ok() ? *lease : durable_testing::LeaseRow();
  }
  int64_t LeaseUntil() { return Lease().lease_until_us; }
  // Waits (bounded) until the database's clock passes `until_us`.
  bool WaitForDbTime(int64_t until_us) {
    return WaitFor([&] {
      auto now = Store().DbNowUs();
      return now.ok() && *now > until_us;
    });
  }
};

// The maintenance thread holds claimed rows it has not put in its wheel yet
// for two TTLs (under the stall limit of 2 TTLs + 4 statement timeouts):
// the lease is renewed meanwhile, a second process takes nothing, and the
// task runs once, in the first.
TEST_F(LeaseRenewalTest, AMaintenanceThreadHeldPastTheTtlKeepsItsSlot) {
  auto a = Start(Options("node-a"));
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->Metrics().slots_owned, 1);
  const int64_t epoch = Lease().epoch;
  PausePoint claimed("load.claimed");
  ASSERT_TRUE(a->Schedule("t", absl::Milliseconds(300), "p").ok());
  ASSERT_TRUE(claimed.WaitReached(absl::Seconds(10)));
  const int64_t held_from = LeaseUntil();
  ASSERT_TRUE(WaitForDbTime(held_from + 1'000'000));  // One TTL past.
  auto b = Start(Options("node-b"));
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(WaitForDbTime(held_from + 1'500'000));
  const durable_testing::LeaseRow held = Lease();
  EXPECT_EQ(held.owner.value_or(""), "node-a");
  EXPECT_EQ(held.epoch, epoch);
  EXPECT_EQ(Value(Store().CountSlots(
                durable_testing::LeaseMatch().Owner("node-a").LeaseBeyond(0))),
            1)
      << "the lease ran out while the maintenance thread was held";
  EXPECT_EQ(b->Metrics().slots_owned, 0);
  claimed.Resume();
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_EQ(recorder_.size(), 1u);
  EXPECT_EQ(a->Metrics().slots_lost, 0);
}

// A load holds its lease row (FOR KEY SHARE) inside the server: a renewal
// released while it waits commits at once (it does not wait for the load's
// lock), and the load then completes.
TEST_F(LeaseRenewalTest, ARenewalDoesNotWaitForALoadInFlight) {
  DurableOptions options = Options("node-a");
  // Rounds every 4 s; statements (the held load too) end after 3 s.
  options.lease_ttl = absl::Seconds(12);
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  PausePoint renew("renew.before");
  ASSERT_TRUE(renew.WaitReached(absl::Seconds(10)));
  auto gate =
      StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE", kLoadSql,
                             StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  ASSERT_TRUE(a->Schedule("t", absl::Milliseconds(300), "p").ok());
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(10)));
  const int64_t before = LeaseUntil();
  renew.Resume();
  EXPECT_TRUE(WaitFor([&] { return LeaseUntil() > before; }, absl::Seconds(2)))
      << "the renewal waited for the load's lock on the lease row";
  (*gate)->Release();
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_EQ(recorder_.size(), 1u);
}

// A fire committed RUNNING and its handler is about to start when the lease
// turns out lost (expired here by hand, as a stall would; a second process
// takes the slot): the renewal that finds it lost publishes its validity
// only after the slot stopped counting as held, so the handler does not
// start in the first process; the second runs the task.
TEST_F(LeaseRenewalTest,
       ARenewalThatFindsTheSlotTakenStopsAHandlerAboutToStart) {
  auto a = Start(Options("node-a"));
  ASSERT_NE(a, nullptr);
  PausePoint started("fire.started");
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(started.WaitReached(absl::Seconds(10)));
  PausePoint before("renew.before");
  ASSERT_TRUE(before.WaitReached(absl::Seconds(10)));
  ExpireLeases();
  auto b = Start(Options("node-b"));
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->Metrics().slots_owned, 1);
  PausePoint after("renew.after");
  before.Resume();
  ASSERT_TRUE(after.WaitReached(absl::Seconds(10)));
  after.Resume();
  started.Resume();
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_TRUE(WaitFor([&] { return a->Metrics().abandoned >= 1; }))
      << "node-a's attempt was neither abandoned nor run";
  b->Shutdown();
  a->Shutdown();
  EXPECT_EQ(recorder_.size(), 1u) << "node-a ran the handler, fenced out";
}

// A maintenance thread held past the stall limit (2 TTLs + 4 statement
// timeouts: 3 s here) is treated as wedged: its renewals stop, a second
// process takes the slot and runs the task, and the first, let go, learns
// it lost the slot and runs nothing.
TEST_F(LeaseRenewalTest, AWedgedMaintenanceThreadLosesItsSlot) {
  auto a = Start(Options("node-a"));
  ASSERT_NE(a, nullptr);
  PausePoint claimed("load.claimed");
  ASSERT_TRUE(a->Schedule("t", absl::Milliseconds(300), "p").ok());
  ASSERT_TRUE(claimed.WaitReached(absl::Seconds(10)));
  auto b = Start(Options("node-b"));
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(
      WaitFor([&] { return b->Metrics().slots_owned == 1; }, absl::Seconds(15)))
      << "the held process kept renewing its lease";
  EXPECT_TRUE(Succeeded("t"));
  claimed.Resume();
  EXPECT_TRUE(WaitFor([&] { return a->Metrics().slots_lost >= 1; }));
  b->Shutdown();
  a->Shutdown();
  EXPECT_EQ(recorder_.size(), 1u);
}

// The renewer stalls past the TTL with an attempt fired and queued behind
// a running handler (one executor thread). The maintenance thread forgets
// the slot; the renewer, let go, then renews a round holding no slot and
// sets a new validity. That validity vouches for no slot: the queued
// attempt, fired under the forgotten slot's epoch, must not start (another
// owner may run it). The slot leaves `owned_` before the renewer forgets
// it, so this holds whichever thread comes first.
TEST_F(LeaseRenewalTest,
       ARoundHoldingNoSlotDoesNotStartAnAttemptOfAForgottenOne) {
  testing::PoolExecutor pool(1);
  DurableOptions options = Options("node-a");
  options.executor = &pool;
  absl::Notification started, let_go;
  std::atomic<bool> second_ran{false};
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "first") {
      started.Notify();
      let_go.WaitForNotificationWithTimeout(absl::Seconds(60));
    } else {
      second_ran = true;
    }
    return absl::OkStatus();
  });
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Schedule("first", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(15)));
  ASSERT_TRUE(a->Schedule("second", absl::ZeroDuration(), "p").ok());
  // Fired (RUNNING) and queued behind "first" on the one executor thread.
  ASSERT_TRUE(WaitFor([&] {
    auto t = Store().Task("second");
    return t.ok() && t->state == TaskState::kRunning;
  }));
  PausePoint before("renew.before");
  ASSERT_TRUE(before.WaitReached(absl::Seconds(10)));
  PausePoint forgotten("leases.forgotten");
  ASSERT_TRUE(forgotten.WaitReached(absl::Seconds(15)))
      << "the slot was not forgotten after a TTL without renewals";
  PausePoint after("renew.after");
  before.Resume();
  ASSERT_TRUE(after.WaitReached(absl::Seconds(10)));
  after.Resume();
  // A fresh validity and the maintenance thread held: "second" reaches
  // BeginAttempt() now.
  let_go.Notify();
  EXPECT_TRUE(WaitFor([&] { return a->Metrics().abandoned >= 1; }))
      << "the queued attempt was neither abandoned nor run";
  EXPECT_FALSE(second_ran) << "an attempt of a forgotten slot started";
  forgotten.Resume();
  a->Shutdown();
}

// A handler is running when the process's renewals time out (its lease
// table locked) for longer than the TTL: the process forgets its slot,
// and once the lock is gone takes it back. The acquisition spares the
// attempt still running here: its row stays RUNNING under the same
// version (the new epoch only), the handler is not started a second time
// (a second executor thread is free to run it), and the first attempt's
// outcome commits.
TEST_F(LeaseRenewalTest, RetakingItsOwnSlotSparesTheAttemptStillRunning) {
  testing::PoolExecutor pool(2);
  DurableOptions options = Options("node-a");
  options.executor = &pool;
  absl::Notification started, let_go;
  std::atomic<int> calls{0};
  recorder_.SetResult([&](const DurableTask&) {
    if (calls.fetch_add(1) == 0) started.Notify();
    let_go.WaitForNotificationWithTimeout(absl::Seconds(60));
    return absl::OkStatus();
  });
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->Metrics().slots_owned, 1);
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(15)));
  auto before = Store().Task("t");
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->state, TaskState::kRunning);
  const durable_testing::LeaseRow held = Lease();
  {
    auto lock =
        StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kLeases);
    ASSERT_TRUE(lock.ok()) << lock.status();
    // Renewals time out; the process forgets its slot after a TTL, and the
    // lease runs out in the database too.
    EXPECT_TRUE(WaitFor([&] { return a->Metrics().slots_lost >= 1; },
                        absl::Seconds(15)));
    ASSERT_TRUE(WaitForDbTime(held.lease_until_us));
  }
  ASSERT_TRUE(WaitFor(
      [&] {
        return a->Metrics().slots_owned == 1 && Lease().epoch > held.epoch;
      },
      absl::Seconds(15)))
      << "node-a did not take its slot back";
  EXPECT_EQ(Lease().owner.value_or(""), "node-a");
  auto after = Store().Task("t");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->state, TaskState::kRunning)
      << "the acquisition re-stamped the running attempt's row";
  EXPECT_EQ(after->version, before->version);
  EXPECT_EQ(after->epoch, Lease().epoch);
  let_go.Notify();
  EXPECT_TRUE(Succeeded("t"));
  a->Shutdown();
  EXPECT_EQ(recorder_.size(), 1u) << "the handler ran twice in one process";
  auto done = Store().Task("t");
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->attempt, 1);
  EXPECT_GE(a->Metrics().succeeded, 1);
}

// The row of an attempt still running here is taken from this process (as
// a takeover while it stalled does: PENDING, a new version) and comes back
// to it: the process loads it again, but fires it only once the attempt
// still running has ended, never beside it.
TEST_F(LeaseRenewalTest, ARowGivenBackWaitsForItsAttemptStillRunningHere) {
  testing::PoolExecutor pool(2);
  DurableOptions options = Options("node-a");
  options.executor = &pool;
  absl::Notification started, let_go;
  std::atomic<int> calls{0}, running{0}, most_at_once{0};
  recorder_.SetResult([&](const DurableTask&) {
    const int now = running.fetch_add(1) + 1;
    most_at_once.store(std::max(most_at_once.load(), now));
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
  ASSERT_TRUE(durable_testing::ExecSql(
                  db_->conninfo(),
                  "UPDATE tw_timer SET state = 0, "
                  "version = nextval('tw_version_seq') WHERE task_id = 't'")
                  .ok());
  ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(),
                                       "SELECT pg_notify('timingwheel', '0')")
                  .ok());
  const bool held_or_ran = WaitFor(
      [&] {
        return a->Metrics().held_behind_own_attempt >= 1 || calls.load() > 1;
      },
      absl::Seconds(15));
  EXPECT_EQ(calls.load(), 1) << "the handler ran beside its own attempt";
  let_go.Notify();
  ASSERT_TRUE(held_or_ran) << "the row given back was not loaded and fired";
  // The first attempt's outcome is refused (its row moved on); the row
  // given back runs after it.
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 2; }, absl::Seconds(15)));
  EXPECT_TRUE(Succeeded("t"));
  a->Shutdown();
  EXPECT_EQ(most_at_once.load(), 1);
}

// Two schedulers started at once with one node id: the first holds the id
// but has not written its first heartbeat yet (held before its first
// renewal, as a slow start or a blocked statement would hold it) when the
// second, after its quarter-TTL wait, judges it. A holder still starting is
// live: the second is refused, the first starts with its sessions intact.
TEST_F(LeaseRenewalTest, ASchedulerStillStartingIsNotTakenOver) {
  // A TTL far longer than the test's steps: the first is held well within
  // it (held past it, it would be stalled, and stale by definition).
  DurableOptions options = Options("node-a");
  options.lease_ttl = absl::Seconds(8);
  PausePoint first_renewal("renew.before");
  std::unique_ptr<DurableScheduler> a;
  std::thread starting([&] { a = Start(options); });
  ASSERT_TRUE(first_renewal.WaitReached(absl::Seconds(10)));
  auto b = DurableScheduler::Create(options);
  EXPECT_FALSE(b.ok()) << "a second scheduler started with the id of one "
                          "still starting";
  if (!b.ok()) {
    EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition)
        << b.status();
  }
  first_renewal.Resume();
  starting.join();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->Metrics().reconnects, 0) << "its sessions were ended";
  EXPECT_EQ(a->Metrics().node_id_lost, 0);
  if (b.ok()) (*b)->Shutdown();
}

// Review (2f600db): a peer killed right after taking slots (its leases
// outlive its heartbeat, each lapsing at its own instant) has each slot
// taken soon after its lease lapses, not a renewal round (TTL / 3) later;
// and once they are taken the survivor is idle again: about one
// renewal and one lease round per TTL / 3, nothing timed to lapses that
// no longer exist. The peer is written into the tables (a node row and
// four of the eight leases under new epochs), as a process would leave
// them when killed.
TEST_F(LeaseRenewalTest, AKilledPeersLeasesAreTakenAtTheirLapsesThenIdle) {
  constexpr int kSlots = 8;
  DurableOptions options = Options("survivor");
  options.slot_count = kSlots;
  options.lease_ttl = absl::Seconds(3);
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == kSlots; }));
  // Its heartbeat lapses 0.5 s from now; its leases 1.5 s to 2.1 s from
  // now, 0.2 s apart.
  Exec(
      "INSERT INTO tw_node (node_id, heartbeat_us) "
      "VALUES ('victim', tw_now_us() - 2500000)");
  Exec(
      "UPDATE tw_slot_lease SET owner = 'victim', epoch = epoch + 1, "
      "lease_until_us = tw_now_us() + 1500000 + (slot - 4) * 200000 "
      "WHERE slot >= 4");
  const int64_t last_lapse_us = Query(
      "SELECT max(lease_until_us) FROM tw_slot_lease WHERE owner = 'victim'");
  ASSERT_TRUE(
      WaitFor([&] { return s->Metrics().slots_owned == 4; }, absl::Seconds(5)));
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == kSlots; },
                      absl::Seconds(10)));
  const int64_t taken_us = Query("SELECT tw_now_us()");
  // The last lease lapsed at last_lapse_us; a round (1 s) later would be
  // the old behaviour. Leave room for a slow machine (TSan).
  EXPECT_LT(taken_us - last_lapse_us, 500 * 1000)
      << "the last slot was taken " << (taken_us - last_lapse_us) / 1000
      << " ms after its lease lapsed";
  // Idle: over 3 s (three rounds), about three renewals and three lease
  // rounds.
  auto lease_rounds = [&]() -> int64_t {
    std::istringstream text(s->RenderPrometheus());
    std::string line;
    while (std::getline(text, line)) {
      if (line.find("statement_duration_seconds_count") != std::string::npos &&
          line.find("lease_round") != std::string::npos) {
        return std::stoll(line.substr(line.rfind(' ') + 1));
      }
    }
    return int64_t{-1};
  };
  const int64_t before = lease_rounds();
  absl::SleepFor(absl::Seconds(3));
  const int64_t idle = lease_rounds() - before;
  EXPECT_GE(before, 0);
  EXPECT_LE(idle, 8) << idle << " lease statements in 3 s idle (TTL 3 s)";
  s->Shutdown();
}

}  // namespace
}  // namespace timingwheel
