// Copyright 2026 The timingwheel Authors.
//
// WheelMirror's promises (durable/engine/wheel_mirror.h), on a real Timer
// driven by the manual clock: one timer per id, stale fires refused, a full
// timer holding the earliest rows, dropped slots forgotten.

#include "durable/engine/wheel_mirror.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/testing/mock_timer.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using ::timingwheel::testing::MockTimer;

WheelEntry Entry(const std::string& id, int slot) {
  WheelEntry e;
  e.id = id;
  e.slot = slot;
  e.due_us = 1;
  e.epoch = 1;
  return e;
}

class WheelMirrorTest : public ::testing::Test {
 protected:
  explicit WheelMirrorTest(TimerOptions options = TimerOptions())
      : mock_(options),
        mirror_(&mock_.timer(), &mock_.clock(), &router_,
                /*keep_earliest=*/options.max_pending > 0) {}

  // Due `ms` milliseconds from now on the manual clock.
  int64_t In(int ms) {
    return mock_.clock().NowNanos() +
           absl::ToInt64Nanoseconds(absl::Milliseconds(ms));
  }

  // Each fire asks the mirror, as the scheduler does.
  static void Fire(void* self, MirrorTask* task) {
    auto* test = static_cast<WheelMirrorTest*>(self);
    if (test->mirror_.TakeFired(task)) test->fired_.push_back(task->id());
  }

  std::vector<std::string> fired_;
  const MirrorTask::Router router_{&Fire, this};
  MockTimer mock_;
  WheelMirror mirror_;
};

TEST_F(WheelMirrorTest, ATaskFiresAtItsDueTimeAndIsForgotten) {
  EXPECT_EQ(mirror_.Add(Entry("a", 0), 0, In(100)),
            WheelMirror::Added::kInTimer);
  EXPECT_EQ(mirror_.size(), 1u);
  mock_.AdvanceBy(absl::Milliseconds(99));
  EXPECT_TRUE(fired_.empty());
  mock_.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(fired_, std::vector<std::string>{"a"});
  EXPECT_EQ(mirror_.size(), 0u);
}

TEST_F(WheelMirrorTest, AddingAnIdAgainReplacesItsTimer) {
  mirror_.Add(Entry("a", 0), 0, In(100));
  mirror_.Add(Entry("a", 0), 0, In(300));
  EXPECT_EQ(mirror_.size(), 1u);
  mock_.AdvanceBy(absl::Milliseconds(200));
  EXPECT_TRUE(fired_.empty()) << "the replaced timer fired";
  mock_.AdvanceBy(absl::Milliseconds(100));
  EXPECT_EQ(fired_, std::vector<std::string>{"a"});
}

TEST_F(WheelMirrorTest, AnEntryAlreadyDueIsLeftToTheCaller) {
  mirror_.Add(Entry("a", 0), 0, In(100));
  mirror_.KeepGivenBack({Entry("b", 0)});
  EXPECT_EQ(mirror_.Add(Entry("a", 0), 0, In(0)), WheelMirror::Added::kDueNow);
  EXPECT_EQ(mirror_.Add(Entry("b", 0), 0, In(-5)), WheelMirror::Added::kDueNow);
  EXPECT_EQ(mirror_.size(), 0u) << "an entry due now was kept in the timer";
  EXPECT_EQ(mirror_.given_back_size(), 0u)
      << "a row due now is still to be given back";
  mock_.AdvanceBy(absl::Milliseconds(200));
  EXPECT_TRUE(fired_.empty()) << "the earlier timer of the id still fired";
}

TEST_F(WheelMirrorTest, AStaleFireIsRefused) {
  mirror_.Add(Entry("a", 0), 0, In(10));
  TaskPtr<MirrorTask> stale = MakeTask<MirrorTask>(&router_, Entry("a", 0), 0);
  EXPECT_FALSE(mirror_.TakeFired(stale.get()));  // Not the one held.
  EXPECT_EQ(mirror_.size(), 1u);
  EXPECT_TRUE(mirror_.Cancel("a"));
  EXPECT_FALSE(mirror_.Cancel("a"));
  mock_.AdvanceBy(absl::Milliseconds(20));
  EXPECT_TRUE(fired_.empty());
}

TEST_F(WheelMirrorTest, DroppingSlotsForgetsTheirTasks) {
  mirror_.Add(Entry("a", 1), 0, In(10));
  mirror_.Add(Entry("b", 2), 0, In(10));
  mirror_.KeepGivenBack({Entry("c", 1), Entry("d", 2)});
  mirror_.DropSlots({1});
  EXPECT_EQ(mirror_.size(), 1u);
  std::vector<WheelEntry> left = mirror_.TakeGivenBack();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].id, "d");
  mock_.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(fired_, std::vector<std::string>{"b"});
}

