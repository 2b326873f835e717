// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/lazy_heap_timer.h"

#include <algorithm>
#include <utility>

#include "timer/clock.h"

namespace timingwheel {
namespace bench {
namespace internal {
namespace {

// For std::push_heap and friends: a min-heap on deadline.
struct Later {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const {
    return a.deadline > b.deadline;
  }
};

}  // namespace

TimerId LazyCancelHeap::Add(int64_t deadline, Callback callback,
                            bool* earliest) {
  const uint32_t index = pool_.Allocate();
  pool_[index].cancelled = false;
  pool_[index].callback = std::move(callback);
  heap_.push_back(HeapEntry{deadline, index});
  std::push_heap(heap_.begin(), heap_.end(), Later());
  *earliest = heap_.front().node == index;
  return pool_.IdOf(index);
}

bool LazyCancelHeap::Cancel(TimerId id, Dropped* dropped) {
  const uint32_t index = pool_.Find(id);
  if (index == kNil || pool_[index].cancelled) return false;
  pool_[index].cancelled = true;
  ++cancelled_;
  if (2 * cancelled_ > heap_.size()) Compact(*dropped);
  return true;
}

LazyCancelHeap::Callback LazyCancelHeap::PopTop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later());
  const uint32_t index = heap_.back().node;
  heap_.pop_back();
  Callback callback = std::move(pool_[index].callback);
  if (pool_[index].cancelled) --cancelled_;
  pool_.Free(index);
  return callback;
}

void LazyCancelHeap::Compact(std::vector<Callback>& dropped) {
  const auto kept = std::remove_if(
      heap_.begin(), heap_.end(), [this, &dropped](const HeapEntry& entry) {
        if (!pool_[entry.node].cancelled) return false;
        dropped.push_back(std::move(pool_[entry.node].callback));
        pool_.Free(entry.node);
        return true;
      });
  heap_.erase(kept, heap_.end());
  std::make_heap(heap_.begin(), heap_.end(), Later());
  cancelled_ = 0;
}

void LazyCancelHeap::PopDue(int64_t now, std::vector<Callback>& out) {
  while (!heap_.empty() && heap_.front().deadline <= now) {
    const bool cancelled = pool_[heap_.front().node].cancelled;
    Callback callback = PopTop();
    // A cancelled callback is destroyed here, under the lock (rare: most
    // leave by compaction).
    if (!cancelled) out.push_back(std::move(callback));
  }
}

int64_t LazyCancelHeap::NextDeadline() {
  // Cancelled entries at the top would only cause an early wake-up.
  while (!heap_.empty() && pool_[heap_.front().node].cancelled) {
    PopTop();
  }
  return heap_.empty() ? kInfiniteFutureNanos : heap_.front().deadline;
}

}  // namespace internal

template class BasicHeapTimer<internal::LazyCancelHeap>;

}  // namespace bench
}  // namespace timingwheel
