// Copyright 2026 The timingwheel Authors.
//
// The fire by slot (DurableOptions::fire_by_slot) where its features meet,
// each interleaving forced. Built twice: fire_by_slot_test (the fire by
// slot, env TIMINGWHEEL_FIRE_BY_SLOT=1) and fire_by_slot_today_test
// (today's engine), so that each check holds for both.

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/statement_gate.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::DurableFixture;
using durable_test::Gate;
using durable_test::WaitFor;
using durable_testing::StatementGate;
using durable_testing::StoreLock;

class FireBySlotTest : public DurableFixture {
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

  // The handler of the task "gate" says it entered, then waits for `gate`.
  void HoldTheGateTask(Gate& gate, std::atomic<bool>& entered) {
    recorder_.SetResult([&gate, &entered](const DurableTask& task) {
      if (task.id == "gate") {
        entered = true;
        gate.Wait();
      }
      return absl::OkStatus();
    });
  }

  // A scheduler whose handler fails the first attempt of "r" once `gate`
  // opens (`entered` says it began) and runs everything else; retries due
  // 300 ms later, a horizon of two hours (no load comes to the rescue).
  std::unique_ptr<DurableScheduler> StartFailingRBehind(
      Gate& gate, std::atomic<bool>& entered, absl::Duration lease_ttl) {
    recorder_.SetResult([&gate, &entered](const DurableTask& task) {
      if (task.id != "r" || task.attempt > 1) return absl::OkStatus();
      entered = true;
      gate.Wait();
      return absl::UnavailableError("first attempt fails");
    });
    DurableOptions options = Options("a");
    options.lease_ttl = lease_ttl;
    options.horizon = absl::Hours(2);
    options.retry.max_attempts = 3;
    options.retry.initial_backoff = absl::Milliseconds(300);
    return Start(options);
  }

  // The ids the handler saw, in the order they started, "gate" left out.
  std::vector<std::string> StartOrder() {
    std::vector<std::string> order;
    for (const durable_test::Recorder::Call& call : recorder_.calls()) {
      if (call.task.id != "gate") order.push_back(call.task.id);
    }
    return order;
  }
};

// README ("Task kinds, priorities"): "Among due tasks waiting for a handler
// slot, higher `priority` starts first (ties in due order)". The only place
// is busy; a low-priority task becomes due, then a high-priority one; both
// wait; when the place frees, the high-priority one must start first.
TEST_F(FireBySlotTest, HigherPriorityStartsFirstAmongWaitingDueTasks) {
  Gate gate;
  std::atomic<bool> gate_entered{false};
  HoldTheGateTask(gate, gate_entered);
  DurableOptions options = Options("a");
  options.max_in_flight = 1;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(
      scheduler->ScheduleBatch({Request("gate", absl::ZeroDuration(), 0)})
          .ok());
  ASSERT_TRUE(WaitFor([&] { return gate_entered.load(); }));
  ASSERT_TRUE(
      scheduler
          ->ScheduleBatch({Request("low", absl::ZeroDuration(), -5),
                           Request("high", absl::Milliseconds(200), 10)})
          .ok());
  // Both due (and waiting for the one place) well before it frees.
  absl::SleepFor(absl::Milliseconds(2000));
  gate.Open();
  ASSERT_TRUE(Succeeded("low"));
  ASSERT_TRUE(Succeeded("high"));
  EXPECT_EQ(StartOrder(), (std::vector<std::string>{"high", "low"}));
}

