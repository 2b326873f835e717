// Copyright 2026 The timingwheel Authors.
//
// How a task inserted by a process that is not (or no longer) its slot's
// owner reaches the owner without waiting for the owner's next load (every
// half horizon): a batch over thousands of slots (one notification payload
// could not name them all), an owner's own horizon rather than a fixed
// one, an own insert that commits after its slot changed hands, and an
// identical retry of an insert whose reply was lost, and a row a load passed
// over because another transaction held it locked. Each test's owner has
// its next load half an hour or more away, so only a wake-up passes it.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/client/request.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::Recorder;
using durable_test::WaitFor;
using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

// Well below any owner's half-horizon load period here (30 min or more).
constexpr absl::Duration kPrompt = absl::Seconds(15);

class WakeupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  DurableOptions Options(Recorder& recorder, int slot_count = 64) {
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.handler = recorder.Handler();
    options.lease_ttl = absl::Seconds(10);
    options.slot_count = slot_count;
    return options;
  }

  std::unique_ptr<DurableScheduler> Start(DurableOptions options) {
    auto scheduler = DurableScheduler::Create(std::move(options));
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    return scheduler.ok() ? *std::move(scheduler) : nullptr;
  }

  int64_t Query(const std::string& sql) {
    auto n = QueryInt(db_->conninfo(), sql);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  // Stores a task PENDING straight into the table, waking no one (as an
  // insert whose reply was lost left it).
  void InsertSilently(const std::string& id, int slot_count) {
    durable_testing::InsertedTask task;
    task.id = id;
    task.slot = durable_internal::SlotFor(id, slot_count);
    task.due_in_us = 200000;
    ASSERT_TRUE(Store().InsertTask(task).ok());
  }

  // Schedules `id` with `ScheduleInTransaction()` on a connection of its
  // own, in a transaction of its own (the insert commits, and wakes the
  // owner, at once).
  void ScheduleOnPlainConnection(const std::string& id, absl::Duration delay,
                                 int slot_count) {
    PGconn* conn = PQconnectdb(db_->conninfo().c_str());
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
    ScheduleRequest request;
    request.id = id;
    request.payload = "p";
    request.delay = delay;
    PQclear(PQexec(conn, "BEGIN"));
    bool scheduled =
        ScheduleInTransaction(conn, {&request, 1}, slot_count).ok();
    PGresult* commit = PQexec(conn, "COMMIT");
    scheduled = scheduled && PQresultStatus(commit) == PGRES_COMMAND_OK;
    PQclear(commit);
    PQfinish(conn);
    ASSERT_TRUE(scheduled);
  }

  durable_testing::StoreInspector Store() const {
    return durable_testing::StoreInspector(db_->conninfo());
  }

  // Fails the test on an error, and returns -1 for it.
  static int64_t Value(const absl::StatusOr<int64_t>& n) {
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  std::unique_ptr<TestDatabase> db_;
  Recorder recorder_;
};

std::vector<ScheduleRequest> Requests(const std::string& prefix, int n,
                                      absl::Duration delay) {
  std::vector<ScheduleRequest> batch(n);
  for (int i = 0; i < n; ++i) {
    batch[i].id = absl::StrCat(prefix, i);
    batch[i].payload = "p";
    batch[i].delay = delay;
  }
  return batch;
}

TEST_F(WakeupTest, BatchOverThousandsOfSlotsWakesTheOwner) {
  auto s = Start(Options(recorder_, 65536));
  ASSERT_NE(s, nullptr);
  // Taken by Create() on a quiet server; on a busy one the takeover of
  // 65,536 slots may hit its statement timeout, and the rounds after it
  // take them in smaller steps (36,864 after 20 s beside other suites on
  // a host losing CPU time to its neighbours).
  ASSERT_TRUE(WaitFor([&] { return s->Metrics().slots_owned == 65536; },
                      absl::Seconds(90)))
      << s->Metrics().slots_owned;
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 65536;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  // ~2,900 distinct slots: their list is ~17,000 bytes.
  ASSERT_TRUE(
      (*client)
          ->ScheduleBatch(Requests("client-", 3000, absl::Milliseconds(200)))
          .ok());
  auto tasks = Store().SummarizeTasks();
  EXPECT_GT(tasks.ok() ? tasks->distinct_slots : -1, 2000) << tasks.status();
  // And inside a caller's transaction.
  PGconn* conn = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  PQclear(PQexec(conn, "BEGIN"));
  const std::vector<ScheduleRequest> tx =
      Requests("tx-", 2000, absl::Milliseconds(200));
  EXPECT_TRUE(ScheduleInTransaction(conn, tx, 65536).ok());
  PGresult* commit = PQexec(conn, "COMMIT");
  EXPECT_EQ(PQresultStatus(commit), PGRES_COMMAND_OK);
  PQclear(commit);
  PQfinish(conn);
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 5000; }, kPrompt))
      << recorder_.size();
}

