// Copyright 2026 The timingwheel Authors.
//
// The planned core's store statements (docs/durable-core-plan.md, step 2;
// store_api.h: `NextDueBySlot()`, `FireSlots()`), one suite over both
// stores (two_store_fixture.h): PostgreSQL (durable/sql/store_slot_fire.cc)
// and the fake (durable/testing/fake_store_slot_fire.cc). A fire never
// starts a row before its due time on the database's clock, nor in a slot
// whose lease the caller does not hold under the given epoch, nor more of
// a kind than its free places or more than the limit, nor a RUNNING or
// finished row; it starts them in due, then priority order; it passes over
// a row another transaction holds without waiting (PostgreSQL only: the
// fake has no row locks). The load writes nothing. A fired row is a
// RUNNING attempt as today's fire leaves one: the lease's epoch, its
// attempt not counted until its completion.

#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/sql/store.h"
#include "durable/sql/store_api.h"
#include "durable/testing/fake_database.h"
#include "durable/testing/fake_store.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "durable/testing/store_lock.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_internal::Completion;
using durable_internal::Inserter;
using durable_internal::InsertRow;
using durable_internal::KindCapacity;
using durable_internal::kNoDueUs;
using durable_internal::Outcome;
using durable_internal::SessionLimits;
using durable_internal::SlotDue;
using durable_internal::SlotDues;
using durable_internal::SlotEpoch;
using durable_internal::SlotFire;
using durable_internal::Started;
using durable_internal::StoreApi;

constexpr int kSlots = 2;
constexpr int64_t kSecondUs = 1000 * 1000;
constexpr int64_t kMinuteUs = 60 * kSecondUs;

// What a test compares of a row before and after a statement.
struct RowState {
  TaskState state = TaskState::kPending;
  int64_t version = 0;
  int64_t epoch = 0;
  int attempt = 0;
  int64_t due_us = 0;
  std::string xmin;  // PostgreSQL only: the row version's inserting xact.

  bool operator==(const RowState& o) const {
    return state == o.state && version == o.version && epoch == o.epoch &&
           attempt == o.attempt && due_us == o.due_us && xmin == o.xmin;
  }
};

void PrintTo(const RowState& r, std::ostream* os) {
  *os << "{state " << static_cast<int>(r.state) << ", version " << r.version
      << ", epoch " << r.epoch << ", attempt " << r.attempt << ", due "
      << r.due_us << ", xmin " << r.xmin << "}";
}

std::vector<std::string> Ids(const std::vector<Started>& started) {
  std::vector<std::string> ids;
  for (const Started& s : started) ids.push_back(s.task.id);
  return ids;
}

