// Copyright 2026 The timingwheel Authors.
//
// StoreInspector against a real PostgreSQL: every condition of a TaskMatch
// and a LeaseMatch selects exactly the rows it names (ids of any byte
// included), the named writes change what they say, and StoreLock locks
// only rows that exist and releases when destroyed. The other tests'
// assertions rest on these answers.

#include "durable/testing/store_inspector.h"

#include <memory>
#include <string>

#include "durable/durable_client.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_testing {
namespace {

class StoreInspectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    store_ = std::make_unique<StoreInspector>(db_->conninfo());
  }

  // Creates the schema (4 slots) and four tasks:
  //   "a-1"     PENDING, due in an hour, payload "p"
  //   "a-2"     SUCCESS, attempt 1, finished now
  //   "b\0x"    FAILED, attempt 3, payload "q", an error
  //   "c"       SCHEDULED under epoch 2, attempt 1
  void Fill() {
    auto exists = store_->SchemaExists();
    ASSERT_TRUE(exists.ok()) << exists.status();
    ASSERT_FALSE(*exists);
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = kSlots;
    auto client = DurableClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    InsertedTask a1;
    a1.id = "a-1";
    a1.due_in_us = int64_t{3600} * 1000000;
    InsertedTask a2;
    a2.id = "a-2";
    a2.state = TaskState::kSuccess;
    a2.attempt = 1;
    a2.finished_now = true;
    InsertedTask b;
    b.id = kBinaryId;
    b.slot = 1;
    b.state = TaskState::kFailed;
    b.attempt = 3;
    b.payload = "q";
    b.last_error = "boom";
    b.finished_us = 5;
    InsertedTask c;
    c.id = "c";
    c.slot = 2;
    c.state = TaskState::kScheduled;
    c.epoch = 2;
    c.attempt = 1;
    for (const InsertedTask& task : {a1, a2, b, c}) {
      absl::Status status = store_->InsertTask(task);
      ASSERT_TRUE(status.ok()) << status << " for " << task.id;
    }
  }

  int64_t Count(const TaskMatch& match) {
    auto n = store_->CountTasks(match);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  static constexpr int kSlots = 4;
  const std::string kBinaryId{"b\0x", 3};
  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<StoreInspector> store_;
};

TEST_F(StoreInspectorTest, EveryTaskConditionSelectsItsRows) {
  ASSERT_NO_FATAL_FAILURE(Fill());
  EXPECT_EQ(Count(TaskMatch()), 4);
  EXPECT_EQ(Count(TaskMatch().Id("a-1")), 1);
  EXPECT_EQ(Count(TaskMatch().Id("a")), 0);
  EXPECT_EQ(Count(TaskMatch().Id(kBinaryId)), 1);
  EXPECT_EQ(Count(TaskMatch().Id("b")), 0);
  EXPECT_EQ(Count(TaskMatch().IdPrefix("a-")), 2);
  EXPECT_EQ(Count(TaskMatch().IdPrefix(std::string("b\0", 2))), 1);
  EXPECT_EQ(Count(TaskMatch().IdPrefix("%")), 0);  // No LIKE patterns.
  EXPECT_EQ(Count(TaskMatch().Payload("q")), 1);
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kPending)), 1);
  EXPECT_EQ(Count(TaskMatch().NotState(TaskState::kSuccess)), 3);
  EXPECT_EQ(Count(TaskMatch().StateBefore(TaskState::kSuccess)), 2);
  EXPECT_EQ(Count(TaskMatch().StateAtLeast(TaskState::kSuccess)), 2);
  EXPECT_EQ(Count(TaskMatch().Attempt(1)), 2);
  EXPECT_EQ(Count(TaskMatch().NotAttempt(3)), 3);
  EXPECT_EQ(Count(TaskMatch().AttemptAbove(1)), 1);
  EXPECT_EQ(Count(TaskMatch().NotClaimedUnder(2)), 3);  // All but "c".
  EXPECT_EQ(Count(TaskMatch().AtLeaseEpoch()), 3);      // Lease epochs are 0.
  EXPECT_EQ(Count(TaskMatch().FinishedAfter(5)), 1);    // "a-2", not "b".
  EXPECT_EQ(Count(TaskMatch().IdPrefix("a-").State(TaskState::kSuccess)), 1);

  auto summary = store_->SummarizeTasks(TaskMatch().IdPrefix("a-"));
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->count, 2);
  EXPECT_EQ(summary->max_attempt, 1);
  EXPECT_GT(summary->min_finished_us, 5);
  EXPECT_EQ(summary->distinct_slots, 1);
  EXPECT_GT(summary->max_due_us - summary->now_us, int64_t{3500} * 1000000);
  auto none = store_->SummarizeTasks(TaskMatch().Id("none"));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->count, 0);
  EXPECT_EQ(none->min_finished_us, -1);
}

