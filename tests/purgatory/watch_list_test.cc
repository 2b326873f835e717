// Copyright 2026 The timingwheel Authors.
//
// Tests of the purgatory's watch lists: an operation leaves a list by moving
// the list's last slot into its place (no search, no hashing), so every
// removal from the middle must leave the others findable, tried exactly
// once per check, and counted. Deterministic (MockPurgatory) except the last
// test, a stress meant for --config=tsan.

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "purgatory/testing/mock_purgatory.h"
#include "tests/purgatory/test_operations.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::CountingOperation;
using ::timingwheel::testing::MockPurgatory;

using OpPtr = TaskPtr<CountingOperation>;

std::string Own(int i) { return "own-" + std::to_string(i); }

TEST(WatchListTest, RemovalsInAnyOrderLeaveTheOthersTriedOnce) {
  constexpr int kOps = 40;
  PurgatoryOptions options;
  options.shards = 3;
  MockPurgatory<std::string> mock(options);
  auto& purgatory = mock.purgatory();
  std::vector<OpPtr> ops;
  for (int i = 0; i < kOps; ++i) {
    ops.push_back(MakeTask<CountingOperation>(absl::Seconds(30)));
    ASSERT_EQ(
        purgatory.TryCompleteElseWatch(ops[i], {"shared", Own(i)}).value(),
        WatchOutcome::kWatching);
  }
  std::vector<int> order(kOps);
  for (int i = 0; i < kOps; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(12));
  int remaining = kOps;
  for (int i : order) {
    // Completed through its own key: it leaves "shared" from wherever it
    // stands there (first, middle or last slot).
    ops[i]->ready = true;
    ASSERT_EQ(purgatory.CheckAndComplete(Own(i)), 1) << "op " << i;
    --remaining;
    EXPECT_EQ(purgatory.Watched(), 2 * remaining) << "after op " << i;
    EXPECT_EQ(purgatory.Metrics().keys, remaining == 0 ? 0 : remaining + 1);
    // Every operation still waiting is tried exactly once by a check of the
    // shared key; none that finished is tried again.
    std::vector<int> tries_before(kOps);
    for (int j = 0; j < kOps; ++j) tries_before[j] = ops[j]->try_calls.load();
    EXPECT_EQ(purgatory.CheckAndComplete("shared"), 0);
    for (int j = 0; j < kOps; ++j) {
      const int expected = ops[j]->IsCompleted() ? 0 : 1;
      ASSERT_EQ(ops[j]->try_calls.load() - tries_before[j], expected)
          << "op " << j << " after removing op " << i;
    }
  }
  for (const OpPtr& op : ops) {
    EXPECT_EQ(op->completions.load(), 1);
    EXPECT_EQ(op->tries_after_finish.load(), 0);
  }
  EXPECT_EQ(purgatory.Metrics().purged, 2 * kOps);
  EXPECT_EQ(purgatory.NumDelayed(), 0);
}

TEST(WatchListTest, AKeyGivenTwiceIsWatchedOnce) {
  MockPurgatory<std::string> mock;
  auto& purgatory = mock.purgatory();
  OpPtr op = MakeTask<CountingOperation>(absl::Seconds(1));
  ASSERT_EQ(purgatory.TryCompleteElseWatch(op, {"a", "b", "a"}).value(),
            WatchOutcome::kWatching);
  EXPECT_EQ(purgatory.Watched(), 2);
  const int tries = op->try_calls.load();
  EXPECT_EQ(purgatory.CheckAndComplete("a"), 0);
  EXPECT_EQ(op->try_calls.load(), tries + 1);
  op->ready = true;
  EXPECT_EQ(purgatory.CheckAndComplete("b"), 1);
  EXPECT_EQ(purgatory.Watched(), 0);
  EXPECT_EQ(purgatory.Metrics().keys, 0);
  EXPECT_EQ(purgatory.Metrics().purged, 2);
}

