// Copyright 2026 The timingwheel Authors.
//
// A kind's room for running attempts comes back on every path an attempt
// can end by: abandoned before it starts (the slot changed hands), a
// running task cancelled, an outcome written late (after Shutdown() stopped
// waiting). A kind limited to one attempt would stall for ever on a leak:
// each test runs a second task of that kind with a bounded wait. Also: a
// scheduler with kinds only (no default handler) snoozes default-kind
// tasks, and a late outcome writes its attempt record.

#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/pause_points.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"
#include "timer/executor.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

class KindReservationsTest : public DurableFixture {
 protected:
  ScheduleRequest Request(const std::string& id, const std::string& kind) {
    ScheduleRequest r;
    r.id = id;
    r.payload = "p";
    r.kind = kind;
    return r;
  }
  // A kind "one" with room for one attempt, running `recorder`'s handler.
  TaskKind One(Recorder* recorder) {
    TaskKind kind;
    kind.name = "one";
    kind.handler = recorder->Handler();
    kind.max_in_flight = 1;
    return kind;
  }
};

// The slot changes epoch between the fire and the attempt's start: the
// attempt is abandoned (requeued and run again), and its place in the kind
// comes back.
TEST_F(KindReservationsTest, AnAbandonedAttemptGivesItsKindsPlaceBack) {
  Recorder one;
  durable_testing::PausePoint before("attempt.before_start");
  DurableOptions options = Options("a");
  options.kinds = {One(&one)};
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  const int64_t epoch = MaxLeaseEpoch();
  ASSERT_TRUE(a->ScheduleBatch({Request("t1", "one")}).ok());
  ASSERT_TRUE(before.WaitReached(absl::Seconds(20)));
  // The lease runs out under a: a takes the slot again under a new epoch.
  ExpireLeases();
  ASSERT_TRUE(WaitFor([&] { return MaxLeaseEpoch() > epoch; }));
  before.Resume();
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().abandoned >= 1; }));
  ASSERT_TRUE(Succeeded("t1"));
  ASSERT_TRUE(a->ScheduleBatch({Request("t2", "one")}).ok());
  ASSERT_TRUE(Succeeded("t2"));
  ASSERT_TRUE(a->ScheduleBatch({Request("t3", "one")}).ok());
  ASSERT_TRUE(Succeeded("t3"));
  a->Shutdown();
}

// A running task of the limited kind is cancelled (its row deleted): its
// handler's outcome finds no row, writes no record, raises no error, and
// the kind's place comes back.
TEST_F(KindReservationsTest, ACancelledRunningTaskGivesItsKindsPlaceBack) {
  Gate gate;
  std::atomic<bool> entered{false};
  Recorder one;
  one.SetResult([&](const DurableTask& task) {
    if (task.id == "c1") {
      entered = true;
      gate.Wait();
    }
    return absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.kinds = {One(&one)};
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->ScheduleBatch({Request("c1", "one")}).ok());
  ASSERT_TRUE(WaitFor([&] { return entered.load(); }));
  auto cancelled = a->CancelTask("c1");
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  ASSERT_TRUE(a->ScheduleBatch({Request("c2", "one")}).ok());
  const int64_t errors = a->Metrics().db_errors;
  gate.Open();
  ASSERT_TRUE(Succeeded("c2"));
  ASSERT_TRUE(a->ScheduleBatch({Request("c3", "one")}).ok());
  ASSERT_TRUE(Succeeded("c3"));
  EXPECT_EQ(a->Metrics().db_errors, errors);
  EXPECT_EQ(Count(TaskMatch().Id("c1")), 0);
  EXPECT_EQ(Value(Store().CountAttempts("c1")), 0);
  a->Shutdown();
}

// Shutdown() stops waiting for a handler of the limited kind; its outcome
// is written late, by the handler's thread, with its attempt record.
TEST_F(KindReservationsTest, ALateOutcomeWritesItsRecord) {
  Gate gate;
  std::atomic<bool> entered{false};
  Recorder one;
  one.SetResult([&](const DurableTask&) {
    entered = true;
    gate.Wait();
    return absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.kinds = {One(&one)};
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->ScheduleBatch({Request("l1", "one")}).ok());
  ASSERT_TRUE(WaitFor([&] { return entered.load(); }));
  a->Shutdown();  // Waits half the lease TTL, then stops waiting.
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().late_outcomes == 1; }));
  EXPECT_EQ(a->Metrics().in_flight, 0);
  ASSERT_TRUE(Succeeded("l1"));
  EXPECT_EQ(Value(Store().CountAttempts("l1")), 1);
}

// A scheduler with kinds only: tasks of the default kind (scheduled by
// another) are snoozed with an error, their attempt not counted.
TEST_F(KindReservationsTest, WithoutADefaultHandlerDefaultTasksAreSnoozed) {
  {
    auto registrar = Start(Options("registrar"));
    ASSERT_NE(registrar, nullptr);
    ASSERT_TRUE(registrar->ScheduleBatch({Request("d", "")}).ok());
    ASSERT_TRUE(Succeeded("d"));
    registrar->Shutdown();
  }
  Recorder one;
  DurableOptions options = Options("kinds-only");
  options.handler = nullptr;
  options.kinds = {One(&one)};
  options.unknown_kind_delay = absl::Milliseconds(200);
  options.retry.max_attempts = 1;
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  InsertPending("u", 0);
  Exec("SELECT pg_notify('timingwheel', '*')");
  ASSERT_TRUE(a->ScheduleBatch({Request("k", "one")}).ok());
  ASSERT_TRUE(Succeeded("k"));
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().unknown_kind >= 2; },
                      absl::Seconds(30)));
  EXPECT_EQ(
      Count(TaskMatch().Id("u").StateBefore(TaskState::kRunning).Attempt(0)),
      1);
  EXPECT_EQ(one.size(), 1u);
  a->Shutdown();
}

