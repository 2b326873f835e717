// Copyright 2026 The timingwheel Authors.
//
// MirrorTask and MirrorSet (durable/engine/mirror_task.h): the size the header
// promises, lookups by id, and a run handed to the router.

#include "durable/engine/mirror_task.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

WheelEntry Entry(const std::string& id, int slot) {
  WheelEntry e;
  e.id = id;
  e.slot = slot;
  e.due_us = 1234;
  e.epoch = 7;
  e.priority = -3;
  return e;
}

TEST(MirrorTaskTest, IsOneHundredAndFourBytes) {
  EXPECT_LE(sizeof(MirrorTask), 104u);
}

TEST(MirrorTaskTest, KeepsTheRowsFields) {
  MirrorTask::Router router{[](void*, MirrorTask*) {}, nullptr};
  TaskPtr<MirrorTask> task = MakeTask<MirrorTask>(&router, Entry("a", 5), 2);
  EXPECT_EQ(task->id(), "a");
  EXPECT_EQ(task->slot(), 5);
  EXPECT_EQ(task->epoch(), 7);
  EXPECT_EQ(task->due_us(), 1234);
  EXPECT_EQ(task->kind(), 2);
  EXPECT_EQ(task->priority(), -3);
  WheelEntry e = task->Entry();
  EXPECT_EQ(e.id, "a");
  EXPECT_EQ(e.slot, 5);
  EXPECT_EQ(e.epoch, 7);
  EXPECT_EQ(e.due_us, 1234);
  EXPECT_EQ(e.priority, -3);
}

TEST(MirrorTaskTest, RunHandsTheTaskToTheRouter) {
  std::vector<std::string> fired;
  MirrorTask::Router router{
      [](void* owner, MirrorTask* task) {
        static_cast<std::vector<std::string>*>(owner)->push_back(task->id());
      },
      &fired};
  TaskPtr<MirrorTask> task = MakeTask<MirrorTask>(&router, Entry("b", 1), 0);
  static_cast<TimerTask&>(*task).Run();
  EXPECT_EQ(fired, std::vector<std::string>{"b"});
}

TEST(MirrorSetTest, FindsAndErasesByIdOnePerId) {
  MirrorTask::Router router{[](void*, MirrorTask*) {}, nullptr};
  MirrorSet set;
  const std::string long_id(40, 'x');
  set.insert(MakeTask<MirrorTask>(&router, Entry("a", 1), 0));
  set.insert(MakeTask<MirrorTask>(&router, Entry(long_id, 2), 0));
  EXPECT_FALSE(
      set.insert(MakeTask<MirrorTask>(&router, Entry("a", 3), 0)).second);
  ASSERT_EQ(set.size(), 2u);
  auto it = set.find(absl::string_view("a"));
  ASSERT_NE(it, set.end());
  EXPECT_EQ((*it)->slot(), 1);
  ASSERT_NE(set.find(long_id), set.end());
  EXPECT_EQ(set.find(absl::string_view("c")), set.end());
  set.erase(it);
  EXPECT_EQ(set.find(absl::string_view("a")), set.end());
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