// The same across slots: 64 slots, low-priority tasks due first in more
// slots than a fire names for one place (kMinSlotsNamed), and a
// high-priority one due later in a slot of its own, all waiting for the
// one place. The high-priority task must still start first when the place
// frees.
TEST_F(FireBySlotTest, HigherPriorityInAnotherSlotStartsFirst) {
  Gate gate;
  std::atomic<bool> gate_entered{false};
  HoldTheGateTask(gate, gate_entered);
  constexpr int kSlots = 64;
  DurableOptions options = Options("a");
  options.max_in_flight = 1;
  options.slot_count = kSlots;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(
      scheduler->ScheduleBatch({Request("gate", absl::ZeroDuration(), 0)})
          .ok());
  ASSERT_TRUE(WaitFor([&] { return gate_entered.load(); }));
  std::vector<ScheduleRequest> low;
  std::set<int> low_slots;
  for (int i = 0; i < 40; ++i) {
    low.push_back(Request(absl::StrCat("low-", i), absl::ZeroDuration(), -5));
    low_slots.insert(durable_internal::SlotFor(low.back().id, kSlots));
  }
  ASSERT_GT(low_slots.size(), 20u);
  std::string high = "high";
  for (int i = 0; low_slots.count(durable_internal::SlotFor(high, kSlots)) > 0;
       ++i) {
    high = absl::StrCat("high-", i);
  }
  ASSERT_TRUE(scheduler->ScheduleBatch(low).ok());
  ASSERT_TRUE(
      scheduler->ScheduleBatch({Request(high, absl::Milliseconds(200), 10)})
          .ok());
  // All due (and waiting for the one place) well before it frees.
  absl::SleepFor(absl::Milliseconds(2000));
  gate.Open();
  for (const ScheduleRequest& r : low) ASSERT_TRUE(Succeeded(r.id));
  ASSERT_TRUE(Succeeded(high));
  const std::vector<std::string> order = StartOrder();
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front(), high);
}

// One attempt of a task at a time per process. The row of an attempt
// still running here is taken from this process and given back (as in
// LeaseRenewalTest.ARowGivenBackWaitsForItsAttemptStillRunningHere): it is
// held behind its own attempt. Then the process loses its slot (renewals
// time out past the TTL) and takes it back. The held attempt was dropped
// with the slot; the first attempt still runs here. The row must not be
// started beside it.
TEST_F(FireBySlotTest, HeldRowDroppedWithItsSlotNeverRunsBesideItsAttempt) {
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
TEST_F(FireBySlotTest, ShutdownWithAHeldAttemptLosesNothing) {
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
TEST_F(FireBySlotTest, InFlightCountsNoReservationWhileAFireIsInTheDatabase) {
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

// A replacement moves an armed row later: it runs once, at its new time,
// with its new payload (ReplaceTest's check without waiting for SCHEDULED,
// which the fire by slot never writes).
TEST_F(FireBySlotTest, AnArmedRowMovedLaterRunsOnceAtItsNewTime) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  // Far enough that a loaded machine replaces it before it is due.
  ASSERT_TRUE(scheduler->Schedule("t", absl::Seconds(2), "old").ok());
  absl::SleepFor(absl::Milliseconds(300));  // Its slot armed at +2 s.
  ScheduleRequest r;
  r.id = "t";
  r.payload = "new";
  r.delay = absl::Seconds(3);
  auto outcome = scheduler->ScheduleOrReplace(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  ASSERT_TRUE(Succeeded("t"));
  std::vector<durable_test::Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u) << "ran at the old time and the new one";
  EXPECT_EQ(calls[0].task.payload, "new");
  EXPECT_GE(calls[0].at, calls[0].task.due) << "ran before its new due time";
  EXPECT_EQ(calls[0].task.attempt, 1);
}

// A replacement moves an armed row earlier: it runs at its new time, not
// at the time its slot was armed for.
TEST_F(FireBySlotTest, AnArmedRowMovedEarlierRunsAtItsNewTime) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Seconds(8), "old").ok());
  absl::SleepFor(absl::Milliseconds(300));  // Its slot armed at +8 s.
  ScheduleRequest r;
  r.id = "t";
  r.payload = "new";
  r.delay = absl::Milliseconds(200);
  const absl::Time asked = absl::Now();
  auto outcome = scheduler->ScheduleOrReplace(r);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  ASSERT_TRUE(Succeeded("t", absl::Seconds(6))) << "not run at its new time";
  std::vector<durable_test::Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.payload, "new");
  // Well before the 8 s it was armed for.
  EXPECT_LT(calls[0].at - asked, absl::Seconds(5));
}