class StoreSlotFireTest : public TwoStoreFixture {
 protected:
  void SetUp() override {
    TwoStoreFixture::SetUp();
    if (HasFatalFailure()) return;
    store_ = Open();
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->EnsureSchema(kSlots).ok());
    ASSERT_TRUE(
        store_->RegisterKinds("n", {"k0", "k2", "many"}, /*forget=*/-1).ok());
  }

  // A store over the test's database (a connection of its own). On
  // PostgreSQL a statement that waits for a lock fails after a second, so
  // a fire that waited for a locked row fails the test instead of hanging.
  std::unique_ptr<StoreApi> Open() {
    if (fake()) return std::make_unique<durable_testing::FakeStore>(fake_db_);
    SessionLimits limits;
    limits.statement_timeout_ms = 5000;
    limits.lock_timeout_ms = 1000;
    auto store = durable_internal::Store::Connect(pg_->conninfo(), limits);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Takes every slot for `node` with a lease of `ttl_us`.
  std::vector<SlotEpoch> Own(const std::string& node,
                             int64_t ttl_us = kMinuteUs) {
    auto owned = store_->Acquire(node, kSlots, ttl_us, /*max_attempts=*/10,
                                 /*horizon_us=*/0);
    EXPECT_TRUE(owned.ok()) << owned.status();
    if (!owned.ok()) return {};
    EXPECT_EQ(owned->size(), static_cast<size_t>(kSlots));
    return *owned;
  }

  static int64_t EpochOf(const std::vector<SlotEpoch>& owned, int slot) {
    for (const SlotEpoch& s : owned) {
      if (s.slot == slot) return s.epoch;
    }
    return -1;
  }

  // An id starting with `base` that hashes to `slot`.
  static std::string IdIn(int slot, const std::string& base) {
    for (int i = 0;; ++i) {
      std::string id = absl::StrCat(base, "-", i);
      if (durable_internal::SlotFor(id, kSlots) == slot) return id;
    }
  }

  // Inserts a row in `slot` due at `due_us` (absolute, database clock) and
  // returns its id.
  std::string Put(int slot, const std::string& base, int64_t due_us,
                  const std::string& kind = "", int priority = 0) {
    InsertRow row;
    row.id = IdIn(slot, base);
    row.payload = "payload of " + base;
    row.slot = slot;
    row.due_or_delay_us = due_us;
    row.kind = kind;
    row.priority = priority;
    Inserter inserter;
    inserter.slot_count = kSlots;
    auto inserted = store_->Insert(inserter, {&row, 1});
    EXPECT_TRUE(inserted.ok()) << inserted.status();
    return row.id;
  }

  static int64_t NowUs() { return absl::ToUnixMicros(absl::Now()); }

  // Every row's state, version, epoch, attempt and due time (and xmin on
  // PostgreSQL), by id.
  std::map<std::string, RowState> Rows() {
    std::map<std::string, RowState> rows;
    if (fake()) {
      for (const auto& [id, task] : fake_db_->Tasks()) {
        rows[id] = RowState{task.state,   task.version, task.epoch,
                            task.attempt, task.due_us,  ""};
      }
      return rows;
    }
    auto all = durable_testing::StoreInspector(pg_->conninfo()).Tasks();
    EXPECT_TRUE(all.ok()) << all.status();
    if (!all.ok()) return rows;
    for (const durable_testing::TaskRow& t : *all) {
      auto xmin = durable_testing::QueryText(
          pg_->conninfo(),
          absl::StrCat("SELECT xmin::text FROM tw_timer WHERE task_id = '",
                       t.id, "'::bytea"));
      EXPECT_TRUE(xmin.ok()) << xmin.status();
      rows[t.id] = RowState{t.state,   t.version, t.epoch,
                            t.attempt, t.due_us,  xmin.ok() ? *xmin : "?"};
    }
    return rows;
  }

  // PostgreSQL: each lease row's xmin and xmax (a row lock sets xmax).
  std::string LeaseTuples() {
    if (fake()) return "";
    auto text = durable_testing::QueryText(
        pg_->conninfo(),
        "SELECT string_agg(slot || ':' || xmin || ':' || xmax, ',' "
        "ORDER BY slot) FROM tw_slot_lease");
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "?";
  }

  SlotFire Fire(const std::string& node, const std::vector<SlotEpoch>& owned,
                const KindCapacity& free, int64_t limit = 100,
                int64_t others_free = 0,
                int min_priority = std::numeric_limits<int>::min()) {
    absl::StatusOr<SlotFire> fire =
        store_->FireSlots(node, owned, free, others_free, limit, min_priority);
    EXPECT_TRUE(fire.ok()) << fire.status();
    return fire.ok() ? *std::move(fire) : SlotFire();
  }

  SlotDues NextDue(const std::string& node,
                   const std::vector<SlotEpoch>& owned) {
    absl::StatusOr<SlotDues> dues = store_->NextDueBySlot(node, owned);
    EXPECT_TRUE(dues.ok()) << dues.status();
    return dues.ok() ? *std::move(dues) : SlotDues();
  }

  static int64_t DueOf(const std::vector<SlotDue>& dues, int slot) {
    for (const SlotDue& d : dues) {
      if (d.slot == slot) return d.next_due_us;
    }
    return -1;  // Not reported (fenced).
  }

  static int64_t SkippedOf(const std::vector<SlotDue>& dues, int slot) {
    for (const SlotDue& d : dues) {
      if (d.slot == slot) return d.skipped;
    }
    return -1;  // Not reported (fenced).
  }

  static int PriorityOf(const std::vector<SlotDue>& dues, int slot) {
    for (const SlotDue& d : dues) {
      if (d.slot == slot) return d.next_priority;
    }
    return -1000000;  // Not reported (fenced).
  }

  TaskState StateOf(const std::string& id) {
    auto info = store_->Get(id);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->state : TaskState::kFailed;
  }

  int64_t StoredDueUs(const std::string& id) {
    auto info = store_->Get(id);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? absl::ToUnixMicros(info->due) : -1;
  }

  const KindCapacity kDefaultOnly = {{"", 100}};
  std::unique_ptr<StoreApi> store_;
};

