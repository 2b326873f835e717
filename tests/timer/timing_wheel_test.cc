// Copyright 2026 The timingwheel Authors.
//
// Tests of TimingWheel placement at small sizes, observed through
// num_levels(), EarliestKey() and the buckets PopDueBucket() returns: which
// tasks share a bucket, when an overflow level is created, what an overflow
// level's current time rounds to, and that due times up to the max int64
// place without overflow.

#include "timer/internal/timing_wheel.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "timer/internal/bucket.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

class NoopTask final : public TimerTask {
 public:
  void Run() override {}
};

// Owns the tasks of one test and places them in a wheel.
class WheelTest : public ::testing::Test {
 protected:
  TimerTask* Place(TimingWheel& wheel, int64_t due) {
    tasks_.push_back(MakeTask<NoopTask>());
    TimerTask* task = tasks_.back().get();
    TimingWheel::SetDueOf(task, due);
    wheel.Place(task);
    return task;
  }

  // Pops the next due bucket at `now`, empties it and returns the due times
  // of its tasks, sorted; empty when no bucket is due.
  static std::vector<int64_t> PopBucket(TimingWheel& wheel, int64_t now) {
    std::vector<int64_t> dues;
    Bucket* bucket = wheel.PopDueBucket(now);
    if (bucket == nullptr) return dues;
    EXPECT_FALSE(wheel.IsDueList(bucket));
    while (!ListEmpty(&bucket->head)) {
      ListNode* node = bucket->head.next;
      Unlink(node);
      dues.push_back(TimingWheel::DueOf(TimingWheel::AsTask(node)));
    }
    TimingWheel::ResetBucket(bucket);
    std::sort(dues.begin(), dues.end());
    return dues;
  }

  std::vector<TaskPtr<TimerTask>> tasks_;
};

using TimingWheelTest = WheelTest;

TEST_F(TimingWheelTest, EmptyWheel) {
  TimingWheel wheel(10, 5);
  EXPECT_EQ(wheel.num_levels(), 1);
  EXPECT_EQ(wheel.time(), 0);
  EXPECT_EQ(wheel.EarliestKey(), kMaxNanos);
  EXPECT_EQ(wheel.PopDueBucket(kMax), nullptr);
}

TEST_F(TimingWheelTest, CurrentTickGoesToTheCurrentBucketKeyedByEarliestDue) {
  TimingWheel wheel(10, 5);
  Place(wheel, 7);
  Place(wheel, 3);
  Place(wheel, 9);
  EXPECT_TRUE(wheel.InCurrentTick(9));
  EXPECT_FALSE(wheel.InCurrentTick(10));
  EXPECT_EQ(wheel.num_levels(), 1);
  // The key is the earliest due time, not the slot's start (0).
  EXPECT_EQ(wheel.EarliestKey(), 3);
  EXPECT_EQ(wheel.PopDueBucket(2), nullptr);
  EXPECT_EQ(PopBucket(wheel, 3), (std::vector<int64_t>{3, 7, 9}));
  EXPECT_EQ(wheel.EarliestKey(), kMaxNanos);
}

TEST_F(TimingWheelTest, AlreadyDueTasksGoToTheCurrentBucket) {
  TimingWheel wheel(10, 5);
  wheel.AdvanceTo(123);
  Place(wheel, 0);
  Place(wheel, 100);
  Place(wheel, 125);
  EXPECT_EQ(wheel.num_levels(), 1);
  EXPECT_EQ(wheel.EarliestKey(), 0);
  EXPECT_EQ(PopBucket(wheel, 123), (std::vector<int64_t>{0, 100, 125}));
}

TEST_F(TimingWheelTest, LevelZeroSlotsGroupByTick) {
  TimingWheel wheel(10, 5);
  Place(wheel, 25);
  Place(wheel, 21);
  Place(wheel, 29);
  Place(wheel, 30);
  Place(wheel, 49);
  EXPECT_EQ(wheel.num_levels(), 1);  // Everything below 0 + 5 * 10.
  EXPECT_EQ(wheel.EarliestKey(), 21);
  EXPECT_EQ(PopBucket(wheel, 100), (std::vector<int64_t>{21, 25, 29}));
  EXPECT_EQ(wheel.EarliestKey(), 30);
  EXPECT_EQ(PopBucket(wheel, 100), (std::vector<int64_t>{30}));
  EXPECT_EQ(PopBucket(wheel, 100), (std::vector<int64_t>{49}));
  EXPECT_EQ(PopBucket(wheel, 100), std::vector<int64_t>{});
}