// CapacityTest.AFreePlaceStartsADueTaskWhileTheOthersAreBusy without its
// wait on `waiting` (always 0 by slot): 8 places, 7 long handlers (one of
// kind "one", limited to 1), the 8th freed; "one-2" (priority 9, its kind
// at its limit), "high" (5) and "low" (0) come due meanwhile.
TEST_F(FireBySlotTest, AFreePlaceStartsADueTaskWhileAKindIsAtItsLimit) {
  testing::PoolExecutor executor(10);
  Gate freed, rest;
  std::mutex mu;
  std::vector<std::string> log;
  auto index_of = [&](const std::string& id) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = std::find(log.begin(), log.end(), id);
    return it == log.end() ? -1 : static_cast<int>(it - log.begin());
  };
  DurableHandler handler = [&](const DurableTask& task) {
    {
      std::lock_guard<std::mutex> lock(mu);
      log.push_back(task.id);
    }
    if (task.id == "freed") freed.Wait();
    if (task.id.rfind("long", 0) == 0) rest.Wait();
    return absl::OkStatus();
  };
  DurableOptions options = Options("a");
  options.handler = handler;
  options.max_in_flight = 8;
  options.executor = &executor;
  options.kinds = {TaskKind{"one", handler, 1}};
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  auto due = [](const std::string& id, const std::string& kind, int priority) {
    ScheduleRequest r;
    r.id = id;
    r.payload = "p";
    r.kind = kind;
    r.priority = priority;
    return r;
  };
  std::vector<ScheduleRequest> busy;
  for (int i = 0; i < 6; ++i)
    busy.push_back(due("long" + std::to_string(i), "", 0));
  busy.push_back(due("long-one", "one", 0));
  busy.push_back(due("freed", "", 0));
  ASSERT_TRUE(s->ScheduleBatch(busy).ok());
  ASSERT_TRUE(WaitFor(
      [&] { return index_of("freed") >= 0 && index_of("long-one") >= 0; }));
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 8; }));
  ASSERT_TRUE(s->ScheduleBatch({due("one-2", "one", 9), due("low", "", 0),
                                due("high", "", 5)})
                  .ok());
  absl::SleepFor(absl::Milliseconds(500));
  freed.Open();
  const bool ran =
      WaitFor([&] { return index_of("high") >= 0 && index_of("low") >= 0; },
              absl::Seconds(10));
  const int64_t in_flight = s->Metrics().in_flight;
  const int one_2 = index_of("one-2");
  rest.Open();
  ASSERT_TRUE(ran) << "the free place stayed idle with due tasks waiting";
  EXPECT_LT(index_of("high"), index_of("low"));
  EXPECT_EQ(one_2, -1) << "a kind at its limit took the free place";
  EXPECT_EQ(in_flight, 7);
  EXPECT_TRUE(WaitFor([&] { return index_of("one-2") >= 0; }));
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 0; }));
  s->Shutdown();
}

// The fire statements run so far (start_running's histogram count).
int64_t FireStatements(const DurableScheduler& s) {
  std::istringstream text(s.RenderPrometheus());
  std::string line;
  const std::string key = "statement_duration_seconds_count";
  while (std::getline(text, line)) {
    if (line.find(key) != std::string::npos &&
        line.find("start_running") != std::string::npos) {
      return std::stoll(line.substr(line.rfind(' ') + 1));
    }
  }
  return -1;
}