TEST_P(StoreSlotFireTest, NeverEarlyAndTheRowNotDueIsTheSlotsNextDue) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t now = NowUs();
  const std::string due = Put(0, "due", now - kSecondUs);
  const std::string ahead = Put(0, "ahead", now + kSecondUs);
  const int64_t ahead_due = StoredDueUs(ahead);

  const SlotDues before = NextDue("a", owned);
  EXPECT_EQ(DueOf(before.slots, 0), StoredDueUs(due));
  EXPECT_EQ(DueOf(before.slots, 1), kNoDueUs);

  const SlotFire fire = Fire("a", owned, kDefaultOnly);
  ASSERT_EQ(Ids(fire.started), std::vector<std::string>{due});
  const Started& s = fire.started[0];
  EXPECT_EQ(s.slot, 0);
  EXPECT_EQ(s.epoch, EpochOf(owned, 0));
  EXPECT_EQ(s.task.attempt, 1);
  EXPECT_EQ(s.task.payload, "payload of due");
  EXPECT_LE(absl::ToUnixMicros(s.task.due), s.started_us);
  EXPECT_LE(s.started_us, fire.db_now_us);
  EXPECT_EQ(StateOf(ahead), TaskState::kPending);
  EXPECT_EQ(DueOf(fire.next_due, 0), ahead_due);
  EXPECT_EQ(DueOf(fire.next_due, 1), kNoDueUs);
  EXPECT_GT(ahead_due, fire.db_now_us) << "the row ahead was due already";

  // Asked again before its time: still nothing.
  EXPECT_TRUE(Fire("a", owned, kDefaultOnly).started.empty());
  EXPECT_EQ(StateOf(ahead), TaskState::kPending);
}

TEST_P(StoreSlotFireTest, FencedByOwnerEpochAndLeaseFiresAndWritesNothing) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t now = NowUs();
  Put(0, "x", now - kSecondUs);
  Put(1, "y", now - kSecondUs);
  const auto rows = Rows();
  const std::string leases = LeaseTuples();

  std::vector<SlotEpoch> wrong_epoch = owned;
  for (SlotEpoch& s : wrong_epoch) s.epoch += 1;
  std::vector<SlotEpoch> old_epoch = owned;
  for (SlotEpoch& s : old_epoch) s.epoch -= 1;
  for (const auto& [node, slots] :
       std::vector<std::pair<std::string, std::vector<SlotEpoch>>>{
           {"a", wrong_epoch}, {"a", old_epoch}, {"b", owned}, {"a", {}}}) {
    SCOPED_TRACE(
        absl::StrCat(node, " epoch ", slots.empty() ? -1 : slots[0].epoch));
    const SlotFire fire = Fire(node, slots, kDefaultOnly);
    EXPECT_TRUE(fire.started.empty());
    EXPECT_TRUE(fire.next_due.empty());
    EXPECT_GT(fire.db_now_us, 0);
    const SlotDues dues = NextDue(node, slots);
    EXPECT_TRUE(dues.slots.empty());
    EXPECT_GT(dues.db_now_us, 0);
  }
  EXPECT_EQ(Rows(), rows);
  EXPECT_EQ(LeaseTuples(), leases);
}

TEST_P(StoreSlotFireTest, AnExpiredLeaseFiresNothing) {
  // Taken with a lease that ran out a second ago.
  const std::vector<SlotEpoch> owned = Own("a", /*ttl_us=*/-kSecondUs);
  Put(0, "x", NowUs() - kSecondUs);
  const auto rows = Rows();
  const SlotFire fire = Fire("a", owned, kDefaultOnly);
  EXPECT_TRUE(fire.started.empty());
  EXPECT_TRUE(fire.next_due.empty());
  EXPECT_TRUE(NextDue("a", owned).slots.empty());
  EXPECT_EQ(Rows(), rows);
}