// Every waiting task is of a kind at its limit: the maintenance thread
// sleeps (FireQueue::Ready() says no) rather than polling at 0 timeout. A
// spinning thread would burn about one CPU second per second of the window.
TEST_F(KindReservationsTest, WaitingOnlyForAFullKindDoesNotSpin) {
  Gate gate;
  std::atomic<int> entered{0};
  Recorder one;
  one.SetResult([&](const DurableTask&) {
    ++entered;
    gate.Wait();
    return absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.kinds = {One(&one)};
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->ScheduleBatch({Request("b1", "one"), Request("b2", "one"),
                                Request("b3", "one")})
                  .ok());
  ASSERT_TRUE(WaitFor(
      [&] { return entered.load() == 1 && a->Metrics().waiting == 2; }));
  const auto cpu_seconds = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  };
  const double cpu_before = cpu_seconds();
  const absl::Time wall_before = absl::Now();
  absl::SleepFor(absl::Seconds(1));  // The window measured, not a wait.
  const double wall = absl::ToDoubleSeconds(absl::Now() - wall_before);
  const double cpu = cpu_seconds() - cpu_before;
  EXPECT_LT(cpu, 0.5 * wall) << "cpu " << cpu << " s in " << wall << " s";
  EXPECT_EQ(entered.load(), 1);
  gate.Open();
  for (const char* id : {"b1", "b2", "b3"}) ASSERT_TRUE(Succeeded(id));
  a->Shutdown();
}

// A task waits for room as the default kind; meanwhile it is replaced by
// a task of the limited kind, due now. When room frees, the fire starts
// the row as the limited kind, whose one place is taken: never two of it.
TEST_F(KindReservationsTest, AReplacementChangingTheKindKeepsTheKindsLimit) {
  Gate one_gate, default_gate;
  std::atomic<int> one_running{0}, one_most{0};
  std::atomic<bool> holder_entered{false};
  Recorder one;
  one.SetResult([&](const DurableTask&) {
    const int now = ++one_running;
    int most = one_most.load();
    while (now > most && !one_most.compare_exchange_weak(most, now)) {
    }
    one_gate.Wait();
    --one_running;
    return absl::OkStatus();
  });
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "holder") {
      holder_entered = true;
      default_gate.Wait();
    }
    return absl::OkStatus();
  });
  FourThreads threads;
  DurableOptions options = Options("a");
  options.kinds = {One(&one)};
  options.max_in_flight = 2;
  options.executor = &threads;
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->ScheduleBatch({Request("o1", "one")}).ok());
  ASSERT_TRUE(WaitFor([&] { return one_running.load() == 1; }));
  ASSERT_TRUE(a->ScheduleBatch({Request("holder", "")}).ok());
  ASSERT_TRUE(WaitFor([&] { return holder_entered.load(); }));
  // No room left: x waits as a default-kind task.
  ASSERT_TRUE(a->ScheduleBatch({Request("x", "")}).ok());
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().waiting == 1; }));
  auto replaced = a->ScheduleOrReplace(Request("x", "one"));
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  default_gate.Open();
  ASSERT_TRUE(Succeeded("holder"));
  // Give x's fire its chance while o1 holds the kind's place.
  ASSERT_TRUE(WaitFor(
      [&] { return one_running.load() >= 2 || a->Metrics().waiting >= 1; }));
  one_gate.Open();
  ASSERT_TRUE(Succeeded("o1"));
  ASSERT_TRUE(Succeeded("x"));
  EXPECT_EQ(one_most.load(), 1);
  a->Shutdown();
}

// The fire statement fails (the connection killed while the batch waits
// to be sent): the batch goes back to wait, its kind's place with it.
TEST_F(KindReservationsTest, AFailedFireGivesItsKindsPlaceBack) {
  Recorder one;
  DurableOptions options = Options("a");
  options.kinds = {One(&one)};
  auto a = Start(options);
  ASSERT_NE(a, nullptr);
  {
    durable_testing::PausePoint fire("fire.before");
    ASSERT_TRUE(a->ScheduleBatch({Request("f1", "one")}).ok());
    ASSERT_TRUE(fire.WaitReached(absl::Seconds(20)));
    ASSERT_TRUE(durable_testing::QueryInt(
                    db_->conninfo(),
                    absl::StrCat("SELECT count(pg_terminate_backend(pid)) "
                                 "FROM pg_stat_activity WHERE datname = '",
                                 db_->name(), "' AND pid <> pg_backend_pid()"))
                    .ok());
    fire.Resume();
  }
  ASSERT_TRUE(WaitFor([&] { return a->Metrics().db_errors >= 1; }));
  ASSERT_TRUE(Succeeded("f1"));
  ASSERT_TRUE(a->ScheduleBatch({Request("f2", "one")}).ok());
  ASSERT_TRUE(Succeeded("f2"));
  a->Shutdown();
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
