// Copyright 2026 The timingwheel Authors.
//
// Tests of TimingWheel::FlushChunk() on its own, at small sizes: a cascade
// larger than one chunk reports more work and completes over several calls,
// tasks due in the current tick are staged and merged into the due list in
// due order, the due list is served between chunks of a cascade, and a task
// unlinked from the lists of a flush in progress is gone for good.
//
// The wheel below has a tick of 10 and 5 slots: level 0 covers 50 from its
// current time, level 1 has a tick of 50. Tasks due in [100, 150) added at
// time 0 share one level-1 bucket, keyed by the earliest of them.

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "timer/internal/bucket.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {
namespace {

class NoopTask final : public TimerTask {
 public:
  void Run() override {}
};

class WheelFlushTest : public ::testing::Test {
 protected:
  TimerTask* Place(int64_t due) {
    tasks_.push_back(MakeTask<NoopTask>());
    TimerTask* task = tasks_.back().get();
    TimingWheel::SetDueOf(task, due);
    wheel_.Place(task);
    return task;
  }

  // Advances to `now` and runs one chunk of at most `limit` tasks, adding
  // what expired to expired_ and the counts to counters_.
  bool Chunk(int64_t now, size_t limit) {
    wheel_.AdvanceTo(now);
    return wheel_.FlushChunk(now, limit, expired_, &counters_);
  }

  // The due times of the expired tasks so far, in the order they expired.
  std::vector<int64_t> ExpiredDues() const {
    std::vector<int64_t> dues;
    for (const TimerTask* task : expired_) {
      dues.push_back(TimingWheel::DueOf(task));
    }
    return dues;
  }