// Higher priority first, then due order (README, "Task kinds,
// priorities": among due tasks waiting for a handler place, higher
// `priority` starts first, ties in due order), within each kind's free
// places; each held slot then reports the priority of the row it gives
// next (its best due row).
TEST_P(StoreSlotFireTest, EachKindGetsItsFreePlacesHigherPriorityFirst) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  // k0 has no free place, k2 two, "many" more than it has; the default
  // kind is not named at all (none).
  const std::string k0 = Put(0, "k0-first", t - kSecondUs, "k0");
  const std::string k2_low = Put(0, "k2-low", t, "k2", /*priority=*/1);
  const std::string k2_high = Put(1, "k2-high", t, "k2", /*priority=*/5);
  const std::string k2_late = Put(0, "k2-late", t + 100, "k2", 9);
  const std::string k2_later = Put(1, "k2-later", t + 200, "k2", 9);
  const std::string m1 = Put(1, "m1", t + 50, "many");
  const std::string m2 = Put(0, "m2", t + 300, "many", -3);
  const std::string m3 = Put(0, "m3", t + 300, "many", 3);
  const std::string plain = Put(1, "plain", t - 2 * kSecondUs);
  // Not due: a higher priority waiting later is neither taken nor read as
  // the slot's next.
  const std::string future =
      Put(0, "future", NowUs() + 3600 * kSecondUs, "k2", /*priority=*/20);

  const SlotFire fire =
      Fire("a", owned, {{"k0", 0}, {"k2", 2}, {"many", 100}, {"other", 5}});
  EXPECT_EQ(Ids(fire.started),
            (std::vector<std::string>{k2_late, k2_later, m3, m1, m2}));
  for (const std::string& id : {k0, k2_low, k2_high, plain, future}) {
    EXPECT_EQ(StateOf(id), TaskState::kPending) << id;
  }
  // What is left due is each slot's next due time; the next row it gives
  // is its highest priority due.
  EXPECT_EQ(DueOf(fire.next_due, 0), StoredDueUs(k0));
  EXPECT_EQ(DueOf(fire.next_due, 1), StoredDueUs(plain));
  // Rows of kinds without room are not "skipped": only rows picked and
  // not started are (the engine waits for an attempt to end instead).
  EXPECT_EQ(SkippedOf(fire.next_due, 0), 0);
  EXPECT_EQ(SkippedOf(fire.next_due, 1), 0);
  EXPECT_EQ(PriorityOf(fire.next_due, 0), 1);  // k2-low.
  EXPECT_EQ(PriorityOf(fire.next_due, 1), 5);  // k2-high.
  const SlotDues load = NextDue("a", owned);
  EXPECT_EQ(PriorityOf(load.slots, 0), 1);
  EXPECT_EQ(PriorityOf(load.slots, 1), 5);

  // A second fire gives k2 its next two places.
  const SlotFire again = Fire("a", owned, {{"k2", 2}});
  EXPECT_EQ(Ids(again.started), (std::vector<std::string>{k2_high, k2_low}));
  // Nothing due left in slot 0 but k0: the future row is not its next.
  EXPECT_EQ(PriorityOf(again.next_due, 0), 0);
}

// A small fire is exact in priority order across its slots: with a limit
// of 2, slot 0's later, higher priority row goes first, then its earliest
// (same priority as slot 1's, due earlier); a row of another priority
// level waiting later is not read as due.
TEST_P(StoreSlotFireTest, EachSlotGivesItsHighestPriorityDueRowFirst) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  const std::string early = Put(0, "early", t - 2 * kSecondUs);
  const std::string middle = Put(0, "middle", t - kSecondUs, "", -1);
  const std::string urgent = Put(0, "urgent", t, "", 7);
  const std::string other = Put(1, "other", t);
  const SlotFire fire = Fire("a", owned, kDefaultOnly, /*limit=*/2);
  EXPECT_EQ(Ids(fire.started), (std::vector<std::string>{urgent, early}));
  EXPECT_EQ(PriorityOf(fire.next_due, 0), -1);  // middle.
  EXPECT_EQ(PriorityOf(fire.next_due, 1), 0);   // other.
  EXPECT_EQ(Ids(Fire("a", owned, kDefaultOnly, 1).started),
            std::vector<std::string>{other});
  EXPECT_EQ(Ids(Fire("a", owned, kDefaultOnly, 1).started),
            std::vector<std::string>{middle});
}

// Review: rows below `min_priority` (the best of the due slots the engine
// did not name) wait, whatever the places; the rest fire as before, and
// each slot's next row is reported as usual.
TEST_P(StoreSlotFireTest, RowsBelowTheFloorWait) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  const std::string top = Put(0, "top", t, "", 10);
  const std::string same = Put(0, "same", t + 1, "", 5);
  const std::string low = Put(0, "low", t - kSecondUs);
  const std::string other = Put(1, "other", t, "", -3);
  const SlotFire fire = Fire("a", owned, kDefaultOnly, 100, 0, 5);
  EXPECT_EQ(Ids(fire.started), (std::vector<std::string>{top, same}));
  EXPECT_EQ(PriorityOf(fire.next_due, 0), 0);   // low.
  EXPECT_EQ(PriorityOf(fire.next_due, 1), -3);  // other.
  EXPECT_EQ(Ids(Fire("a", owned, kDefaultOnly).started),
            (std::vector<std::string>{low, other}));
}