// docs/durable-core-plan.md step 3: "A slot whose next due time is still
// due after a fire that started nothing waits for an attempt to end (or a
// notification), not for the next round: otherwise a kind at its limit
// spins the loop." A kind at its limit of 1, its handler held 2 s, a second
// task of it due: the fire statement must not run over and over meanwhile.
TEST_F(FireBySlotTest, AKindAtItsLimitDoesNotSpinTheFire) {
  Gate gate;
  std::atomic<int> calls{0};
  TaskKind one;
  one.name = "one";
  one.max_in_flight = 1;
  one.handler = [&](const DurableTask&) {
    ++calls;
    gate.Wait();
    return absl::OkStatus();
  };
  testing::PoolExecutor pool(4);
  DurableOptions options = Options("a");
  options.kinds = {one};
  options.executor = &pool;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ScheduleRequest r1, r2;
  r1.id = "one-1";
  r1.payload = "p";
  r1.kind = "one";
  r2 = r1;
  r2.id = "one-2";
  ASSERT_TRUE(s->ScheduleBatch({r1, r2}).ok());
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 1; }));
  absl::SleepFor(absl::Milliseconds(200));
  const int64_t before = FireStatements(*s);
  absl::SleepFor(absl::Seconds(2));
  const int64_t during = FireStatements(*s) - before;
  gate.Open();
  EXPECT_TRUE(Succeeded("one-1"));
  EXPECT_TRUE(Succeeded("one-2"));
  s->Shutdown();
  EXPECT_GE(before, 0);
  EXPECT_LE(during, 4) << during
                       << " fire statements in 2 s with nothing to start";
}

// DurableSchedulerTest.ProcessClockAheadOfTheDatabaseNeverFiresEarly in
// the slot form (no SCHEDULED state): the process clock jumps 10 s ahead;
// the slot's task fires, the database says not due, the slot is re-armed
// from the clock read after the fire, and the task never runs early.
TEST_F(FireBySlotTest, ProcessClockAheadNeverFiresEarly) {
  ::timingwheel::testing::ManualClock clock;
  DurableOptions options = Options("a");
  options.timer_options.clock = &clock;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("early?", absl::Seconds(1), "p").ok());
  const absl::Time due = s->Get("early?")->due;
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().wheel_pending == 1; }));
  clock.AdvanceBy(absl::Seconds(10));
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().not_due >= 1; }));
  EXPECT_EQ(recorder_.size(), 0u);
  ASSERT_TRUE(WaitFor([&] {
    clock.AdvanceBy(absl::Milliseconds(100));
    return recorder_.size() == 1;
  }));
  EXPECT_GE(recorder_.calls()[0].at, due);
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 0; }));
  s->Shutdown();
}

// A row that comes due while a fire statement is in the database (after
// its due check): the fire started nothing and reads the row as due by
// its later clock; the slot must stay due, not wait for an attempt to end
// (none will). Forced: the process clock runs ahead, so the slot fires
// early, and its statement waits on the lease row (held FOR UPDATE) until
// the database's clock has passed the row's due time.
TEST_F(FireBySlotTest, ARowDueDuringItsFireStatementStillRuns) {
  ::timingwheel::testing::ManualClock clock;
  DurableOptions options = Options("a");
  options.timer_options.clock = &clock;
  options.lease_ttl = absl::Seconds(10);  // Renewals wait on the lock too.
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  if (s->Metrics().fire_by_slot == 0) {
    GTEST_SKIP() << "slots are parked by the fire by slot only";
  }
  ASSERT_TRUE(s->Schedule("t", absl::Seconds(1), "p").ok());
  const absl::Time due = s->Get("t")->due;
  auto row = Store().Task("t");
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().wheel_pending == 1; }));
  auto lock = StoreLock::LockLease(db_->conninfo(), row->slot);
  ASSERT_TRUE(lock.ok()) << lock.status();
  clock.AdvanceBy(absl::Seconds(10));  // The slot's task fires early.
  ASSERT_TRUE(WaitForLockWaiter("FOR KEY SHARE OF l"))
      << "no fire statement waited on the lease row";
  ASSERT_TRUE(WaitFor([&] {
    auto now = Store().DbNowUs();
    return now.ok() && *now > absl::ToUnixMicros(due) + 100 * 1000;
  }));
  lock->reset();
  EXPECT_TRUE(Succeeded("t")) << "the slot was parked with its row due";
  ASSERT_EQ(recorder_.size(), 1u);
  EXPECT_GE(recorder_.calls()[0].at, due);
  s->Shutdown();
}

