// Copyright 2026 The timingwheel Authors.
//
// DurableClient against a real PostgreSQL: a producer that holds no slots
// and runs no handlers schedules tasks that a DurableScheduler runs, with
// the scheduler's semantics and errors.

#include "durable/durable_client.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::Recorder;
using durable_test::WaitFor;
using durable_testing::LeaseMatch;
using durable_testing::TaskMatch;
using durable_testing::TestDatabase;

class DurableClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  DurableClientOptions ClientOptions() {
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 64;
    return options;
  }

  DurableOptions SchedulerOptions() {
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.handler = recorder_.Handler();
    options.lease_ttl = absl::Seconds(2);
    options.slot_count = 64;
    return options;
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

TEST_F(DurableClientTest, ClientSchedulesTasksASchedulerRunsAndHoldsNoSlot) {
  // The client alone creates the schema and takes nothing.
  auto client = DurableClient::Create(ClientOptions());
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(Value(Store().CountSlots()), 64);
  EXPECT_EQ(Value(Store().CountSlots(LeaseMatch().Touched())), 0);
  EXPECT_EQ(Value(Store().CountNodes()), 0);
  ASSERT_TRUE(
      (*client)->Schedule("before-owner", absl::ZeroDuration(), "a").ok());

  auto scheduler = DurableScheduler::Create(SchedulerOptions());
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  const std::string node = (*scheduler)->node_id();
  // Tasks due soon reach the owner by notification (its next load is 30
  // minutes away), one by one and in a batch.
  ASSERT_TRUE((*client)->Schedule("soon", absl::Milliseconds(100), "b").ok());
  ASSERT_TRUE((*client)->ScheduleAt("at", absl::Now(), "c").ok());
  std::vector<ScheduleRequest> batch(20);
  for (int i = 0; i < 20; ++i) {
    batch[i].id = absl::StrCat("batch-", i);
    batch[i].payload = "d";
  }
  ASSERT_TRUE((*client)->ScheduleBatch(batch).ok());
  ASSERT_TRUE(
      WaitFor([&] { return recorder_.size() == 23; }, absl::Seconds(10)));
  EXPECT_EQ(recorder_.CountById()["soon"], 1);
  ASSERT_TRUE(WaitFor([&] {
    auto info = (*client)->Get("soon");
    return info.ok() && info->state == TaskState::kSuccess;
  }));
  // While the client exists, every slot is the scheduler's and the node
  // table holds the scheduler only.
  EXPECT_EQ(Value(Store().CountSlots(LeaseMatch().NotOwner(node))), 0);
  EXPECT_EQ(Value(Store().CountNodesExcept(node)), 0);
  // Cancel and Get as the scheduler's.
  ASSERT_TRUE((*client)->Schedule("later", absl::Hours(5), "e").ok());
  EXPECT_TRUE(*(*client)->Cancel("later"));
  EXPECT_FALSE(*(*client)->Cancel("later"));
  EXPECT_TRUE(absl::IsNotFound((*client)->Get("later").status()));
  EXPECT_TRUE(absl::IsNotFound((*scheduler)->Get("later").status()));
}

// Concurrent calls share insert statements (InsertCombiner); each still
// gets its own answer: a conflicting id fails only its own call, an
// identical retry succeeds, and every task is stored once.
TEST_F(DurableClientTest, ConcurrentSchedulesEachGetTheirOwnAnswer) {
  auto client = DurableClient::Create(ClientOptions());
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->Schedule("taken", absl::Hours(1), "first").ok());
  constexpr int kThreads = 8;
  constexpr int kCalls = 100;
  std::vector<std::vector<absl::Status>> answers(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        absl::Status status;
        if (i == 50) {  // Another payload under an existing id.
          status = (*client)->Schedule("taken", absl::Hours(1), "other");
        } else if (i == 60) {  // An identical retry.
          status = (*client)->Schedule("taken", absl::Hours(1), "first");
        } else {
          status = (*client)->Schedule(absl::StrCat("t", t, "-", i),
                                       absl::Hours(1), absl::StrCat(t, i));
        }
        answers[t].push_back(status);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kCalls; ++i) {
      if (i == 50) {
        EXPECT_TRUE(absl::IsAlreadyExists(answers[t][i])) << answers[t][i];
      } else {
        EXPECT_TRUE(answers[t][i].ok()) << t << "/" << i << answers[t][i];
      }
    }
  }
  EXPECT_EQ(Value(Store().CountTasks()), 1 + kThreads * (kCalls - 2));
  EXPECT_EQ(Value(Store().CountTasks(TaskMatch().Id("t3-7").Payload("37"))), 1);
}

TEST_F(DurableClientTest, ErrorsAndValidationAreTheSchedulers) {
  DurableClientOptions options = ClientOptions();
  options.max_payload_bytes = 8;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  DurableClient& c = **client;
  ASSERT_TRUE(c.Schedule("dup", absl::Hours(2), "same").ok());
  EXPECT_TRUE(c.Schedule("dup", absl::Hours(2), "same").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(c.Schedule("dup", absl::Hours(2), "x")));
  EXPECT_TRUE(absl::IsInvalidArgument(c.Schedule("", absl::Seconds(1), "p")));
  EXPECT_TRUE(absl::IsInvalidArgument(c.Schedule("e", absl::Seconds(1), "")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      c.Schedule("big", absl::Seconds(1), "123456789")));
  EXPECT_TRUE(
      absl::IsInvalidArgument(c.ScheduleAt("inf", absl::InfinitePast(), "p")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      c.ScheduleAt("old", absl::UnixEpoch() - absl::Hours(1), "p")));
  std::vector<ScheduleRequest> batch(2);
  batch[0].id = "b0";
  batch[0].payload = "p";
  batch[1].id = "dup";
  batch[1].payload = "other";
  EXPECT_TRUE(absl::IsAlreadyExists(c.ScheduleBatch(batch)));
  EXPECT_TRUE(absl::IsNotFound(c.Get("b0").status()));
  EXPECT_TRUE(c.ScheduleBatch({}).ok());

  // Options.
  options = ClientOptions();
  options.slot_count = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(DurableClient::Create(options).status()));
  options = ClientOptions();
  options.max_id_bytes = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(DurableClient::Create(options).status()));
  options = ClientOptions();
  options.slot_count = 128;  // The store has 64.
  EXPECT_TRUE(
      absl::IsFailedPrecondition(DurableClient::Create(options).status()));

  c.Close();
  EXPECT_TRUE(absl::IsFailedPrecondition(c.Schedule("x", absl::Hours(1), "p")));
  EXPECT_TRUE(absl::IsFailedPrecondition(c.Cancel("x").status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(c.Get("x").status()));
}

TEST_F(DurableClientTest, StatementTimeoutEndsACallWaitingOnALock) {
  DurableClientOptions options = ClientOptions();
  options.statement_timeout = absl::Milliseconds(300);
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto held = durable_testing::StoreLock::LockTable(
      db_->conninfo(), durable_testing::StoreLock::Table::kTasks);
  ASSERT_TRUE(held.ok()) << held.status();
  absl::Status status = (*client)->Schedule("t", absl::ZeroDuration(), "p");
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  held->reset();  // Released.
  EXPECT_TRUE((*client)->Schedule("t", absl::ZeroDuration(), "p").ok());
  options.statement_timeout = -absl::Seconds(1);
  EXPECT_TRUE(absl::IsInvalidArgument(DurableClient::Create(options).status()));
}

}  // namespace
}  // namespace timingwheel