// The kinds the fire does not name (no handler here: the engine snoozes
// them) share `others_free` places, in the same order; a kind named with no
// free place is not one of them.
TEST_P(StoreSlotFireTest, TheKindsNotNamedShareTheOthersPlaces) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  const std::string k0 = Put(0, "k0", t - 3 * kSecondUs, "k0");
  const std::string k2 = Put(1, "k2", t, "k2");
  const std::string many = Put(0, "many", t + 100, "many");
  const std::string k2_late = Put(0, "k2-late", t + 200, "k2");
  const std::string plain = Put(1, "plain", t - kSecondUs);
  const std::string plain_late = Put(0, "plain-late", t + 300);

  const SlotFire fire = Fire("a", owned, {{"", 1}, {"k0", 0}}, 100,
                             /*others_free=*/2);
  EXPECT_EQ(Ids(fire.started), (std::vector<std::string>{plain, k2, many}));
  for (const std::string& id : {k0, k2_late, plain_late}) {
    EXPECT_EQ(StateOf(id), TaskState::kPending) << id;
  }
  // None for the others: only the kinds named fire.
  const SlotFire named = Fire("a", owned, {{"", 1}, {"k2", 1}});
  EXPECT_EQ(Ids(named.started),
            (std::vector<std::string>{k2_late, plain_late}));
  EXPECT_EQ(StateOf(k0), TaskState::kPending);
  // The others' places are cut by the limit and by each slot's share.
  const SlotFire limited = Fire("a", owned, {}, /*limit=*/1, 5);
  EXPECT_EQ(Ids(limited.started), std::vector<std::string>{k0});
}

TEST_P(StoreSlotFireTest, TheLimitTakesTheEarliest) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(Put(i % 2, absl::StrCat("r", i), t + i * 1000));
  }
  const SlotFire first = Fire("a", owned, kDefaultOnly, /*limit=*/3);
  EXPECT_EQ(Ids(first.started),
            (std::vector<std::string>{ids[0], ids[1], ids[2]}));
  EXPECT_EQ(DueOf(first.next_due, 0), StoredDueUs(ids[4]));
  EXPECT_EQ(DueOf(first.next_due, 1), StoredDueUs(ids[3]));
  EXPECT_TRUE(Fire("a", owned, kDefaultOnly, /*limit=*/0).started.empty());
  const SlotFire rest = Fire("a", owned, kDefaultOnly, /*limit=*/10);
  EXPECT_EQ(Ids(rest.started), (std::vector<std::string>{ids[3], ids[4]}));
  EXPECT_EQ(DueOf(rest.next_due, 0), kNoDueUs);
  EXPECT_EQ(DueOf(rest.next_due, 1), kNoDueUs);
}

// A slot gives at most the limit over the held slots (rounded up) of a
// kind, so that a fire reads about its limit when many rows are due; the
// rest stay, and the slot's next due time says they are due. A small fire
// (the whole limit from each slot reads at most kSlotFireExactRows) gives
// each slot the whole limit.
TEST_P(StoreSlotFireTest, ASlotGivesAtMostItsShareOfTheLimit) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  std::vector<std::string> crowded;
  for (int i = 0; i < 200; ++i) {
    crowded.push_back(Put(0, absl::StrCat("crowded", i), t + i));
  }
  const std::string lone = Put(1, "lone", t + 1000);
  // Limit 300 over 2 slots: the whole limit from each would read 600 rows,
  // so a share of 150 each. Slot 0 gives its first 150, slot 1 its only
  // row.
  const SlotFire first = Fire("a", owned, {{"", 1000}}, /*limit=*/300);
  ASSERT_EQ(first.started.size(), 151u);
  EXPECT_EQ(Ids(first.started).back(), lone);
  EXPECT_EQ(DueOf(first.next_due, 0), StoredDueUs(crowded[150]));
  EXPECT_LE(DueOf(first.next_due, 0), first.db_now_us) << "still due";
  EXPECT_EQ(DueOf(first.next_due, 1), kNoDueUs);
  // Slot 0 alone: the whole limit is its share.
  SlotEpoch slot0;
  slot0.slot = 0;
  slot0.epoch = EpochOf(owned, 0);
  const SlotFire second = Fire("a", {slot0}, kDefaultOnly, /*limit=*/3);
  EXPECT_EQ(
      Ids(second.started),
      (std::vector<std::string>{crowded[150], crowded[151], crowded[152]}));
  // A small fire over both slots: slot 0 gives the whole limit.
  const std::string late = Put(1, "late", t + 2000);
  const SlotFire third = Fire("a", owned, kDefaultOnly, /*limit=*/4);
  EXPECT_EQ(Ids(third.started),
            (std::vector<std::string>{crowded[153], crowded[154], crowded[155],
                                      crowded[156]}));
  EXPECT_EQ(StateOf(late), TaskState::kPending);
}