  std::vector<TaskPtr<TimerTask>> tasks_;
  TimingWheel wheel_{10, 5};
  std::vector<TimerTask*> expired_;
  FlushCounters counters_;
};

TEST_F(WheelFlushTest, NothingDueIsNoWork) {
  Place(100);
  EXPECT_FALSE(Chunk(99, 4));
  EXPECT_TRUE(expired_.empty());
  EXPECT_EQ(counters_.buckets_flushed, 0);
  EXPECT_EQ(wheel_.EarliestKey(), 100);
}

TEST_F(WheelFlushTest, ACascadeLargerThanAChunkCompletesOverSeveralCalls) {
  for (int64_t due : {100, 100, 100, 100, 100, 120, 130, 140, 105}) {
    Place(due);
  }
  ASSERT_EQ(wheel_.num_levels(), 2);
  EXPECT_EQ(wheel_.EarliestKey(), 100);
  EXPECT_TRUE(Chunk(100, 4));  // Four due tasks; five still queued.
  EXPECT_EQ(ExpiredDues(), (std::vector<int64_t>{100, 100, 100, 100}));
  EXPECT_EQ(counters_.buckets_flushed, 1);
  EXPECT_EQ(counters_.tasks_cascaded, 0);
  EXPECT_TRUE(Chunk(100, 4));  // One due, three placed in level 0.
  EXPECT_EQ(expired_.size(), 5u);
  EXPECT_EQ(counters_.buckets_flushed, 1);  // The bucket was popped once.
  EXPECT_EQ(counters_.tasks_cascaded, 3);
  EXPECT_FALSE(Chunk(100, 4));  // 105 staged, then merged: the flush ends.
  EXPECT_EQ(expired_.size(), 5u);
  EXPECT_EQ(counters_.tasks_cascaded, 4);
  EXPECT_EQ(wheel_.EarliestKey(), 105);  // The due list's head.
  EXPECT_FALSE(Chunk(105, 4));
  EXPECT_EQ(ExpiredDues(),
            (std::vector<int64_t>{100, 100, 100, 100, 100, 105}));
  EXPECT_EQ(counters_.buckets_flushed, 2);
  EXPECT_EQ(wheel_.EarliestKey(), 120);
  EXPECT_FALSE(Chunk(140, 4));  // Three level-0 buckets.
  EXPECT_EQ(ExpiredDues(), (std::vector<int64_t>{100, 100, 100, 100, 100, 105,
                                                 120, 130, 140}));
  EXPECT_EQ(counters_.buckets_flushed, 5);
  EXPECT_EQ(wheel_.EarliestKey(), kMaxNanos);
}

TEST_F(WheelFlushTest, StagedTasksAreMergedIntoTheDueListInDueOrder) {
  for (int64_t due : {100, 108, 102, 105, 102}) Place(due);
  EXPECT_FALSE(Chunk(100, 100));
  EXPECT_EQ(ExpiredDues(), std::vector<int64_t>{100});
  EXPECT_EQ(counters_.tasks_cascaded, 4);
  EXPECT_EQ(wheel_.EarliestKey(), 102);
  EXPECT_FALSE(Chunk(109, 100));
  EXPECT_EQ(ExpiredDues(), (std::vector<int64_t>{100, 102, 102, 105, 108}));
  EXPECT_EQ(wheel_.EarliestKey(), kMaxNanos);
}

TEST_F(WheelFlushTest, TheDueListIsServedBetweenChunksOfACascade) {
  for (int64_t due : {100, 103, 101, 130, 140, 145}) Place(due);
  EXPECT_TRUE(Chunk(100, 3));  // 103 and 101 staged, merged at once.
  EXPECT_EQ(ExpiredDues(), std::vector<int64_t>{100});
  EXPECT_EQ(wheel_.EarliestKey(), 101);
  EXPECT_TRUE(Chunk(102, 2));  // 101 first, then one task of the cascade.
  EXPECT_EQ(ExpiredDues(), (std::vector<int64_t>{100, 101}));
  EXPECT_FALSE(Chunk(102, 2));
  EXPECT_EQ(ExpiredDues(), (std::vector<int64_t>{100, 101}));
  EXPECT_EQ(wheel_.EarliestKey(), 103);
  EXPECT_FALSE(Chunk(145, 100));
  EXPECT_EQ(ExpiredDues(),
            (std::vector<int64_t>{100, 101, 103, 130, 140, 145}));
}

TEST_F(WheelFlushTest, AStagedTaskUnlinkedBetweenChunksIsGone) {
  std::vector<TimerTask*> placed;
  for (int64_t due : {100, 101, 102, 103, 130, 140, 145}) {
    placed.push_back(Place(due));
  }
  EXPECT_TRUE(Chunk(100, 3));  // 101 and 102 merged (nothing merged before).
  EXPECT_TRUE(Chunk(100, 3));  // 103 staged, kept for a larger batch.
  EXPECT_EQ(wheel_.EarliestTask(), placed[1]);
  wheel_.Unlink(placed[3]);  // 103, on the staging list: not a bucket.
  EXPECT_EQ(TimingWheel::AsNode(placed[3])->prev, nullptr);
  EXPECT_FALSE(Chunk(100, 3));  // 145 placed; nothing left to merge.
  EXPECT_EQ(ExpiredDues(), std::vector<int64_t>{100});
  EXPECT_FALSE(Chunk(145, 100));
  EXPECT_EQ(ExpiredDues(),
            (std::vector<int64_t>{100, 101, 102, 130, 140, 145}));
  EXPECT_EQ(wheel_.EarliestKey(), kMaxNanos);
  EXPECT_EQ(wheel_.EarliestTask(), nullptr);
}

TEST_F(WheelFlushTest, AQueuedTaskUnlinkedBetweenChunksIsGone) {
  std::vector<TimerTask*> placed;
  for (int64_t due : {100, 100, 100, 100}) placed.push_back(Place(due));
  EXPECT_TRUE(Chunk(100, 2));
  wheel_.Unlink(placed[3]);  // Still queued: on the flush's own list.
  EXPECT_FALSE(Chunk(100, 2));
  EXPECT_EQ(expired_.size(), 3u);
  EXPECT_EQ(expired_[2], placed[2]);
  EXPECT_EQ(wheel_.EarliestKey(), kMaxNanos);
}

TEST_F(WheelFlushTest, TakeAllAndEarliestTaskSeeAFlushInProgress) {
  for (int64_t due : {100, 100, 135, 102}) Place(due);
  EXPECT_TRUE(Chunk(100, 2));  // 135 and 102 still queued.
  TimerTask* earliest = wheel_.EarliestTask();
  ASSERT_NE(earliest, nullptr);
  EXPECT_EQ(TimingWheel::DueOf(earliest), 102);
  std::vector<ListNode*> chains;
  wheel_.TakeAll(chains);
  std::vector<int64_t> dues;
  for (ListNode* node : chains) {
    for (; node != nullptr; node = node->next) {
      dues.push_back(TimingWheel::DueOf(TimingWheel::AsTask(node)));
    }
  }
  EXPECT_EQ(dues, (std::vector<int64_t>{135, 102}));
  EXPECT_EQ(wheel_.EarliestTask(), nullptr);
  EXPECT_FALSE(Chunk(100, 2));
  EXPECT_EQ(expired_.size(), 2u);
}

}  // namespace
}  // namespace internal
}  // namespace timingwheel