TEST(WatchListTest, CancelAndExpiryLeaveEveryListTheyWereOn) {
  MockPurgatory<std::string> mock;
  auto& purgatory = mock.purgatory();
  // a: x, y. b: x. c: x, y, z (expires first). d: y.
  OpPtr a = MakeTask<CountingOperation>(absl::Seconds(10));
  OpPtr b = MakeTask<CountingOperation>(absl::Seconds(10));
  OpPtr c = MakeTask<CountingOperation>(absl::Seconds(1));
  OpPtr d = MakeTask<CountingOperation>(absl::Seconds(10));
  ASSERT_TRUE(purgatory.TryCompleteElseWatch(a, {"x", "y"}).ok());
  ASSERT_TRUE(purgatory.TryCompleteElseWatch(b, {"x"}).ok());
  ASSERT_TRUE(purgatory.TryCompleteElseWatch(c, {"x", "y", "z"}).ok());
  ASSERT_TRUE(purgatory.TryCompleteElseWatch(d, {"y"}).ok());
  EXPECT_EQ(purgatory.Watched(), 7);

  mock.AdvanceBy(absl::Seconds(1));
  EXPECT_TRUE(c->IsExpired());
  EXPECT_EQ(purgatory.Watched(), 4);
  EXPECT_EQ(purgatory.Metrics().keys, 2);  // "z" went with c.

  std::vector<TaskPtr<DelayedOperation>> cancelled =
      purgatory.CancelForKey("y");
  ASSERT_EQ(cancelled.size(), 2u);  // a and d, in no particular order.
  EXPECT_TRUE(a->IsCancelled());
  EXPECT_TRUE(d->IsCancelled());
  EXPECT_EQ(purgatory.Watched(), 1);  // b alone, on "x".
  const int a_tries = a->try_calls.load();
  const int b_tries = b->try_calls.load();
  b->ready = true;
  EXPECT_EQ(purgatory.CheckAndComplete("x"), 1);
  EXPECT_EQ(a->try_calls.load(), a_tries);
  EXPECT_EQ(b->try_calls.load(), b_tries + 1);
  EXPECT_EQ(purgatory.Watched(), 0);
  EXPECT_EQ(purgatory.Metrics().keys, 0);
  EXPECT_EQ(purgatory.NumDelayed(), 0);
}

// Threads hand in operations under overlapping keys while others complete
// them through their keys, directly (ForceComplete through a raw pointer)
// and by cancelling keys: slots move under every list at once. Each
// operation ends exactly once, and the lists end empty.
TEST(WatchListTest, ConcurrentMovesKeepEveryOperationEndingOnce) {
  constexpr int kThreads = 3;
  constexpr int kOpsPerThread = 300;
  constexpr int kKeys = 6;
  PurgatoryOptions options;
  options.shards = 2;
  auto purgatory =
      DelayedOperationPurgatory<std::string>::Create(options).value();
  std::vector<OpPtr> ops;
  for (int i = 0; i < kThreads * kOpsPerThread; ++i) {
    ops.push_back(MakeTask<CountingOperation>(absl::Hours(1)));
  }
  std::atomic<int> cancelled{0};
  std::atomic<int> handed_in{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (int n = 0; n < kOpsPerThread; ++n) {
        const int i = t * kOpsPerThread + n;
        const std::string k1 = "k" + std::to_string(random() % kKeys);
        const std::string k2 = "k" + std::to_string(random() % kKeys);
        ASSERT_TRUE(purgatory->TryCompleteElseWatch(ops[i], {k1, k2}).ok());
        handed_in.fetch_add(1);
        // Finish an earlier one of this thread's, a third of them directly.
        if (n >= 2 && n % 3 == 0) {
          ops[i - 2]->ready = true;
          ops[i - 2]->ForceComplete();
        }
      }
    });
  }
  // A checker making some ready ones complete through their keys, and a
  // canceller taking out one key now and then.
  threads.emplace_back([&] {
    std::mt19937 random(99);
    while (!stop.load()) {
      const int i = static_cast<int>(random() % ops.size());
      ops[i]->ready = random() % 2 == 0;
      purgatory->CheckAndComplete("k" + std::to_string(random() % kKeys));
    }
  });
  threads.emplace_back([&] {
    std::mt19937 random(7);
    while (!stop.load()) {
      cancelled.fetch_add(static_cast<int>(
          purgatory->CancelForKey("k" + std::to_string(random() % kKeys))
              .size()));
      std::this_thread::yield();
    }
  });
  for (int t = 0; t < kThreads; ++t) threads[t].join();
  stop.store(true);
  for (size_t t = kThreads; t < threads.size(); ++t) threads[t].join();

  // Whatever still waits is cancelled through every key: then all are done.
  for (int k = 0; k < kKeys; ++k) {
    cancelled.fetch_add(static_cast<int>(
        purgatory->CancelForKey("k" + std::to_string(k)).size()));
  }
  int completed = 0;
  int cancelled_ops = 0;
  for (const OpPtr& op : ops) {
    EXPECT_FALSE(op->state() == OperationState::kWaiting);
    EXPECT_EQ(op->completions.load(), op->IsCompleted() ? 1 : 0);
    EXPECT_EQ(op->expirations.load(), 0);
    EXPECT_EQ(op->tries_without_lock.load(), 0);
    completed += op->IsCompleted() ? 1 : 0;
    cancelled_ops += op->IsCancelled() ? 1 : 0;
  }
  EXPECT_EQ(completed + cancelled_ops, kThreads * kOpsPerThread);
  EXPECT_EQ(cancelled.load(), cancelled_ops);
  EXPECT_EQ(purgatory->Watched(), 0);
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  PurgatoryMetrics metrics = purgatory->Metrics();
  EXPECT_EQ(metrics.keys, 0);
  EXPECT_EQ(metrics.completed, completed);
}

}  // namespace
}  // namespace timingwheel