TEST_F(StoreInspectorTest, RowsReadBackAsInserted) {
  ASSERT_NO_FATAL_FAILURE(Fill());
  auto b = store_->Task(kBinaryId);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->id, kBinaryId);
  EXPECT_EQ(b->slot, 1);
  EXPECT_EQ(b->state, TaskState::kFailed);
  EXPECT_EQ(b->attempt, 3);
  EXPECT_EQ(b->payload, "q");
  EXPECT_EQ(b->last_error, "boom");
  EXPECT_EQ(b->finished_us, 5);
  EXPECT_FALSE(b->owner.has_value());
  EXPECT_TRUE(absl::IsNotFound(store_->Task("none").status()));
  auto by_due = store_->Tasks(TaskMatch(), /*by_due=*/true);
  ASSERT_TRUE(by_due.ok()) << by_due.status();
  ASSERT_EQ(by_due->size(), 4u);
  EXPECT_EQ(by_due->back().id, "a-1");  // The one due in an hour.
  auto due = store_->DueTimes(TaskMatch().IdPrefix("a-"));
  ASSERT_TRUE(due.ok()) << due.status();
  EXPECT_EQ(due->size(), 2u);

  ASSERT_TRUE(store_->InsertAttempt("c", AttemptRow{1, 1, "n", 1, 2, {}}).ok());
  ASSERT_TRUE(
      store_->InsertAttempt("c", AttemptRow{2, 0, "m", 3, 4, "e"}).ok());
  auto attempts = store_->Attempts("c");
  ASSERT_TRUE(attempts.ok()) << attempts.status();
  ASSERT_EQ(attempts->size(), 2u);
  EXPECT_FALSE((*attempts)[0].error.has_value());
  EXPECT_EQ((*attempts)[1].node_id, "m");
  EXPECT_EQ((*attempts)[1].error, "e");
  EXPECT_EQ(*store_->CountAttempts("c"), 2);
  EXPECT_EQ(*store_->CountAttempts(), 2);
  EXPECT_EQ(*store_->DeleteTask("c"), 1);  // Its history goes with it.
  EXPECT_EQ(*store_->CountAttempts(), 0);
  EXPECT_EQ(*store_->ForceState("a-1", TaskState::kRunning), 1);
  EXPECT_EQ(store_->Task("a-1")->state, TaskState::kRunning);
  EXPECT_EQ(*store_->ForceClaimed("a-1", 7), 1);
  EXPECT_EQ(store_->Task("a-1")->epoch, 7);
  EXPECT_EQ(*store_->ForceAllSucceeded(), 3);
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kSuccess)), 3);
}

TEST_F(StoreInspectorTest, LeasesNodesAndSchema) {
  ASSERT_NO_FATAL_FAILURE(Fill());
  EXPECT_EQ(*store_->SchemaExists(), true);
  EXPECT_GT(*store_->SchemaVersion(), 0);
  EXPECT_EQ(*store_->CountSlots(), kSlots);
  EXPECT_EQ(*store_->CountSlots(LeaseMatch().Owned()), 0);
  EXPECT_EQ(*store_->CountSlots(LeaseMatch().Touched()), 0);
  EXPECT_EQ(*store_->CountSlots(LeaseMatch().FreeOrExpired()), kSlots);
  EXPECT_EQ(*store_->CountSlots(LeaseMatch().NotOwner("x")), kSlots);
  EXPECT_EQ(*store_->CountSlots(LeaseMatch().Owner("x")), 0);
  EXPECT_EQ(*store_->CountSlots(LeaseMatch().LeaseBeyond(0)), 0);
  auto leases = store_->SummarizeLeases();
  ASSERT_TRUE(leases.ok()) << leases.status();
  EXPECT_EQ(leases->count, kSlots);
  EXPECT_EQ(leases->distinct_owners, 0);
  EXPECT_EQ(leases->max_epoch, 0);
  EXPECT_EQ(store_->Lease(3)->slot, 3);
  EXPECT_TRUE(absl::IsNotFound(store_->Lease(kSlots).status()));
  EXPECT_EQ(store_->SlotsPerOwner()->at(""), kSlots);
  EXPECT_EQ(*store_->CountNodes(), 0);
  EXPECT_FALSE(*store_->HasNode("x"));
  EXPECT_EQ(*store_->ExpireLeases(), kSlots);
  EXPECT_EQ(*store_->ExpireLeases(/*skip_locked=*/true), kSlots);
  EXPECT_TRUE(store_->WatchEarlyTakeovers().ok());
  EXPECT_EQ(*store_->CountEarlyTakeovers(), 0);
  EXPECT_TRUE(store_->RegisterKind("k", "node-a").ok());
  EXPECT_EQ(*store_->CountKinds("node-a"), 1);
  EXPECT_EQ(*store_->CountSchedules(), 0);
  EXPECT_TRUE(store_->ForceSchemaVersion(99).ok());
  EXPECT_EQ(*store_->SchemaVersion(), 99);
}

TEST_F(StoreInspectorTest, LocksNeedTheirRow) {
  ASSERT_NO_FATAL_FAILURE(Fill());
  EXPECT_TRUE(StoreLock::LockTask(db_->conninfo(), kBinaryId).ok());
  EXPECT_TRUE(
      absl::IsNotFound(StoreLock::LockTask(db_->conninfo(), "b").status()));
  EXPECT_TRUE(StoreLock::LockLease(db_->conninfo(), kSlots - 1).ok());
  EXPECT_TRUE(
      absl::IsNotFound(StoreLock::LockLease(db_->conninfo(), kSlots).status()));
  {
    auto lock = StoreLock::LockTable(db_->conninfo(), StoreLock::Table::kTasks);
    ASSERT_TRUE(lock.ok()) << lock.status();
  }
  // Released on destruction: the table reads again.
  EXPECT_EQ(Count(TaskMatch()), 4);
}

}  // namespace
}  // namespace durable_testing
}  // namespace timingwheel