TEST_F(TimingWheelTest, OverflowLevelsAreCreatedOnFirstNeed) {
  TimingWheel wheel(10, 5);  // Intervals 50, 250, 1250, ...
  Place(wheel, 49);
  EXPECT_EQ(wheel.num_levels(), 1);
  Place(wheel, 50);
  EXPECT_EQ(wheel.num_levels(), 2);
  Place(wheel, 249);
  EXPECT_EQ(wheel.num_levels(), 2);
  Place(wheel, 250);
  EXPECT_EQ(wheel.num_levels(), 3);
  Place(wheel, 1249);
  EXPECT_EQ(wheel.num_levels(), 3);
  Place(wheel, 1250);
  EXPECT_EQ(wheel.num_levels(), 4);
  EXPECT_EQ(wheel.EarliestKey(), 49);
}

TEST_F(TimingWheelTest, PowerOfTwoSizeUsesTheSameBoundaries) {
  TimingWheel wheel(10, 8);  // Intervals 80, 640, 5120.
  Place(wheel, 79);
  EXPECT_EQ(wheel.num_levels(), 1);
  Place(wheel, 80);
  EXPECT_EQ(wheel.num_levels(), 2);
  Place(wheel, 639);
  EXPECT_EQ(wheel.num_levels(), 2);
  Place(wheel, 640);
  EXPECT_EQ(wheel.num_levels(), 3);
  // 80..159 share level-1 slot 1; 639 is alone in slot 7; 640 in level 2.
  Place(wheel, 150);
  Place(wheel, 100);
  EXPECT_EQ(PopBucket(wheel, kMax), (std::vector<int64_t>{79}));
  EXPECT_EQ(PopBucket(wheel, kMax), (std::vector<int64_t>{80, 100, 150}));
  EXPECT_EQ(PopBucket(wheel, kMax), (std::vector<int64_t>{639}));
  EXPECT_EQ(PopBucket(wheel, kMax), (std::vector<int64_t>{640}));
}

TEST_F(TimingWheelTest, OverflowSlotsGroupByTheLevelTick) {
  TimingWheel wheel(10, 5);
  Place(wheel, 90);   // Level 1 (tick 50), slot 1.
  Place(wheel, 60);   // Same slot.
  Place(wheel, 110);  // Slot 2.
  Place(wheel, 99);   // Slot 1.
  EXPECT_EQ(wheel.num_levels(), 2);
  EXPECT_EQ(wheel.EarliestKey(), 60);
  EXPECT_EQ(PopBucket(wheel, 59), std::vector<int64_t>{});
  EXPECT_EQ(PopBucket(wheel, 60), (std::vector<int64_t>{60, 90, 99}));
  EXPECT_EQ(wheel.EarliestKey(), 110);
}

TEST_F(TimingWheelTest, OverflowLevelCurrentTimeRoundsDownToItsTick) {
  TimingWheel wheel(10, 5);
  wheel.AdvanceTo(137);  // Level 0 current: 130.
  Place(wheel, 179);     // 179 - 130 < 50: level 0.
  EXPECT_EQ(wheel.num_levels(), 1);
  Place(wheel, 180);  // Level 1 is created; its current is 137 rounded
  EXPECT_EQ(wheel.num_levels(), 2);  // down to its tick 50: 100.
  // Level 1 covers [100, 350): 349 fits, 350 needs level 2. Had level 1's
  // current been 130 or 137, 350..379 would still fit in level 1.
  Place(wheel, 349);
  EXPECT_EQ(wheel.num_levels(), 2);
  Place(wheel, 350);
  EXPECT_EQ(wheel.num_levels(), 3);
  // Level 2 (tick 250): current 0, covers [0, 1250).
  Place(wheel, 1249);
  EXPECT_EQ(wheel.num_levels(), 3);
  Place(wheel, 1250);
  EXPECT_EQ(wheel.num_levels(), 4);
}

TEST_F(TimingWheelTest, AdvanceMovesExistingOverflowLevelsToo) {
  TimingWheel wheel(10, 5);
  Place(wheel, 60);  // Creates level 1 at time 0.
  ASSERT_EQ(wheel.num_levels(), 2);
  wheel.AdvanceTo(137);  // Level 1 current: 100, covering [100, 350).
  EXPECT_EQ(wheel.time(), 137);
  Place(wheel, 349);
  EXPECT_EQ(wheel.num_levels(), 2);
  Place(wheel, 350);
  EXPECT_EQ(wheel.num_levels(), 3);
}