// Review: two slots, two free places, three due rows written at once
// (slot 0: "h1" and "h2", priority 10; slot 1: "low", priority 0). All
// three wait for the two places: the two of priority 10 must take them.
// The fire names both slots and gives each a share of the limit (one row
// each), so "low" started beside "h1" while "h2" waited.
TEST_F(FireBySlotTest, ASlotsShareDoesNotLetALowerPriorityOvertake) {
  testing::PoolExecutor pool(4);
  Gate gate;
  std::mutex mu;
  std::vector<std::string> started;
  recorder_.SetResult([&](const DurableTask& task) {
    {
      std::lock_guard<std::mutex> lock(mu);
      started.push_back(task.id);
    }
    gate.Wait();
    return absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.max_in_flight = 2;
  options.slot_count = 2;
  options.executor = &pool;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == 2; }));
  auto row = [](const std::string& id, int slot, int priority) {
    durable_testing::InsertedTask t;
    t.id = id;
    t.slot = slot;
    t.priority = priority;
    t.due_in_us = int64_t{2} * 3600 * 1000 * 1000;  // Past the horizon.
    return t;
  };
  // Written past the horizon (1 h), then all three made due at once by
  // one statement: a load, however late the first ones come (sanitizers),
  // sees the three together or none.
  Insert(row("h1", 0, 10));
  Insert(row("h2", 0, 10));
  Insert(row("low", 1, 0));
  Exec(
      "UPDATE tw_timer SET due_us = tw_now_us() - 100000 "
      "WHERE task_id IN ('h1'::bytea, 'h2'::bytea, 'low'::bytea)");
  Exec("SELECT pg_notify('timingwheel', '*')");
  const bool two = WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return started.size() >= 2;
  });
  absl::SleepFor(absl::Milliseconds(200));  // Let a third (wrongly) start.
  std::vector<std::string> first;
  {
    std::lock_guard<std::mutex> lock(mu);
    first = started;
  }
  gate.Open();
  ASSERT_TRUE(two) << "the two places stayed idle";
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"h1", "h2"}))
      << "a lower priority took a place while a higher one waited";
  EXPECT_TRUE(Succeeded("low"));
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 0; }));
  s->Shutdown();
}

