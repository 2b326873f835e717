// Copyright 2026 The timingwheel Authors.
//
// FireQueue and KindTable without a server: the batch a fire takes, by
// priority and within each kind's room.

#include "durable/engine/fire_queue.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

DurableHandler Ok() {
  return [](const DurableTask&) { return absl::OkStatus(); };
}

FireQueue::Waiting Due(const std::string& id, int kind, int priority = 0) {
  FireQueue::Waiting w;
  w.entry.id = id;
  w.entry.priority = priority;
  w.kind = kind;
  return w;
}

std::vector<std::string> Ids(const std::vector<FireQueue::Waiting>& batch) {
  std::vector<std::string> ids;
  for (const FireQueue::Waiting& w : batch) ids.push_back(w.entry.id);
  return ids;
}

TEST(KindTableTest, IndexesTheDefaultTheNamedAndTheUnknown) {
  TaskKind email{"email", Ok(), 2};
  TaskKind sms{"sms", Ok(), 0};
  KindTable kinds(Ok(), {email, sms});
  EXPECT_EQ(kinds.IndexOf(""), 0);
  EXPECT_EQ(kinds.IndexOf("email"), 1);
  EXPECT_EQ(kinds.IndexOf("sms"), 2);
  EXPECT_EQ(kinds.IndexOf("fax"), kinds.unknown());
  EXPECT_EQ(kinds.unknown(), 3);
  EXPECT_EQ(kinds.limit(1), 2);
  EXPECT_FALSE(kinds.handler(kinds.unknown()));
  EXPECT_EQ(kinds.names(), (std::vector<std::string>{"email", "sms"}));
  // Without a default handler the default kind is unknown here.
  KindTable only(nullptr, {email});
  EXPECT_EQ(only.IndexOf(""), only.unknown());
}

TEST(FireQueueTest, TakesInOrderUpToTheRoomLeft) {
  KindTable kinds(Ok(), {});
  FireQueue queue(3, kinds);
  for (const char* id : {"a", "b", "c", "d"}) queue.Push(Due(id, 0));
  EXPECT_TRUE(queue.Ready(0));
  EXPECT_EQ(Ids(queue.Take(1, 100)), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_FALSE(queue.Ready(3));  // No room.
  EXPECT_EQ(Ids(queue.Take(0, 1)), (std::vector<std::string>{"c"}));
}

TEST(FireQueueTest, HigherPrioritiesFirstTiesInArrivalOrder) {
  KindTable kinds(Ok(), {});
  FireQueue queue(10, kinds);
  queue.Push(Due("a0", 0, 0));
  queue.Push(Due("b5", 0, 5));
  queue.Push(Due("c0", 0, 0));
  queue.Push(Due("d-1", 0, -1));
  queue.Push(Due("e5", 0, 5));
  EXPECT_EQ(Ids(queue.Take(0, 3)),
            (std::vector<std::string>{"b5", "e5", "a0"}));
  EXPECT_EQ(Ids(queue.Take(0, 10)), (std::vector<std::string>{"c0", "d-1"}));
}

TEST(FireQueueTest, AKindAtItsLimitKeepsItsPlaceAndHoldsUpNoOtherKind) {
  TaskKind slow{"slow", Ok(), 1};
  KindTable kinds(Ok(), {slow});
  FireQueue queue(10, kinds);
  queue.Push(Due("s1", 1));
  queue.Push(Due("s2", 1));
  queue.Push(Due("d1", 0));
  queue.Push(Due("s3", 1));
  queue.Push(Due("d2", 0));
  EXPECT_EQ(Ids(queue.Take(0, 10)),
            (std::vector<std::string>{"s1", "d1", "d2"}));
  // s1 runs: the slow kind has no room, so nothing is ready.
  EXPECT_FALSE(queue.Ready(1));
  EXPECT_TRUE(queue.Take(1, 10).empty());
  queue.Release(1);  // s1 ended.
  EXPECT_TRUE(queue.Ready(0));
  EXPECT_EQ(Ids(queue.Take(0, 10)), (std::vector<std::string>{"s2"}));
}

TEST(FireQueueTest, PutBackRestoresOrderAndRoom) {
  TaskKind one{"one", Ok(), 1};
  KindTable kinds(Ok(), {one});
  FireQueue queue(10, kinds);
  queue.Push(Due("x", 1));
  queue.Push(Due("y", 1));
  std::vector<FireQueue::Waiting> batch = queue.Take(0, 10);
  ASSERT_EQ(Ids(batch), (std::vector<std::string>{"x"}));
  queue.PutBack(std::move(batch));  // The fire failed.
  EXPECT_EQ(Ids(queue.Take(0, 10)), (std::vector<std::string>{"x"}));
}

// 7 of 8 places busy and 2 tasks due: the free place takes one now, the
// highest priority; it does not wait for room for a bigger batch.
TEST(FireQueueTest, OneFreePlaceFiresAtOnce) {
  KindTable kinds(Ok(), {});
  FireQueue queue(8, kinds);
  queue.Push(Due("low", 0, 0));
  queue.Push(Due("high", 0, 3));
  EXPECT_TRUE(queue.Ready(0));
  EXPECT_TRUE(queue.Ready(7));
  EXPECT_EQ(Ids(queue.Take(7, 100)), (std::vector<std::string>{"high"}));
  EXPECT_FALSE(queue.Ready(8));  // No place left.
  EXPECT_TRUE(queue.Ready(7));
  EXPECT_EQ(Ids(queue.Take(7, 100)), (std::vector<std::string>{"low"}));
}

// The free place goes to a kind with room, never to one at its limit.
TEST(FireQueueTest, TheFreePlaceSkipsAKindAtItsLimit) {
  TaskKind one{"one", Ok(), 1};
  KindTable kinds(Ok(), {one});
  FireQueue queue(8, kinds);
  queue.Reserve(1);  // "one" runs its one attempt.
  queue.Push(Due("one-2", 1, 9));
  EXPECT_FALSE(queue.Ready(7));  // Only a kind at its limit waits.
  queue.Push(Due("default", 0, 0));
  EXPECT_TRUE(queue.Ready(7));
  EXPECT_EQ(Ids(queue.Take(7, 100)), (std::vector<std::string>{"default"}));
  EXPECT_EQ(queue.size(), 1u);
}

TEST(FireQueueTest, RemoveIfDropsAndCounts) {
  TaskKind one{"one", Ok(), 1};
  KindTable kinds(Ok(), {one});
  FireQueue queue(10, kinds);
  queue.Push(Due("x", 1));
  queue.Push(Due("y", 0));
  queue.RemoveIf([](const FireQueue::Waiting& w) { return w.kind == 0; });
  EXPECT_EQ(queue.size(), 1u);
  queue.RemoveIf([](const FireQueue::Waiting&) { return true; });
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.Ready(0));
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