TEST_F(TimingWheelTest, AdvanceNeverMovesBackwards) {
  TimingWheel wheel(10, 5);
  wheel.AdvanceTo(137);
  wheel.AdvanceTo(20);
  EXPECT_EQ(wheel.time(), 137);
  // Still at 137: a task due 175 fits in level 0 (130 + 50 > 175); at 20 it
  // would not (20 + 50).
  Place(wheel, 175);
  EXPECT_EQ(wheel.num_levels(), 1);
}

TEST_F(TimingWheelTest, YearsAndMaxInt64PlaceWithoutOverflow) {
  TimingWheel wheel(10, 5);
  const int64_t year = int64_t{365} * 24 * 3600 * 1'000'000'000;
  Place(wheel, year);
  const int levels_for_a_year = wheel.num_levels();
  EXPECT_GT(levels_for_a_year, 2);
  Place(wheel, kMax);
  // 10 * 5^25 fits in 64 bits, its interval does not: level 25 is the top.
  EXPECT_EQ(wheel.num_levels(), 26);
  Place(wheel, kMax - 1);
  EXPECT_EQ(wheel.num_levels(), 26);
  EXPECT_EQ(wheel.EarliestKey(), year);
  EXPECT_EQ(PopBucket(wheel, year - 1), std::vector<int64_t>{});
  EXPECT_EQ(PopBucket(wheel, year), (std::vector<int64_t>{year}));
  EXPECT_EQ(PopBucket(wheel, kMax - 2), std::vector<int64_t>{});
  EXPECT_EQ(PopBucket(wheel, kMax), (std::vector<int64_t>{kMax - 1, kMax}));
  // Far along: the top level still takes everything.
  wheel.AdvanceTo(kMax - 1000);
  Place(wheel, kMax);
  Place(wheel, kMax - 995);
  EXPECT_EQ(wheel.num_levels(), 26);
  EXPECT_EQ(wheel.EarliestKey(), kMax - 995);
}

TEST_F(TimingWheelTest, CurrentTickAtTheEndOfTimeDoesNotOverflow) {
  // The last tick starts at kMax - 7 (kMax % 10 == 7); its end, kMax + 3,
  // is not representable (UBSan flagged `current + tick` here).
  TimingWheel wheel(10, 5);
  wheel.AdvanceTo(kMax - 2);
  EXPECT_TRUE(wheel.InCurrentTick(kMax));
  EXPECT_TRUE(wheel.InCurrentTick(kMax - 7));
  Place(wheel, kMax - 1);
  Place(wheel, kMax - 5);
  EXPECT_EQ(wheel.num_levels(), 1);  // Both in the current bucket.
  EXPECT_EQ(wheel.EarliestKey(), kMax - 5);
  EXPECT_EQ(PopBucket(wheel, kMax - 2),
            (std::vector<int64_t>{kMax - 5, kMax - 1}));
}

TEST_F(TimingWheelTest, OneNanosecondTickAndSizeTwoReachSixtyThreeLevels) {
  TimingWheel wheel(1, 2);
  Place(wheel, kMax);
  EXPECT_EQ(wheel.num_levels(), 63);  // Ticks 2^0 .. 2^62.
  // Due at the end of time, it never becomes due: it keys nothing.
  EXPECT_EQ(wheel.EarliestKey(), kMaxNanos);
  EXPECT_EQ(wheel.PopDueBucket(kMax), nullptr);
  Place(wheel, kMax - 1);  // The same top-level slot, now keyed.
  EXPECT_EQ(wheel.num_levels(), 63);
  EXPECT_EQ(wheel.EarliestKey(), kMax - 1);
  EXPECT_EQ(PopBucket(wheel, kMax), (std::vector<int64_t>{kMax - 1, kMax}));
}

TEST_F(TimingWheelTest, StaleKeyAfterUnlinkCostsOneEarlyFlush) {
  TimingWheel wheel(10, 5);
  TimerTask* early = Place(wheel, 21);
  Place(wheel, 27);  // The same bucket: it is not emptied.
  Place(wheel, 33);
  wheel.Unlink(early);                 // What Timer::Cancel() does.
  EXPECT_EQ(wheel.EarliestKey(), 21);  // A lower bound, still.
  EXPECT_EQ(PopBucket(wheel, 21), std::vector<int64_t>{27});  // Early.
  EXPECT_EQ(wheel.EarliestKey(), 33);
}

