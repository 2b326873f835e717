// Copyright 2026 The timingwheel Authors.
//
// The horizon load's report of what it left behind, against a real
// PostgreSQL (durable/sql/store_api.h, `Claimed`): `more` when rows were left
// over past the limit or a slot's share of it (so loading until it is false
// claims every row, however unevenly the slots hold them), `skipped` for
// rows another transaction held locked (forced with a row lock held open),
// and one row with both even when a load claims nothing.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/sql/store.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::StoreLock;
using durable_testing::TestDatabase;

constexpr int kSlots = 8;
constexpr int64_t kTtlUs = 10'000'000;
constexpr int64_t kHorizonUs = 3'600'000'000;

class StoreLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    auto store = Store::Connect(db_->conninfo());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    ASSERT_TRUE(store_->EnsureSchema(kSlots).ok());
    auto slots = store_->Acquire("n", kSlots, kTtlUs, 3, kHorizonUs);
    ASSERT_TRUE(slots.ok()) << slots.status();
    ASSERT_EQ(slots->size(), static_cast<size_t>(kSlots));
    owned_ = *slots;
  }

  // `count` rows in `slot`, due from 1 s on, one a millisecond apart.
  void InsertInSlot(int slot, int count) {
    std::vector<InsertRow> rows;
    for (int i = 0; i < count; ++i) {
      InsertRow row;
      row.id = absl::StrCat("s", slot, "-", i);
      row.payload = "p";
      row.slot = slot;
      row.due_or_delay_us = 1'000'000 + 1000 * i;
      row.relative = true;
      rows.push_back(std::move(row));
    }
    Inserter plain_client;
    plain_client.slot_count = kSlots;
    auto inserted = store_->Insert(plain_client, rows);
    ASSERT_TRUE(inserted.ok()) << inserted.status();
  }

  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<Store> store_;
  std::vector<SlotEpoch> owned_;
};

// One slot holds almost every row; the others a few. Loads of 50 repeated
// while `more` claim each row once, and the last load says no more.
TEST_F(StoreLoadTest, LoadingWhileMoreClaimsEveryRowOfUnevenSlots) {
  ASSERT_NO_FATAL_FAILURE(InsertInSlot(0, 400));
  for (int slot = 1; slot < kSlots; ++slot) {
    ASSERT_NO_FATAL_FAILURE(InsertInSlot(slot, 3));
  }
  const size_t total = 400 + 3 * (kSlots - 1);
  std::set<std::string> ids;
  bool more = true;
  int loads = 0;
  while (more && loads < 100) {
    auto claimed = store_->ClaimDue("n", owned_, kHorizonUs, 50);
    ASSERT_TRUE(claimed.ok()) << claimed.status();
    ++loads;
    EXPECT_LE(claimed->tasks.size(), 50u);
    EXPECT_EQ(claimed->skipped, 0);
    for (const WheelEntry& e : claimed->tasks) {
      EXPECT_TRUE(ids.insert(e.id).second) << e.id << " claimed twice";
    }
    more = claimed->more;
  }
  EXPECT_FALSE(more) << "still more after " << loads << " loads";
  EXPECT_EQ(ids.size(), total);
  auto after = store_->ClaimDue("n", owned_, kHorizonUs, 50);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(after->tasks.empty());
  EXPECT_FALSE(after->more);
}

// A load of exactly as many rows as its limit, spread so that no slot
// gives its whole share, says no more; one row beyond the limit says more.
TEST_F(StoreLoadTest, MoreIsExactAtTheLimit) {
  for (int slot = 0; slot < kSlots; ++slot) {
    ASSERT_NO_FATAL_FAILURE(InsertInSlot(slot, 4));
  }
  auto exact = store_->ClaimDue("n", owned_, kHorizonUs, 4 * kSlots);
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->tasks.size(), static_cast<size_t>(4 * kSlots));
  EXPECT_FALSE(exact->more);
}

TEST_F(StoreLoadTest, OneRowBeyondTheLimitIsMore) {
  for (int slot = 0; slot < kSlots; ++slot) {
    ASSERT_NO_FATAL_FAILURE(InsertInSlot(slot, 4));
  }
  auto short_by_one = store_->ClaimDue("n", owned_, kHorizonUs, 4 * kSlots - 1);
  ASSERT_TRUE(short_by_one.ok()) << short_by_one.status();
  EXPECT_EQ(short_by_one->tasks.size(), static_cast<size_t>(4 * kSlots - 1));
  EXPECT_TRUE(short_by_one->more);
  auto rest = store_->ClaimDue("n", owned_, kHorizonUs, 4 * kSlots - 1);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->tasks.size(), 1u);
  EXPECT_FALSE(rest->more);
}

// A row held locked by another transaction is passed over and counted in
// `skipped`; once the lock is gone the next load claims it.
TEST_F(StoreLoadTest, ALockedRowIsSkippedAndCountedThenClaimedLater) {
  ASSERT_NO_FATAL_FAILURE(InsertInSlot(0, 3));
  auto lock = StoreLock::LockTask(db_->conninfo(), "s0-1");
  ASSERT_TRUE(lock.ok()) << lock.status();
  auto first = store_->ClaimDue("n", owned_, kHorizonUs, 100);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->tasks.size(), 2u);
  EXPECT_EQ(first->skipped, 1);
  EXPECT_FALSE(first->more);
  for (const WheelEntry& e : first->tasks) EXPECT_NE(e.id, "s0-1");
  lock->reset();
  auto second = store_->ClaimDue("n", owned_, kHorizonUs, 100);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->tasks.size(), 1u);
  EXPECT_EQ(second->tasks[0].id, "s0-1");
  EXPECT_EQ(second->skipped, 0);
}

// A load whose every candidate is locked claims nothing and still reports
// them (the statement returns one row with the counts and no task).
TEST_F(StoreLoadTest, ALoadThatClaimsNothingStillReportsWhatItSkipped) {
  ASSERT_NO_FATAL_FAILURE(InsertInSlot(2, 1));
  auto lock = StoreLock::LockTask(db_->conninfo(), "s2-0");
  ASSERT_TRUE(lock.ok()) << lock.status();
  auto claimed = store_->ClaimDue("n", owned_, kHorizonUs, 100);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_TRUE(claimed->tasks.empty());
  EXPECT_EQ(claimed->skipped, 1);
  EXPECT_GT(claimed->db_now_us, 0);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