TEST_F(WakeupTest, InsertInTransactionWakesAnOwnerWithinItsOwnHorizon) {
  DurableOptions options = Options(recorder_);
  options.horizon = absl::Hours(3);  // Loads every 90 minutes.
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  const int64_t loaded_before = s->Metrics().loaded;
  ASSERT_NO_FATAL_FAILURE(
      ScheduleOnPlainConnection("in-61-minutes", absl::Minutes(61), 64));
  ASSERT_TRUE(WaitFor(
      [&] {
        auto info = s->Get("in-61-minutes");
        return info.ok() && info->state == TaskState::kScheduled;
      },
      kPrompt));
  // The counter moves once the load statement has returned.
  EXPECT_TRUE(
      WaitFor([&] { return s->Metrics().loaded == loaded_before + 1; }));
}

// The insert statement is held (a test trigger waits on an advisory lock
// the test holds) after it read the lease rows; meanwhile its scheduler
// shuts down and hands its slots to another, whose takeover load finds
// nothing yet. When the insert commits, the row must reach the new owner.
TEST_F(WakeupTest, OwnInsertCommittedAfterTheSlotMovedWakesTheNewOwner) {
  auto a = Start(Options(recorder_));
  ASSERT_NE(a, nullptr);
  PGconn* lock = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(lock), CONNECTION_OK);
  PQclear(PQexec(lock, "SELECT pg_advisory_lock(4242)"));
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      "CREATE FUNCTION tw_test_hold() RETURNS trigger "
                      "LANGUAGE plpgsql AS $$ BEGIN "
                      "PERFORM pg_advisory_lock_shared(4242); "
                      "PERFORM pg_advisory_unlock_shared(4242); "
                      "RETURN NULL; END $$")
                  .ok());
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      "CREATE TRIGGER tw_test_hold BEFORE INSERT ON tw_timer "
                      "FOR EACH STATEMENT EXECUTE PROCEDURE tw_test_hold()")
                  .ok());
  absl::Status scheduled;
  std::thread insert(
      [&] { scheduled = a->Schedule("held", absl::Milliseconds(200), "p"); });
  ASSERT_TRUE(WaitFor([&] {
    return Query(
               "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
               "AND NOT granted") == 1;
  }));
  std::thread shutdown([&] { a->Shutdown(); });
  ASSERT_TRUE(WaitFor([&] {
    return Value(Store().CountSlots(durable_testing::LeaseMatch().Owned())) ==
               0 &&
           Value(Store().CountNodes()) == 0;
  }));
  Recorder recorder_b;
  auto b = Start(Options(recorder_b));
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->Metrics().slots_owned, 64);
  PQclear(PQexec(lock, "SELECT pg_advisory_unlock(4242)"));
  insert.join();
  shutdown.join();
  PQfinish(lock);
  ASSERT_TRUE(scheduled.ok()) << scheduled;
  ASSERT_TRUE(WaitFor([&] { return recorder_b.size() == 1; }, kPrompt));
  EXPECT_EQ(recorder_b.calls()[0].task.id, "held");
  EXPECT_EQ(recorder_.size(), 0u);
}

// The first try committed (here: straight into the table) and its reply
// was lost; the retry is answered "identical" and must still wake the
// owner: a load of its own for a scheduler, a notification for a client.
TEST_F(WakeupTest, IdenticalRetryOfALostReplyWakesTheOwner) {
  auto s = Start(Options(recorder_));
  ASSERT_NE(s, nullptr);
  InsertSilently("lost-own", 64);
  ASSERT_TRUE(s->Schedule("lost-own", absl::Milliseconds(200), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }, kPrompt));

  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 64;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  InsertSilently("lost-client", 64);
  ASSERT_TRUE(
      (*client)->Schedule("lost-client", absl::Milliseconds(200), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 2; }, kPrompt));
  EXPECT_EQ(recorder_.CountById(),
            (std::map<std::string, int>{{"lost-client", 1}, {"lost-own", 1}}));
}

// A load that runs while another transaction holds one of its rows locked
// passes that row over; the owner loads again soon after, not at its next
// periodic load, and so takes the row once the lock is gone.
TEST_F(WakeupTest, ARowLockedDuringALoadIsLoadedOnceTheLockEnds) {
  DurableOptions options = Options(recorder_, 1);
  options.horizon = absl::Hours(3);  // Loads every 90 minutes.
  auto s = Start(options);
  ASSERT_NE(s, nullptr);
  InsertSilently("locked", 1);
  auto lock = durable_testing::StoreLock::LockTask(db_->conninfo(), "locked");
  ASSERT_TRUE(lock.ok()) << lock.status();
  // A wake-up for the slot: its load claims "wake" and skips "locked".
  ASSERT_NO_FATAL_FAILURE(
      ScheduleOnPlainConnection("wake", absl::Milliseconds(200), 1));
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }, kPrompt));
  EXPECT_EQ(recorder_.calls()[0].task.id, "wake");
  EXPECT_EQ(
      Value(Store().CountTasks(durable_testing::TaskMatch().Id("locked").State(
          TaskState::kPending))),
      1);
  lock->reset();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 2; }, kPrompt))
      << "the row passed over was not loaded after its lock ended";
  EXPECT_EQ(recorder_.calls()[1].task.id, "locked");
}

}  // namespace
}  // namespace timingwheel