TEST_P(StoreSlotFireTest, ARowAnotherTransactionHoldsIsPassedOverAtOnce) {
  if (fake()) GTEST_SKIP() << "the fake store has no row locks";
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  const std::string held = Put(0, "held", t);
  const std::string free = Put(0, "free", t + 1);
  {
    auto lock = durable_testing::StoreLock::LockTask(pg_->conninfo(), held);
    ASSERT_TRUE(lock.ok()) << lock.status();
    const absl::Time start = absl::Now();
    // A fire that waited for the lock would fail on the 1 s lock timeout.
    const SlotFire fire = Fire("a", owned, kDefaultOnly);
    const absl::Duration took = absl::Now() - start;
    std::printf("fire passing over a locked row: %s\n",
                absl::FormatDuration(took).c_str());
    EXPECT_LT(took, absl::Milliseconds(900));
    EXPECT_EQ(Ids(fire.started), std::vector<std::string>{free});
    EXPECT_EQ(DueOf(fire.next_due, 0), StoredDueUs(held));
    EXPECT_EQ(StateOf(held), TaskState::kPending);
    // Reported as skipped: the engine retries the slot soon.
    EXPECT_EQ(SkippedOf(fire.next_due, 0), 1);
  }
  // Released: the next fire takes it.
  EXPECT_EQ(Ids(Fire("a", owned, kDefaultOnly).started),
            std::vector<std::string>{held});
}

TEST_P(StoreSlotFireTest, RunningFinishedAndCancelledRowsAreNeverFired) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  const std::string running = Put(0, "running", t);
  ASSERT_EQ(Fire("a", owned, kDefaultOnly).started.size(), 1u);
  const std::string succeeded = Put(0, "succeeded", t);
  const std::string failed = Put(1, "failed", t);
  const SlotFire two = Fire("a", owned, kDefaultOnly);
  ASSERT_EQ(two.started.size(), 2u);
  std::vector<Completion> outcomes;
  for (const Started& s : two.started) {
    Completion c;
    c.id = s.task.id;
    c.version = s.version;
    c.attempt = s.task.attempt;
    c.slot = s.slot;
    c.outcome = s.task.id == failed ? Outcome::kFailed : Outcome::kSuccess;
    c.error = "bad";
    c.started_us = s.started_us;
    outcomes.push_back(c);
  }
  auto done = store_->Complete(outcomes, /*horizon_us=*/0, {});
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->written, 2);
  const std::string cancelled = Put(1, "cancelled", t);
  auto cancel = store_->Cancel(cancelled);
  ASSERT_TRUE(cancel.ok() && *cancel);

  const auto rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  const SlotFire fire = Fire("a", owned, kDefaultOnly);
  EXPECT_TRUE(fire.started.empty()) << fire.started[0].task.id;
  EXPECT_EQ(DueOf(fire.next_due, 0), kNoDueUs);
  EXPECT_EQ(DueOf(fire.next_due, 1), kNoDueUs);
  EXPECT_EQ(Rows(), rows);
  EXPECT_EQ(StateOf(running), TaskState::kRunning);
  EXPECT_EQ(StateOf(succeeded), TaskState::kSuccess);
  EXPECT_EQ(StateOf(failed), TaskState::kFailed);
  EXPECT_TRUE(absl::IsNotFound(store_->Get(cancelled).status()));
}

TEST_P(StoreSlotFireTest, ARowLeftScheduledUnderAFormerEpochIsFired) {
  const std::vector<SlotEpoch> a = Own("a");
  const std::string x = Put(0, "x", NowUs() - kSecondUs);
  auto claimed = store_->ClaimDue("a", a, /*horizon_us=*/kMinuteUs, 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->tasks.size(), 1u);
  ASSERT_TRUE(store_->Release("a", a).ok());
  const std::vector<SlotEpoch> b = Own("b");
  ASSERT_GT(EpochOf(b, 0), EpochOf(a, 0));
  EXPECT_EQ(StateOf(x), TaskState::kScheduled);

  EXPECT_EQ(DueOf(NextDue("b", b).slots, 0), StoredDueUs(x));
  EXPECT_TRUE(Fire("a", a, kDefaultOnly).started.empty());
  const SlotFire fire = Fire("b", b, kDefaultOnly);
  ASSERT_EQ(Ids(fire.started), std::vector<std::string>{x});
  EXPECT_EQ(fire.started[0].epoch, EpochOf(b, 0));
  EXPECT_EQ(Rows()[x].epoch, EpochOf(b, 0));
}

