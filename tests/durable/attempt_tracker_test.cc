// Copyright 2026 The timingwheel Authors.
//
// AttemptTracker's promises (durable/engine/attempt_tracker.h): a slot is idle
// only once every attempt fired in it ended; an id fired again stays
// running until its newest attempt ends; a stop flag is forgotten only by
// its own handler; start marks keep their order across a failed write.

#include "durable/engine/attempt_tracker.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

AttemptTracker::StopFlag NewFlag() {
  return std::make_shared<std::atomic<bool>>(false);
}

std::vector<std::string> MarkIds(const std::vector<StartMark>& marks) {
  std::vector<std::string> ids;
  for (const StartMark& m : marks) ids.push_back(m.id);
  return ids;
}

TEST(AttemptTrackerTest, ASlotIsIdleOnlyOnceEveryAttemptInItEnded) {
  AttemptTracker tracker;
  EXPECT_TRUE(tracker.SlotIdle(3));
  tracker.Fired("a", 1, 3);
  tracker.Fired("b", 1, 3);
  tracker.Fired("c", 1, 5);
  EXPECT_FALSE(tracker.SlotIdle(3));
  EXPECT_THAT(tracker.BusySlots(), UnorderedElementsAre(3, 5));
  tracker.Ended("a", 1, 3);
  EXPECT_FALSE(tracker.SlotIdle(3));
  tracker.Ended("b", 1, 3);
  EXPECT_TRUE(tracker.SlotIdle(3));
  EXPECT_THAT(tracker.BusySlots(), UnorderedElementsAre(5));
  EXPECT_THAT(tracker.RunningIds(), UnorderedElementsAre("c"));
}

TEST(AttemptTrackerTest, AnIdFiredAgainRunsUntilItsNewestAttemptEnds) {
  AttemptTracker tracker;
  tracker.Fired("a", 1, 0);
  tracker.Fired("a", 2, 0);  // Fired again after a takeover re-stamped it.
  EXPECT_THAT(tracker.RunningIds(), ElementsAre("a"));
  tracker.Ended("a", 1, 0);  // The older attempt ends first.
  EXPECT_THAT(tracker.RunningIds(), ElementsAre("a"));
  EXPECT_FALSE(tracker.SlotIdle(0));
  tracker.Ended("a", 2, 0);
  EXPECT_THAT(tracker.RunningIds(), IsEmpty());
  EXPECT_TRUE(tracker.SlotIdle(0));
}

TEST(AttemptTrackerTest, TheNewestAttemptEndingFirstLeavesTheOlderCounted) {
  AttemptTracker tracker;
  tracker.Fired("a", 1, 0);
  tracker.Fired("a", 2, 0);
  tracker.Ended("a", 2, 0);
  EXPECT_THAT(tracker.RunningIds(), IsEmpty());
  EXPECT_FALSE(tracker.SlotIdle(0));  // The older handler still runs.
  tracker.Ended("a", 1, 0);
  EXPECT_TRUE(tracker.SlotIdle(0));
}

TEST(AttemptTrackerTest, RaiseStopReachesTheRunningHandlerOnly) {
  AttemptTracker tracker;
  EXPECT_FALSE(tracker.RaiseStop("a"));
  AttemptTracker::StopFlag first = NewFlag();
  tracker.HandlerStarted({"a", 1, 1}, first);
  EXPECT_TRUE(tracker.RaiseStop("a"));
  EXPECT_TRUE(first->load());
  tracker.HandlerReturned("a", first);
  EXPECT_FALSE(tracker.RaiseStop("a"));
}

// A stop heard after the fire and before the handler started is kept for
// that attempt, and forgotten when it ends.
TEST(AttemptTrackerTest, AStopBeforeTheHandlerStartedIsKeptForIt) {
  AttemptTracker tracker;
  tracker.Fired("a", 1, 0);
  EXPECT_TRUE(tracker.RaiseStop("a", 1));
  EXPECT_FALSE(tracker.TakePendingStop("a", 2));
  EXPECT_TRUE(tracker.TakePendingStop("a", 1));
  EXPECT_FALSE(tracker.TakePendingStop("a", 1));
  EXPECT_FALSE(tracker.RaiseStop("a", 7));  // Another row's attempt.
  EXPECT_FALSE(tracker.TakePendingStop("a", 1));
  EXPECT_TRUE(tracker.RaiseStop("a"));  // No version: whatever attempt.
  tracker.Ended("a", 1, 0);
  EXPECT_FALSE(tracker.TakePendingStop("a", 1));
  EXPECT_FALSE(tracker.RaiseStop("a"));  // Nothing in flight.
}

// A stop heard late, for an attempt that has ended, never reaches the
// handler of a newer row of the same id.
TEST(AttemptTrackerTest, ALateStopNeverReachesTheNextAttemptOfTheId) {
  AttemptTracker tracker;
  AttemptTracker::StopFlag first = NewFlag();
  tracker.Fired("a", 1, 0);
  tracker.HandlerStarted({"a", 1, 1}, first);
  tracker.HandlerReturned("a", first);
  tracker.Ended("a", 1, 0);
  AttemptTracker::StopFlag second = NewFlag();
  tracker.Fired("a", 2, 0);
  tracker.HandlerStarted({"a", 2, 1}, second);
  EXPECT_FALSE(tracker.RaiseStop("a", 1));
  EXPECT_FALSE(second->load());
  EXPECT_TRUE(tracker.RaiseStop("a", 2));
  EXPECT_TRUE(second->load());
}

TEST(AttemptTrackerTest, AnOlderHandlerReturningKeepsTheNewerStopFlag) {
  AttemptTracker tracker;
  AttemptTracker::StopFlag older = NewFlag();
  AttemptTracker::StopFlag newer = NewFlag();
  tracker.HandlerStarted({"a", 1, 1}, older);
  tracker.HandlerStarted({"a", 2, 2}, newer);
  tracker.HandlerReturned("a", older);
  EXPECT_TRUE(tracker.RaiseStop("a"));
  EXPECT_TRUE(newer->load());
  EXPECT_FALSE(older->load());
}

TEST(AttemptTrackerTest, MarksPutBackComeBeforeTheOnesQueuedSince) {
  AttemptTracker tracker;
  EXPECT_TRUE(tracker.marks_empty());
  EXPECT_TRUE(tracker.HandlerStarted({"a", 1, 1}, NewFlag()));
  EXPECT_FALSE(tracker.HandlerStarted({"b", 1, 1}, NewFlag()));
  std::vector<StartMark> taken = tracker.TakeMarks();
  EXPECT_THAT(MarkIds(taken), ElementsAre("a", "b"));
  EXPECT_TRUE(tracker.marks_empty());
  EXPECT_TRUE(tracker.HandlerStarted({"c", 1, 1}, NewFlag()));
  tracker.PutBackMarks(std::move(taken));  // Their write failed.
  EXPECT_THAT(MarkIds(tracker.TakeMarks()), ElementsAre("a", "b", "c"));
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