// Review: one free place; slot 0's best row is of a kind at its limit
// ("one-2", priority 10) beside "low" (priority 0); slot 1 holds "mid"
// (priority 5). "mid" and "low" both wait for the place: "mid" must take
// it. The fire names one slot per free place by its best row's priority
// (slot 0, for a row that cannot start), so "low" started first.
TEST_F(FireBySlotTest, AKindAtItsLimitDoesNotLetALowerPriorityOvertake) {
  testing::PoolExecutor pool(4);
  Gate gate;
  std::mutex mu;
  std::vector<std::string> started;
  DurableHandler handler = [&](const DurableTask& task) {
    {
      std::lock_guard<std::mutex> lock(mu);
      started.push_back(task.id);
    }
    gate.Wait();
    return absl::OkStatus();
  };
  DurableOptions options = Options("a");
  options.handler = handler;
  options.max_in_flight = 2;
  options.slot_count = 2;
  options.executor = &pool;
  options.kinds = {TaskKind{"one", handler, 1}};
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == 2; }));
  ScheduleRequest busy;
  busy.id = "long-one";
  busy.payload = "p";
  busy.kind = "one";
  ASSERT_TRUE(s->ScheduleBatch({busy}).ok());
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 1; }));
  auto row = [](const std::string& id, int slot, const std::string& kind,
                int priority) {
    durable_testing::InsertedTask t;
    t.id = id;
    t.slot = slot;
    t.kind = kind;
    t.priority = priority;
    t.due_in_us = int64_t{2} * 3600 * 1000 * 1000;  // Past the horizon.
    return t;
  };
  // Made due at once by one statement (see the test above).
  Insert(row("mid", 1, "", 5));
  Insert(row("one-2", 0, "one", 10));
  Insert(row("low", 0, "", 0));
  Exec(
      "UPDATE tw_timer SET due_us = tw_now_us() - 100000 "
      "WHERE task_id IN ('mid'::bytea, 'one-2'::bytea, 'low'::bytea)");
  Exec("SELECT pg_notify('timingwheel', '*')");
  const bool two = WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return started.size() >= 2;
  });
  absl::SleepFor(absl::Milliseconds(200));
  std::vector<std::string> first;
  {
    std::lock_guard<std::mutex> lock(mu);
    first = started;
  }
  gate.Open();
  ASSERT_TRUE(two) << "the free place stayed idle";
  EXPECT_EQ(first, (std::vector<std::string>{"long-one", "mid"}))
      << "a lower priority took the place while a higher one waited";
  EXPECT_TRUE(Succeeded("low"));
  EXPECT_TRUE(Succeeded("one-2"));
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 0; }));
  s->Shutdown();
}

// Review: a kind of limit 2 holds "t" running and its row fired again
// held behind that attempt (both places of the kind). "u", of the kind,
// comes due: its slot is parked. A CancelTask("t") stops the held attempt
// (abandoned: a place of the kind is free again) while the first attempt
// of "t" still runs. "u" must take the free place at once, not wait for
// that attempt to end or for the next load (half the horizon).
TEST_F(FireBySlotTest, AHeldAttemptStoppedFreesItsPlaceForAParkedSlot) {
  testing::PoolExecutor pool(4);
  absl::Notification first_started, let_go;
  std::atomic<int> t_calls{0};
  std::atomic<bool> u_started{false};
  DurableHandler handler = [&](const DurableTask& task) {
    if (task.id == "u") {
      u_started = true;
    } else if (t_calls.fetch_add(1) == 0) {
      first_started.Notify();
      let_go.WaitForNotificationWithTimeout(absl::Seconds(60));
    }
    return absl::OkStatus();
  };
  DurableOptions options = Options("a");
  options.handler = handler;
  options.executor = &pool;
  options.kinds = {TaskKind{"k", handler, 2}};
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  if (s->Metrics().fire_by_slot == 0) {
    GTEST_SKIP() << "slots are parked by the fire by slot only";
  }
  ScheduleRequest t;
  t.id = "t";
  t.payload = "p";
  t.kind = "k";
  ASSERT_TRUE(s->ScheduleBatch({t}).ok());
  ASSERT_TRUE(first_started.WaitForNotificationWithTimeout(absl::Seconds(15)));
  // Taken from this process and given back: fired again, held behind its
  // own attempt (the kind's second place).
  Exec(
      "UPDATE tw_timer SET state = 0, version = nextval('tw_version_seq') "
      "WHERE task_id = 't'");
  Exec("SELECT pg_notify('timingwheel', '0')");
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().held_behind_own_attempt >= 1; },
                      absl::Seconds(15)));
  durable_testing::InsertedTask u;
  u.id = "u";
  u.kind = "k";
  u.due_in_us = -100 * 1000;
  Insert(u);
  Exec("SELECT pg_notify('timingwheel', '0')");
  absl::SleepFor(absl::Milliseconds(500));  // "u"'s slot fired and parked.
  ASSERT_FALSE(u_started.load()) << "the kind's limit did not hold";
  // Nothing can start meanwhile: the fire must not run over and over (as
  // in AKindAtItsLimitDoesNotSpinTheFire).
  const int64_t before = FireStatements(*s);
  absl::SleepFor(absl::Seconds(1));
  const int64_t during = FireStatements(*s) - before;
  EXPECT_LE(during, 4) << during << " fire statements in 1 s with nothing "
                       << "to start (a held attempt in the slot)";
  auto cancelled = s->CancelTask("t");
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(*cancelled, CancelOutcome::kStopRequested);
  const bool ran = WaitFor([&] { return u_started.load(); }, absl::Seconds(5));
  let_go.Notify();
  EXPECT_TRUE(ran) << "the place freed by the stopped held attempt stayed "
                      "idle while \"u\" was due";
  EXPECT_TRUE(Succeeded("u"));
  EXPECT_TRUE(WaitFor([&] { return s->Metrics().in_flight == 0; }));
  s->Shutdown();
}