TEST_P(StoreSlotFireTest, NextDueWritesNothing) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t now = NowUs();
  const std::string running = Put(0, "running", now - 3 * kSecondUs);
  ASSERT_EQ(Fire("a", owned, kDefaultOnly).started.size(), 1u);
  const std::string due = Put(0, "due", now - kSecondUs);
  Put(0, "later", now + kMinuteUs);
  const std::string scheduled = Put(1, "scheduled", now + 2 * kMinuteUs);
  auto claimed = store_->ClaimDue("a", owned, /*horizon_us=*/kMinuteUs * 5, 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(StateOf(scheduled), TaskState::kScheduled);

  const auto rows = Rows();
  const std::string leases = LeaseTuples();
  const SlotDues dues = NextDue("a", owned);
  ASSERT_EQ(dues.slots.size(), 2u);
  EXPECT_EQ(dues.slots[0].slot, 0);
  EXPECT_EQ(dues.slots[0].epoch, EpochOf(owned, 0));
  // The RUNNING row is earlier and is not waiting.
  EXPECT_EQ(dues.slots[0].next_due_us, StoredDueUs(due));
  EXPECT_EQ(dues.slots[1].next_due_us, StoredDueUs(scheduled));
  EXPECT_EQ(Rows(), rows);
  EXPECT_EQ(LeaseTuples(), leases);
}

TEST_P(StoreSlotFireTest, AFiredRowIsARunningAttemptNotYetCounted) {
  const std::vector<SlotEpoch> owned = Own("a");
  const std::string x = Put(1, "x", NowUs() - kSecondUs);
  const int64_t before = Rows()[x].version;
  const SlotFire fire = Fire("a", owned, kDefaultOnly);
  ASSERT_EQ(fire.started.size(), 1u);
  const Started& s = fire.started[0];
  const RowState row = Rows()[x];
  EXPECT_EQ(row.state, TaskState::kRunning);
  EXPECT_EQ(row.epoch, EpochOf(owned, 1));
  EXPECT_EQ(row.attempt, 0);  // Counted by the completion (or a mark).
  EXPECT_EQ(s.task.attempt, 1);
  EXPECT_EQ(s.version, row.version);
  EXPECT_NE(s.version, before);

  Completion c;
  c.id = x;
  c.version = s.version;
  c.attempt = s.task.attempt;
  c.slot = s.slot;
  c.started_us = s.started_us;
  auto done = store_->Complete({c}, /*horizon_us=*/0, {});
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->succeeded, 1);
  auto info = store_->Get(x);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->state, TaskState::kSuccess);
  EXPECT_EQ(info->attempt, 1);
}

// A slot named twice in `owned` is held, fired and reported once (the
// lease join once returned it twice: each row counted twice against its
// kind's share, and the slot twice in next_due).
TEST_P(StoreSlotFireTest, ASlotNamedTwiceIsFiredOnce) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  const std::string first = Put(0, "first", t);
  const std::string second = Put(0, "second", t + 1);
  std::vector<SlotEpoch> twice = owned;
  twice.push_back(owned[0].slot == 0 ? owned[0] : owned[1]);
  const SlotFire fire = Fire("a", twice, {{"", 2}});
  EXPECT_EQ(Ids(fire.started), (std::vector<std::string>{first, second}));
  EXPECT_EQ(fire.next_due.size(), 2u);
}

// A kind name no task can carry (here not UTF-8, which PostgreSQL cannot
// hold as text) among the capacities gets nothing, and the rest fire: one
// bad entry never fails the fire.
TEST_P(StoreSlotFireTest, AKindNameNoTaskCanCarryGetsNothingAndTheRestFire) {
  const std::vector<SlotEpoch> owned = Own("a");
  const std::string x = Put(0, "x", NowUs() - kSecondUs);
  absl::StatusOr<SlotFire> fire =
      store_->FireSlots("a", owned, {{"", 10}, {"\xff", 1}}, 0, 100,
                        std::numeric_limits<int>::min());
  ASSERT_TRUE(fire.ok()) << fire.status();
  EXPECT_EQ(Ids(fire->started), std::vector<std::string>{x});
}

