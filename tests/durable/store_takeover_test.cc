// Copyright 2026 The timingwheel Authors.
//
// A takeover against a real PostgreSQL: what the taker re-stamps (RUNNING
// rows), what it leaves for its own load (SCHEDULED rows under the former
// epoch), and the window where a former owner's fire commits after the
// takeover has read the slot (forced with a gate that holds that fire
// after its write): the taker's load claims the row all the same.

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "durable/sql/store.h"
#include "durable/testing/statement_gate.h"
#include "gtest/gtest.h"
#include "tests/durable/two_stores_fixture.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::StatementGate;

// A substring of the fire statement's text only.
constexpr char kFireSql[] = "SET state = 2";
constexpr int64_t kTtlUs = 10'000'000;
constexpr int64_t kHorizonUs = 3'600'000'000;

class StoreTakeoverTest : public TwoStoresTest {
 protected:
  // node-a takes every slot and claims `id` into its wheel (a_claimed_).
  void AClaims(const std::string& id) {
    ASSERT_NO_FATAL_FAILURE(InsertDue(id));
    auto slots = a_->Acquire("node-a", kSlots, kTtlUs, 3, kHorizonUs);
    ASSERT_TRUE(slots.ok()) << slots.status();
    auto claimed = a_->ClaimDue("node-a", *slots, kHorizonUs, 100, 3);
    ASSERT_TRUE(claimed.ok()) << claimed.status();
    ASSERT_EQ(claimed->tasks.size(), 1u);
    a_claimed_ = claimed->tasks;
  }

  // node-a's lease ends; node-b takes every slot.
  std::vector<SlotEpoch> BTakesOver() {
    EXPECT_TRUE(Inspect().ExpireLeases().ok());
    auto slots = b_->Acquire("node-b", kSlots, kTtlUs, 3, kHorizonUs);
    EXPECT_TRUE(slots.ok()) << slots.status();
    if (!slots.ok()) return {};
    EXPECT_EQ(slots->size(), static_cast<size_t>(kSlots));
    return *slots;
  }

  // node-a fires its claimed row; the fire is held by a gate after its
  // write (RUNNING, uncommitted) while node-b takes over (`b_slots`), then
  // let go: it commits under the former epoch, one row started (`a_fire`).
  void FireAcrossTakeover(absl::StatusOr<FireResult>* a_fire,
                          std::vector<SlotEpoch>* b_slots) {
    auto gate =
        StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE", kFireSql,
                               StatementGate::When::kAfterWrite);
    ASSERT_TRUE(gate.ok()) << gate.status();
    std::thread fire([&] { *a_fire = a_->StartRunning("node-a", a_claimed_); });
    const bool held = (*gate)->WaitBlocked(absl::Seconds(10));
    if (held) *b_slots = BTakesOver();
    (*gate)->Release();
    fire.join();
    ASSERT_TRUE(held) << "the fire never reached the gate";
    ASSERT_TRUE(a_fire->ok()) << a_fire->status();
    ASSERT_EQ((*a_fire)->started.size(), 1u);
    auto row = Inspect().Task((*a_fire)->started[0].task.id);
    ASSERT_TRUE(row.ok()) << row.status();
    ASSERT_EQ(row->state, TaskState::kRunning);
    ASSERT_EQ(row->epoch, 1);  // Committed under the former epoch.
  }

  std::vector<WheelEntry> a_claimed_;
};

// The former owner's SCHEDULED row is left as it was by the takeover (no
// write), starts nothing for the former owner, and is claimed by the new
// owner's load under the new epoch.
TEST_F(StoreTakeoverTest, ScheduledRowsAreLeftForTheNewOwnersLoad) {
  ASSERT_NO_FATAL_FAILURE(AClaims("t"));
  const int64_t version_before = Inspect().Task("t")->version;
  std::vector<SlotEpoch> b_slots = BTakesOver();
  auto row = Inspect().Task("t");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->state, TaskState::kScheduled);
  EXPECT_EQ(row->epoch, 1);
  EXPECT_EQ(row->version, version_before);  // The takeover did not write it.

  auto a_fire = a_->StartRunning("node-a", a_claimed_);
  ASSERT_TRUE(a_fire.ok()) << a_fire.status();
  EXPECT_TRUE(a_fire->started.empty());

  auto b_claim = b_->ClaimDue("node-b", b_slots, kHorizonUs, 100, 3);
  ASSERT_TRUE(b_claim.ok()) << b_claim.status();
  ASSERT_EQ(b_claim->tasks.size(), 1u);
  EXPECT_EQ(b_claim->tasks[0].id, "t");
  EXPECT_EQ(b_claim->tasks[0].epoch, 2);
  auto b_fire = b_->StartRunning("node-b", b_claim->tasks);
  ASSERT_TRUE(b_fire.ok()) << b_fire.status();
  EXPECT_EQ(b_fire->started.size(), 1u);
  // Claimed once: a second load finds nothing.
  auto again = b_->ClaimDue("node-b", b_slots, kHorizonUs, 100, 3);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->tasks.empty());
}