// Review (1eba0a0): a fire of more than 256 places names one due slot per
// 16 places, chosen by each slot's best row. 17 slots each hold one row of
// priority 10 and 15 of priority 0; an 18th holds "mid" (priority 9). All
// are due and wait for 257 places: by the README ("among due tasks waiting
// for a place, higher priority starts first") "mid" must take a place
// before any row of priority 0. The fire named the 17 slots only (their
// best rows, 10, rank above 9) and filled every place from them, 240 of
// them with rows of priority 0; "mid" then waited for a handler to end,
// not for the next fire. Before 1eba0a0 (one slot per place) it started.
TEST_F(FireBySlotTest, ALargeFireDoesNotLetANamedSlotsLowerRowsOvertake) {
  Gate gate;
  recorder_.SetResult([&gate](const DurableTask&) {
    gate.Wait();
    return absl::OkStatus();
  });
  constexpr int kSlots = 18;
  DurableOptions options = Options("a");
  options.max_in_flight = 257;
  options.slot_count = kSlots;
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == kSlots; }));
  // One statement: a load sees all of them or none (horizon 1 h: normally
  // none before the notification).
  Exec(
      "INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, attempt, "
      "payload, kind, priority) "
      "SELECT convert_to(id, 'UTF8'), slot, tw_now_us() - 100000, 0, 0, 0, "
      "'p'::bytea, '', priority FROM ("
      "  SELECT 'low-' || s || '-' || i AS id, s AS slot, 0 AS priority"
      "  FROM generate_series(0, 16) s, generate_series(0, 14) i"
      "  UNION ALL SELECT 'top-' || s, s, 10 FROM generate_series(0, 16) s"
      "  UNION ALL SELECT 'mid', 17, 9) r");
  Exec("SELECT pg_notify('timingwheel', '*')");
  // Started (their fire statements returned), not only reserved:
  // in_flight counts a batch's places before its statement commits.
  const bool full = WaitFor([&] { return s->Metrics().attempts == 257; });
  const int64_t mid =
      Count(durable_testing::TaskMatch().Id("mid").State(TaskState::kRunning));
  const int64_t low =
      Query("SELECT count(*) FROM tw_timer WHERE state = 2 AND priority = 0");
  gate.Open();
  ASSERT_TRUE(full) << "the 257 places were not all taken";
  EXPECT_EQ(mid, 1) << "\"mid\" (priority 9) waited while " << low
                    << " rows of priority 0 took places";
  EXPECT_TRUE(Succeeded("mid", absl::Seconds(60)));
  EXPECT_TRUE(
      WaitFor([&] { return s->Metrics().in_flight == 0; }, absl::Seconds(60)));
  s->Shutdown();
}