TEST_F(TimingWheelTest, BucketEmptiedByUnlinkIsNeverReportedNorPopped) {
  TimingWheel wheel(10, 5);
  TimerTask* early = Place(wheel, 21);
  Place(wheel, 33);
  wheel.Unlink(early);  // Empties its bucket, left in the delay queue.
  EXPECT_EQ(wheel.KeyLowerBound(), 21);  // Still there: no heap removal.
  EXPECT_EQ(wheel.EarliestKey(), 33);    // Discarded once at the top.
  EXPECT_EQ(wheel.KeyLowerBound(), 33);
  EXPECT_EQ(wheel.PopDueBucket(32), nullptr);
  EXPECT_EQ(PopBucket(wheel, 33), std::vector<int64_t>{33});
  EXPECT_EQ(wheel.EarliestKey(), kMaxNanos);
}

TEST_F(TimingWheelTest, EmptiedBucketPoppedAtItsOldKeyYieldsNothing) {
  TimingWheel wheel(10, 5);
  TimerTask* early = Place(wheel, 21);
  wheel.Unlink(early);
  EXPECT_EQ(wheel.PopDueBucket(kMax), nullptr);  // Not an empty flush.
  EXPECT_EQ(wheel.KeyLowerBound(), kMaxNanos);
}

TEST_F(TimingWheelTest, RefilledEmptiedBucketIsRekeyedUpNotLeftEarly) {
  TimingWheel wheel(10, 5);
  TimerTask* early = Place(wheel, 21);
  Place(wheel, 43);
  wheel.Unlink(early);
  Place(wheel, 27);  // The same bucket as 21: its stale key goes up.
  EXPECT_EQ(wheel.KeyLowerBound(), 27);
  EXPECT_EQ(wheel.EarliestKey(), 27);
  EXPECT_EQ(wheel.PopDueBucket(26), nullptr);
  EXPECT_EQ(PopBucket(wheel, 27), std::vector<int64_t>{27});
  EXPECT_EQ(wheel.EarliestKey(), 43);
}

TEST_F(TimingWheelTest, EmptiedDueListIsDiscardedToo) {
  TimingWheel wheel(10, 5);
  ListNode staging;
  InitList(&staging);
  tasks_.push_back(MakeTask<NoopTask>());
  TimingWheel::SetDueOf(tasks_.back().get(), 4);
  LinkBefore(&staging, TimingWheel::AsNode(tasks_.back().get()));
  wheel.MergeIntoDueList(&staging);
  Place(wheel, 33);
  wheel.Unlink(tasks_.front().get());
  EXPECT_EQ(wheel.EarliestKey(), 33);
  EXPECT_EQ(wheel.PopDueBucket(32), nullptr);
}

TEST_F(TimingWheelTest, DueListKeepsDueOrderAndPopsOnlyDueTasks) {
  TimingWheel wheel(10, 5);
  ListNode staging;
  InitList(&staging);
  for (int64_t due : {7, 2, 5, 2, 9}) {
    tasks_.push_back(MakeTask<NoopTask>());
    TimingWheel::SetDueOf(tasks_.back().get(), due);
    LinkBefore(&staging, TimingWheel::AsNode(tasks_.back().get()));
  }
  wheel.MergeIntoDueList(&staging);
  EXPECT_TRUE(ListEmpty(&staging));
  EXPECT_EQ(wheel.EarliestKey(), 2);
  Bucket* due_list = wheel.PopDueBucket(5);
  ASSERT_NE(due_list, nullptr);
  EXPECT_TRUE(wheel.IsDueList(due_list));
  std::vector<TimerTask*> out;
  EXPECT_TRUE(wheel.PopDueTasks(5, 2, out));  // Chunk of 2, one more due.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(TimingWheel::DueOf(out[0]), 2);
  EXPECT_EQ(TimingWheel::DueOf(out[1]), 2);
  EXPECT_EQ(TimingWheel::AsNode(out[0])->prev, nullptr);  // Unlinked.
  EXPECT_EQ(wheel.EarliestKey(), 5);  // Re-keyed into the queue.
  ASSERT_TRUE(wheel.IsDueList(wheel.PopDueBucket(5)));
  EXPECT_FALSE(wheel.PopDueTasks(5, 100, out));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(TimingWheel::DueOf(out[2]), 5);
  EXPECT_EQ(wheel.EarliestKey(), 7);
  ASSERT_TRUE(wheel.IsDueList(wheel.PopDueBucket(9)));
  EXPECT_FALSE(wheel.PopDueTasks(9, 100, out));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(TimingWheel::DueOf(out[4]), 9);
  EXPECT_EQ(wheel.EarliestKey(), kMaxNanos);
}