// A takeover that locked the lease row first and commits while the fire
// waits on it (seen waiting on a lock in pg_stat_activity) fences the
// fire: nothing of that slot runs under the stale epoch.
TEST_P(StoreSlotFireTest, ATakeoverCommittingWhileTheFireWaitsFencesIt) {
  if (fake()) GTEST_SKIP() << "no locks in the fake";
  const std::vector<SlotEpoch> owned = Own("a");
  const std::string x = Put(0, "x", NowUs() - kSecondUs);
  PGconn* taker = PQconnectdb(pg_->conninfo().c_str());
  ASSERT_EQ(PQstatus(taker), CONNECTION_OK);
  auto exec = [&](const char* sql) {
    PGresult* r = PQexec(taker, sql);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
                    PQresultStatus(r) == PGRES_TUPLES_OK;
    EXPECT_TRUE(ok) << sql << ": " << PQerrorMessage(taker);
    PQclear(r);
  };
  exec("BEGIN");
  exec("SELECT slot FROM tw_slot_lease WHERE slot = 0 FOR UPDATE SKIP LOCKED");
  exec(
      "UPDATE tw_slot_lease SET owner = 'b', epoch = epoch + 1, "
      "lease_until_us = tw_now_us() + 60000000 WHERE slot = 0");
  absl::StatusOr<SlotFire> fire;
  std::thread firer([&] {
    fire = store_->FireSlots("a", owned, kDefaultOnly, 0, 100,
                             std::numeric_limits<int>::min());
  });
  EXPECT_TRUE(WaitFor([&] {
    auto waiting = durable_testing::QueryInt(
        pg_->conninfo(),
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
        "'Lock' AND datname = current_database()");
    return waiting.ok() && *waiting > 0;
  })) << "the fire never waited on the lease row";
  exec("COMMIT");
  firer.join();
  PQfinish(taker);
  ASSERT_TRUE(fire.ok()) << fire.status();
  EXPECT_TRUE(fire->started.empty()) << fire->started[0].task.id;
  EXPECT_EQ(StateOf(x), TaskState::kPending);
}

// A SCHEDULED row this owner claimed under its current epoch: FireSlots
// fires it, and the wheel's StartRunning of the same row afterwards starts
// nothing (no double start); the reverse order as well.
TEST_P(StoreSlotFireTest, AClaimedRowIsStartedOnceByEitherFire) {
  const std::vector<SlotEpoch> owned = Own("a");
  const std::string x = Put(0, "x", NowUs() - kSecondUs);
  const std::string y = Put(1, "y", NowUs() - kSecondUs);
  auto claimed = store_->ClaimDue("a", owned, /*horizon_us=*/kMinuteUs, 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->tasks.size(), 2u);
  std::vector<durable_internal::WheelEntry> wx, wy;
  for (const auto& e : claimed->tasks) (e.id == x ? wx : wy).push_back(e);
  // y: the wheel first.
  auto started_y = store_->StartRunning("a", wy);
  ASSERT_TRUE(started_y.ok()) << started_y.status();
  ASSERT_EQ(started_y->started.size(), 1u);
  const SlotFire fire = Fire("a", owned, kDefaultOnly);
  EXPECT_EQ(Ids(fire.started), std::vector<std::string>{x});
  auto again = store_->StartRunning("a", wx);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->started.empty());
  EXPECT_TRUE(again->not_due.empty());
}

// Limits 0 and negative, a share above the limit, a negative share, huge
// values: the same answers on both stores.
TEST_P(StoreSlotFireTest, LimitsAndSharesAtTheEdges) {
  const std::vector<SlotEpoch> owned = Own("a");
  const int64_t t = NowUs() - 10 * kSecondUs;
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(Put(i % 2, absl::StrCat("e", i), t + i));
  EXPECT_TRUE(Fire("a", owned, kDefaultOnly, -1).started.empty());
  EXPECT_TRUE(Fire("a", owned, kDefaultOnly, INT64_MIN).started.empty());
  EXPECT_TRUE(Fire("a", owned, {{"", -5}}, 10).started.empty());
  EXPECT_TRUE(Fire("a", owned, {{"", INT64_MIN}}, 10).started.empty());
  EXPECT_EQ(Ids(Fire("a", owned, {{"", 1000}}, 1).started),
            std::vector<std::string>{ids[0]});
  EXPECT_EQ(Ids(Fire("a", owned, {{"", INT64_MAX}}, INT64_MAX).started),
            (std::vector<std::string>{ids[1], ids[2], ids[3]}));
}

TW_TWO_STORE_SUITE(StoreSlotFireTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
