// Copyright 2026 The timingwheel Authors.
//
// Which due slots a fire by slot names (durable/engine/slot_naming.h): how
// many for small and large fires, and in which order.

#include "durable/engine/slot_naming.h"

#include <limits>
#include <vector>

#include "durable/sql/store_types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using ::testing::ElementsAre;

std::vector<DueSlotArm> SameSlots(int count) {
  std::vector<DueSlotArm> due;
  for (int slot = 0; slot < count; ++slot) due.push_back({slot, 0, 100});
  return due;
}

TEST(SlotNamingTest, ASmallFireNamesOneSlotPerPlaceAndAtLeastSixteen) {
  EXPECT_EQ(SlotsToName(1, 1024), kMinSlotsNamed);
  EXPECT_EQ(SlotsToName(2, 1024), 16);
  EXPECT_EQ(SlotsToName(100, 1024), 100);
  EXPECT_EQ(SlotsToName(kSlotFireExactRows, 1024), kSlotFireExactRows);
}

TEST(SlotNamingTest, ALargeFireNamesOneSlotPerSixteenPlaces) {
  // A burn-down: 1,000 places over 1,024 due slots names 63 slots, each
  // giving up to 16 rows, not 1,000 slots giving one row each.
  EXPECT_EQ(SlotsToName(1000, 1024), 63);
  EXPECT_EQ(SlotsToName(kSlotFireExactRows + 1, 1024), 17);
  EXPECT_EQ(SlotsToName(300, 1024), kMinSlotsNamed + 3);
}

TEST(SlotNamingTest, NeverMoreThanAreDueAndNoneWithoutAPlace) {
  EXPECT_EQ(SlotsToName(1000, 5), 5);
  EXPECT_EQ(SlotsToName(3, 5), 5);
  EXPECT_EQ(SlotsToName(0, 5), 0);
  EXPECT_EQ(SlotsToName(-1, 5), 0);
  EXPECT_EQ(SlotsToName(10, 0), 0);
  EXPECT_TRUE(NameDueSlots({}, 10).empty());
  EXPECT_TRUE(NameDueSlots(SameSlots(4), 0).empty());
}

TEST(SlotNamingTest, HigherPriorityThenEarlierThenLowerSlotFirst) {
  std::vector<DueSlotArm> due = {
      {7, 0, 50}, {3, 5, 300}, {9, 5, 200}, {1, 0, 50}, {4, -2, 10},
  };
  EXPECT_THAT(NameDueSlots(due, 100), ElementsAre(9, 3, 1, 7, 4));
}

TEST(SlotNamingTest, TheBestAreNamedWhenNotAllAre) {
  // 40 slots due, one place: the sixteen best, the high one first.
  std::vector<DueSlotArm> due = SameSlots(40);
  due[33].priority = 10;
  due[20].due_us = 1;
  std::vector<int> named = NameDueSlots(due, 1);
  ASSERT_EQ(named.size(), 16u);
  EXPECT_EQ(named[0], 33);
  EXPECT_EQ(named[1], 20);
  EXPECT_EQ(named[2], 0);
  EXPECT_EQ(named[15], 13);
}

// Review: the floor is the best priority of the due slots not named, so
// that a named slot's lower rows wait for it; none when all are named.
TEST(SlotNamingTest, TheFloorIsTheBestPriorityNotNamed) {
  std::vector<DueSlotArm> due = SameSlots(300);
  for (int i = 0; i < 17; ++i) due[i].priority = 10;
  due[250].priority = 9;
  int floor = 0;
  std::vector<int> named = NameDueSlots(due, 257, &floor);
  ASSERT_EQ(named.size(), 17u);
  EXPECT_EQ(floor, 9);
  NameDueSlots(SameSlots(5), 257, &floor);
  EXPECT_EQ(floor, std::numeric_limits<int>::min());
  NameDueSlots(SameSlots(40), 1, &floor);
  EXPECT_EQ(floor, 0);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
