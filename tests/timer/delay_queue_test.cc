// Copyright 2026 The timingwheel Authors.
//
// Tests of DelayQueue, the indexed min-heap of buckets by key.

#include "timer/internal/delay_queue.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "timer/internal/bucket.h"
#include "timer/internal/wheel_math.h"

namespace timingwheel {
namespace internal {
namespace {

// Pops every bucket and returns their keys in pop order.
std::vector<int64_t> Drain(DelayQueue& queue) {
  std::vector<int64_t> keys;
  while (Bucket* top = queue.Top()) {
    keys.push_back(top->key);
    queue.Remove(top);
    EXPECT_EQ(top->heap_index, -1);
  }
  return keys;
}

TEST(DelayQueueTest, EmptyQueue) {
  DelayQueue queue;
  EXPECT_EQ(queue.Top(), nullptr);
  EXPECT_EQ(queue.TopKey(), kMaxNanos);
  EXPECT_EQ(queue.size(), 0u);
  Bucket absent;
  queue.Remove(&absent);  // A no-op.
  EXPECT_EQ(queue.size(), 0u);
}

TEST(DelayQueueTest, PopsInKeyOrder) {
  DelayQueue queue;
  const std::vector<int64_t> keys = {50, 10, 40, 10, 30, 70, 20, 60, 0};
  std::vector<Bucket> buckets(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    buckets[i].key = keys[i];
    queue.Update(&buckets[i]);
  }
  EXPECT_EQ(queue.size(), keys.size());
  EXPECT_EQ(queue.TopKey(), 0);
  std::vector<int64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(Drain(queue), sorted);
  EXPECT_EQ(queue.size(), 0u);
}

TEST(DelayQueueTest, UpdateInsertsOnlyOnce) {
  DelayQueue queue;
  Bucket bucket;
  bucket.key = 5;
  queue.Update(&bucket);
  queue.Update(&bucket);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.Top(), &bucket);
}

TEST(DelayQueueTest, UpdateAfterKeyDecreaseMovesToTop) {
  DelayQueue queue;
  std::vector<Bucket> buckets(8);
  for (size_t i = 0; i < buckets.size(); ++i) {
    buckets[i].key = static_cast<int64_t>(10 * (i + 1));
    queue.Update(&buckets[i]);
  }
  buckets[6].key = 1;  // Was 70.
  queue.Update(&buckets[6]);
  EXPECT_EQ(queue.Top(), &buckets[6]);
  EXPECT_EQ(Drain(queue),
            (std::vector<int64_t>{1, 10, 20, 30, 40, 50, 60, 80}));
}

TEST(DelayQueueTest, UpdateAfterKeyIncreaseSinks) {
  DelayQueue queue;
  std::vector<Bucket> buckets(8);
  for (size_t i = 0; i < buckets.size(); ++i) {
    buckets[i].key = static_cast<int64_t>(10 * (i + 1));
    queue.Update(&buckets[i]);
  }
  ASSERT_EQ(queue.Top(), &buckets[0]);
  buckets[0].key = 55;  // Was 10.
  queue.Update(&buckets[0]);
  EXPECT_EQ(queue.Top(), &buckets[1]);
  EXPECT_EQ(Drain(queue),
            (std::vector<int64_t>{20, 30, 40, 50, 55, 60, 70, 80}));
}

TEST(DelayQueueTest, RemoveFromTheMiddle) {
  DelayQueue queue;
  std::vector<Bucket> buckets(9);
  for (size_t i = 0; i < buckets.size(); ++i) {
    buckets[i].key = static_cast<int64_t>(10 * (i + 1));
    queue.Update(&buckets[i]);
  }
  queue.Remove(&buckets[4]);  // 50
  EXPECT_EQ(buckets[4].heap_index, -1);
  queue.Remove(&buckets[4]);  // Absent now: a no-op.
  queue.Remove(&buckets[1]);  // 20
  queue.Remove(&buckets[8]);  // 90, the last element.
  EXPECT_EQ(queue.size(), 6u);
  EXPECT_EQ(Drain(queue), (std::vector<int64_t>{10, 30, 40, 60, 70, 80}));
}

TEST(DelayQueueTest, RandomOperationsMatchASortedReference) {
  std::mt19937_64 rng(20260101);
  constexpr int kBuckets = 64;
  std::vector<Bucket> buckets(kBuckets);
  std::vector<bool> in_queue(kBuckets, false);
  DelayQueue queue;
  for (int step = 0; step < 20000; ++step) {
    const size_t i = rng() % kBuckets;
    switch (rng() % 3) {
      case 0:
      case 1:
        buckets[i].key = static_cast<int64_t>(rng() % 1000);
        queue.Update(&buckets[i]);
        in_queue[i] = true;
        break;
      default:
        queue.Remove(&buckets[i]);
        in_queue[i] = false;
        break;
    }
    int64_t expected_min = kMaxNanos;
    size_t expected_size = 0;
    for (int b = 0; b < kBuckets; ++b) {
      EXPECT_EQ(buckets[b].heap_index >= 0, in_queue[b]);
      if (!in_queue[b]) continue;
      ++expected_size;
      expected_min = std::min(expected_min, buckets[b].key);
    }
    ASSERT_EQ(queue.size(), expected_size) << "step " << step;
    ASSERT_EQ(queue.TopKey(), expected_min) << "step " << step;
  }
}

}  // namespace
}  // namespace internal
}  // namespace timingwheel