// The outcome writers write beside the fire: a retry written while a fire
// statement of its slot is in the database (after that statement read the
// slot's next row) must keep its slot armed. The fire is held on its
// UPDATE (its snapshot taken), the failing attempt's retry is written by a
// writer meanwhile, then the fire returns "nothing waits" for the slot;
// with its arm taken as exact, the retry waited for the next load (half
// the horizon, an hour here).
TEST_F(FireBySlotTest, ARetryWrittenDuringAFireKeepsItsSlotArmed) {
  Gate gate;
  std::atomic<bool> entered{false};
  // The held fire's statement timeout: 2 s.
  auto s = StartFailingRBehind(gate, entered, absl::Seconds(8));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Schedule("r", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return entered.load(); }));
  auto fire_gate = StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE",
                                          "SET state = 2");
  ASSERT_TRUE(fire_gate.ok()) << fire_gate.status();
  ASSERT_TRUE(s->Schedule("x", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE((*fire_gate)->WaitBlocked(absl::Seconds(10)));
  gate.Open();  // "r" fails; a writer writes its retry.
  const bool retried =
      WaitFor([&] { return s->Metrics().retried >= 1; }, absl::Seconds(10));
  (*fire_gate)->Release();
  ASSERT_TRUE(retried) << "the retry was not written beside the held fire";
  ASSERT_TRUE(Succeeded("x"));
  EXPECT_TRUE(Succeeded("r", absl::Seconds(10)))
      << "the retry waited for the next load";
  s->Shutdown();
}

// The same seam for the load: a retry written by an outcome writer while a
// load of its slot (NextDueBySlot(), a SELECT) is in the database, after
// the load read the slot ("r" RUNNING: nothing waits there), must keep its
// arm. The load is held inside its statement by a function it calls
// (tw_now_us(), replaced here for that one statement) that runs an UPDATE
// a StatementGate holds. Its exact arm ("nothing waits") must not undo the
// retry's arm, or the retry waits for the next load (an hour here).
TEST_F(FireBySlotTest, ARetryWrittenDuringALoadKeepsItsSlotArmed) {
  Gate gate;
  std::atomic<bool> entered{false};
  // The held load's statement timeout: 5 s.
  auto s = StartFailingRBehind(gate, entered, absl::Seconds(20));
  ASSERT_NE(s, nullptr);
  if (s->Metrics().fire_by_slot == 0) {
    s->Shutdown();
    GTEST_SKIP() << "the fire by slot only";
  }
  ASSERT_TRUE(s->Schedule("r", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return entered.load(); }));
  Exec(
      "CREATE TABLE tw_review_probe (x int); "
      "INSERT INTO tw_review_probe VALUES (0); "
      "CREATE SEQUENCE tw_review_once");
  Exec(R"sql(
CREATE OR REPLACE FUNCTION tw_now_us() RETURNS bigint LANGUAGE plpgsql
VOLATILE AS $$
BEGIN
  IF position('LEFT JOIN next s ON true' in current_query()) > 0 THEN
    IF nextval('tw_review_once') = 1 THEN
      UPDATE tw_review_probe SET x = x + 1;
    END IF;
  END IF;
  RETURN (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
END $$)sql");
  auto load_gate = StatementGate::Install(db_->conninfo(), "tw_review_probe",
                                          "UPDATE", "LEFT JOIN next s ON true");
  ASSERT_TRUE(load_gate.ok()) << load_gate.status();
  Exec("SELECT pg_notify('timingwheel', '*')");  // A load of every slot.
  ASSERT_TRUE((*load_gate)->WaitBlocked(absl::Seconds(10)));
  gate.Open();  // "r" fails; a writer writes its retry.
  const bool retried =
      WaitFor([&] { return s->Metrics().retried >= 1; }, absl::Seconds(4));
  (*load_gate)->Release();
  ASSERT_TRUE(retried) << "the retry was not written beside the held load";
  EXPECT_TRUE(Succeeded("r", absl::Seconds(10)))
      << "the retry waited for the next load";
  s->Shutdown();
}

}  // namespace
}  // namespace timingwheel