// A fire of the former owner in flight across the takeover (held by a gate
// after it wrote RUNNING, released once the takeover committed) commits a
// RUNNING row under the former epoch that the takeover's re-stamp never
// saw. The new owner's load claims it; the former owner's completion then
// matches nothing.
TEST_F(StoreTakeoverTest,
       AFireCommittedAfterTheTakeoverIsClaimedByTheNewOwner) {
  ASSERT_NO_FATAL_FAILURE(AClaims("late"));
  absl::StatusOr<FireResult> a_fire = absl::UnknownError("not run");
  std::vector<SlotEpoch> b_slots;
  ASSERT_NO_FATAL_FAILURE(FireAcrossTakeover(&a_fire, &b_slots));

  auto b_claim = b_->ClaimDue("node-b", b_slots, kHorizonUs, 100, 3);
  ASSERT_TRUE(b_claim.ok()) << b_claim.status();
  ASSERT_EQ(b_claim->tasks.size(), 1u);
  EXPECT_EQ(b_claim->tasks[0].id, "late");
  EXPECT_EQ(b_claim->tasks[0].epoch, 2);

  Completion done;
  done.id = "late";
  done.version = a_fire->started[0].version;
  done.outcome = Outcome::kSuccess;
  auto completed = a_->Complete({&done, 1}, kHorizonUs, AttemptLog());
  ASSERT_TRUE(completed.ok()) << completed.status();
  EXPECT_EQ(completed->written, 0);
  EXPECT_EQ(Inspect().Task("late")->state, TaskState::kScheduled);
}

// The same late RUNNING row, its last allowed attempt started (counted by
// the former owner's start mark): the new owner's load fails it, as the
// takeover's re-stamp would have, and returns nothing to run.
TEST_F(StoreTakeoverTest, ALateRunningRowWithItsAttemptsUsedUpFails) {
  ASSERT_NO_FATAL_FAILURE(AClaims("spent"));
  absl::StatusOr<FireResult> a_fire = absl::UnknownError("not run");
  std::vector<SlotEpoch> b_slots;
  ASSERT_NO_FATAL_FAILURE(FireAcrossTakeover(&a_fire, &b_slots));
  StartMark mark;
  mark.id = "spent";
  mark.version = a_fire->started[0].version;
  mark.attempt = a_fire->started[0].task.attempt;
  ASSERT_EQ(mark.attempt, 1);
  auto marked = a_->MarkStarted({&mark, 1});
  ASSERT_TRUE(marked.ok()) << marked.status();
  ASSERT_EQ(*marked, 1);

  auto b_claim = b_->ClaimDue("node-b", b_slots, kHorizonUs, 100,
                              /*max_attempts=*/1);
  ASSERT_TRUE(b_claim.ok()) << b_claim.status();
  EXPECT_TRUE(b_claim->tasks.empty());
  auto row = Inspect().Task("spent");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->state, TaskState::kFailed);
  EXPECT_TRUE(row->finished_us.has_value());
}

// Rows claimed under an epoch the lease never had (an older schema's
// store, rows restored from elsewhere): the takeover's epoch is above
// theirs, so the new owner's load tells them from its own and claims them.
TEST_F(StoreTakeoverTest, TheNewEpochIsAboveEveryClaimedRowsEpoch) {
  InsertDue("stray");
  ASSERT_EQ(*Inspect().ForceClaimed("stray", 7), 1);
  auto slots = b_->Acquire("node-b", kSlots, kTtlUs, 3, kHorizonUs);
  ASSERT_TRUE(slots.ok()) << slots.status();
  const int slot = Inspect().Task("stray")->slot;
  for (const SlotEpoch& s : *slots) {
    EXPECT_EQ(s.epoch, s.slot == slot ? 8 : 1);
  }
  auto claimed = b_->ClaimDue("node-b", *slots, kHorizonUs, 100, 3);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->tasks.size(), 1u);
  EXPECT_EQ(claimed->tasks[0].id, "stray");
  EXPECT_EQ(claimed->tasks[0].epoch, 8);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