TEST_F(TimingWheelTest, MergingAChunkKeepsDueOrderAndIsStable) {
  // A second chunk merged into a due list that already holds tasks: the
  // result is sorted, and among equal due times the tasks already in the
  // list come first, then the chunk's in their flush order.
  TimingWheel wheel(10, 5);
  ListNode staging;
  InitList(&staging);
  auto stage = [&](int64_t due) {
    tasks_.push_back(MakeTask<NoopTask>());
    TimingWheel::SetDueOf(tasks_.back().get(), due);
    LinkBefore(&staging, TimingWheel::AsNode(tasks_.back().get()));
    return tasks_.back().get();
  };
  TimerTask* first5 = stage(5);
  TimerTask* first9 = stage(9);
  stage(2);
  wheel.MergeIntoDueList(&staging);
  TimerTask* second9 = stage(9);
  TimerTask* second5 = stage(5);
  stage(1);
  stage(3);
  TimerTask* third5 = stage(5);
  wheel.MergeIntoDueList(&staging);
  EXPECT_EQ(wheel.EarliestKey(), 1);
  ASSERT_TRUE(wheel.IsDueList(wheel.PopDueBucket(9)));
  std::vector<TimerTask*> out;
  EXPECT_FALSE(wheel.PopDueTasks(9, 100, out));
  std::vector<int64_t> dues;
  for (TimerTask* task : out) dues.push_back(TimingWheel::DueOf(task));
  EXPECT_EQ(dues, (std::vector<int64_t>{1, 2, 3, 5, 5, 5, 9, 9}));
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out[3], first5);
  EXPECT_EQ(out[4], second5);
  EXPECT_EQ(out[5], third5);
  EXPECT_EQ(out[6], first9);
  EXPECT_EQ(out[7], second9);
}

TEST_F(TimingWheelTest, ALargeBucketAboveLevelZeroIsKeyedEarly) {
  // 1 ms tick, 512 slots: level 0 covers 512 ms, so tasks due at 1 s sit in
  // a level-1 bucket. From 64 tasks on, its key leads its earliest due time
  // by 500 ns per task, the count rounded up to a power of two above it.
  TimingWheel wheel(1'000'000, 512);
  constexpr int64_t kDue = 1'000'000'000;
  for (int i = 0; i < 63; ++i) Place(wheel, kDue);
  EXPECT_EQ(wheel.num_levels(), 2);
  EXPECT_EQ(wheel.EarliestKey(), kDue);  // Small: no lead.
  Place(wheel, kDue);                    // 64 tasks: counted as 128.
  EXPECT_EQ(wheel.EarliestKey(), kDue - 128 * 500);
  for (int i = 64; i < 127; ++i) Place(wheel, kDue);
  EXPECT_EQ(wheel.EarliestKey(), kDue - 128 * 500);  // 127: still 128.
  Place(wheel, kDue);                                // 128: counted as 256.
  EXPECT_EQ(wheel.EarliestKey(), kDue - 256 * 500);
}

TEST_F(TimingWheelTest, TheEarlyLeadIsCappedAtHalfTheLevelBelow) {
  // Level 0 covers 40 ns: the lead is capped at half of it (20 ns), so at
  // least half of the bucket's tasks fit the level below when it flushes.
  TimingWheel wheel(10, 4);
  for (int i = 0; i < 64; ++i) Place(wheel, 100);
  EXPECT_EQ(wheel.num_levels(), 2);
  EXPECT_EQ(wheel.EarliestKey(), 80);
  EXPECT_EQ(wheel.PopDueBucket(79), nullptr);
  EXPECT_EQ(PopBucket(wheel, 80).size(), 64u);
}

TEST_F(TimingWheelTest, TakeAllEmptiesEveryLevel) {
  TimingWheel wheel(10, 5);
  for (int64_t due : {int64_t{0}, int64_t{15}, int64_t{60}, int64_t{700},
                      int64_t{1} << 40, kMax}) {
    Place(wheel, due);
  }
  std::vector<ListNode*> chains;
  wheel.TakeAll(chains);
  std::vector<int64_t> dues;
  for (ListNode* node : chains) {
    for (; node != nullptr; node = node->next) {
      dues.push_back(TimingWheel::DueOf(TimingWheel::AsTask(node)));
    }
  }
  std::sort(dues.begin(), dues.end());
  EXPECT_EQ(dues,
            (std::vector<int64_t>{0, 15, 60, 700, int64_t{1} << 40, kMax}));
  EXPECT_EQ(wheel.EarliestKey(), kMaxNanos);
  EXPECT_EQ(wheel.PopDueBucket(kMax), nullptr);
}

}  // namespace
}  // namespace internal
}  // namespace timingwheel