TEST_F(WheelMirrorTest, ClearForgetsEverything) {
  mirror_.Add(Entry("a", 1), 0, In(10));
  mirror_.KeepGivenBack({Entry("b", 1)});
  mock_.timer().Shutdown();
  mirror_.Clear();
  EXPECT_EQ(mirror_.size(), 0u);
  EXPECT_EQ(mirror_.given_back_size(), 0u);
  EXPECT_EQ(mirror_.Add(Entry("c", 1), 0, In(10)), WheelMirror::Added::kClosed);
  EXPECT_EQ(mirror_.given_back_size(), 0u);
}

class FullWheelMirrorTest : public WheelMirrorTest {
 protected:
  static TimerOptions TwoPending() {
    TimerOptions options;
    options.max_pending = 2;
    return options;
  }
  FullWheelMirrorTest() : WheelMirrorTest(TwoPending()) {}

  // Entry `id` due `ms` from now, on the store's clock as on the timer's.
  WheelMirror::Added AddDueIn(const std::string& id, int ms) {
    WheelEntry e = Entry(id, 0);
    e.due_us = 1000000 + ms * 1000;
    return mirror_.Add(e, 0, In(ms));
  }

  std::vector<std::string> GivenBack() {
    std::vector<std::string> ids;
    for (const WheelEntry& e : mirror_.TakeGivenBack()) ids.push_back(e.id);
    return ids;
  }
};

// A full timer holds the earliest rows: an earlier entry takes the place
// of the latest task, which is given back; a later one is given back.
TEST_F(FullWheelMirrorTest, AnEarlierEntryDisplacesTheLatestTask) {
  EXPECT_EQ(AddDueIn("late1", 1800), WheelMirror::Added::kInTimer);
  EXPECT_EQ(AddDueIn("late2", 1900), WheelMirror::Added::kInTimer);
  EXPECT_EQ(mirror_.LatestDueUs(), 1000000 + 1900 * 1000);
  EXPECT_EQ(AddDueIn("later", 2000), WheelMirror::Added::kGivenBack);
  EXPECT_EQ(AddDueIn("soon", 300), WheelMirror::Added::kInTimer);
  EXPECT_EQ(mirror_.size(), 2u);
  EXPECT_EQ(GivenBack(), (std::vector<std::string>{"later", "late2"}));
  EXPECT_EQ(mirror_.given_back_size(), 0u);
  mock_.AdvanceBy(absl::Milliseconds(300));
  EXPECT_EQ(fired_, std::vector<std::string>{"soon"});
  mock_.AdvanceBy(absl::Milliseconds(1700));
  EXPECT_EQ(fired_, (std::vector<std::string>{"soon", "late1"}));
}

// Many entries in random order: the timer ends up holding the two earliest,
// and every other entry is given back exactly once.
TEST_F(FullWheelMirrorTest, ManyEntriesLeaveTheEarliestHeld) {
  std::mt19937 rng(7);
  std::vector<int> dues;
  for (int i = 0; i < 300; ++i) {
    dues.push_back(1000 + static_cast<int>(rng() % 100000));
    AddDueIn(absl::StrCat("t", i), dues.back());
  }
  std::vector<std::string> back = GivenBack();
  EXPECT_EQ(back.size(), dues.size() - 2);
  std::sort(back.begin(), back.end());
  EXPECT_EQ(std::unique(back.begin(), back.end()), back.end());
  std::vector<int> sorted = dues;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(mirror_.LatestDueUs(), 1000000 + sorted[1] * 1000);
  mock_.AdvanceBy(absl::Milliseconds(sorted[1]));
  ASSERT_EQ(fired_.size(), 2u);
  for (const std::string& id : fired_) {
    const int i = std::stoi(id.substr(1));
    EXPECT_LE(dues[i], sorted[1]) << id;
  }
}

// An id given back and then added again is no longer given back.
TEST_F(FullWheelMirrorTest, AnIdAddedAgainLeavesTheGiveBackList) {
  AddDueIn("a", 100);
  AddDueIn("b", 200);
  EXPECT_EQ(AddDueIn("c", 300), WheelMirror::Added::kGivenBack);
  ASSERT_TRUE(mirror_.Cancel("a"));
  EXPECT_EQ(AddDueIn("c", 300), WheelMirror::Added::kInTimer);
  EXPECT_EQ(mirror_.given_back_size(), 0u);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
