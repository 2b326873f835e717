// Copyright 2026 The timingwheel Authors.
//
// delay_queue.h
// -----------------------------------------------------------------------------
//
// `DelayQueue` is a binary min-heap of buckets (never of individual tasks)
// ordered by `Bucket::key`. Its size is bounded by the number of buckets of
// the wheel, so its O(log n) operations are on a few hundred entries at most.
//
// Not thread-safe: used under the owning timer's lock.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_DELAY_QUEUE_H_
#define TIMINGWHEEL_TIMER_INTERNAL_DELAY_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "timer/internal/bucket.h"
#include "timer/internal/wheel_math.h"

namespace timingwheel {
namespace internal {

// DelayQueue
//
// An indexed min-heap of `Bucket*` by key: each bucket records its position,
// so a changed key is repaired in O(log n) and a bucket is removed in
// O(log n).
class DelayQueue {
 public:
  // DelayQueue::Update()
  //
  // Inserts `bucket` if absent, or restores heap order after its key changed.
  void Update(Bucket* bucket);

  // DelayQueue::Remove()
  //
  // Removes `bucket` if present.
  void Remove(Bucket* bucket);

  // DelayQueue::Top()
  //
  // Returns the bucket with the smallest key, or null when empty.
  Bucket* Top() const { return heap_.empty() ? nullptr : heap_.front(); }

  // DelayQueue::TopKey()
  //
  // Returns the smallest key, or `kMaxNanos` when empty.
  int64_t TopKey() const {
    return heap_.empty() ? kMaxNanos : heap_.front()->key;
  }

  size_t size() const { return heap_.size(); }

  // DelayQueue::VisitBelow()
  //
  // Calls `visit(bucket)` for the buckets whose key is below `bound`, which
  // is read again before each step (the visitor may lower it), skipping
  // every subtree whose root's key is not below it. With a visitor that
  // lowers `bound` to the best it found, this finds a minimum over the
  // buckets' contents while visiting only the buckets that could hold a
  // smaller one.
  template <typename Visit>
  void VisitBelow(const int64_t& bound, Visit visit) const {
    std::vector<size_t> stack;
    if (!heap_.empty()) stack.push_back(0);
    while (!stack.empty()) {
      const size_t index = stack.back();
      stack.pop_back();
      if (heap_[index]->key >= bound) continue;  // Its subtree neither.
      visit(heap_[index]);
      for (size_t child = 2 * index + 1; child <= 2 * index + 2; ++child) {
        if (child < heap_.size()) stack.push_back(child);
      }
    }
  }

 private:
  void SiftUp(size_t index);
  void SiftDown(size_t index);
  void Place(size_t index, Bucket* bucket);

  std::vector<Bucket*> heap_;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_DELAY_QUEUE_H_
