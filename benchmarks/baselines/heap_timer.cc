// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/heap_timer.h"

#include <utility>

#include "timer/clock.h"

namespace timingwheel {
namespace bench {
namespace internal {

TimerId EagerCancelHeap::Add(int64_t deadline, Callback callback,
                             bool* earliest) {
  const uint32_t index = pool_.Allocate();
  pool_[index].callback = std::move(callback);
  heap_.push_back(HeapEntry{deadline, index});
  Put(heap_.size() - 1, heap_.back());
  SiftUp(heap_.size() - 1);
  *earliest = pool_[index].heap_index == 0;
  return pool_.IdOf(index);
}

bool EagerCancelHeap::Cancel(TimerId id, Dropped* dropped) {
  const uint32_t index = pool_.Find(id);
  if (index == kNil) return false;
  RemoveAt(pool_[index].heap_index);
  *dropped = std::move(pool_[index].callback);
  pool_.Free(index);
  return true;
}

void EagerCancelHeap::PopDue(int64_t now, std::vector<Callback>& out) {
  while (!heap_.empty() && heap_.front().deadline <= now) {
    const uint32_t index = heap_.front().node;
    RemoveAt(0);
    out.push_back(std::move(pool_[index].callback));
    pool_.Free(index);
  }
}

int64_t EagerCancelHeap::NextDeadline() {
  return heap_.empty() ? kInfiniteFutureNanos : heap_.front().deadline;
}

void EagerCancelHeap::SiftUp(size_t index) {
  const HeapEntry entry = heap_[index];
  while (index > 0) {
    const size_t parent = (index - 1) / 2;
    if (heap_[parent].deadline <= entry.deadline) break;
    Put(index, heap_[parent]);
    index = parent;
  }
  Put(index, entry);
}

void EagerCancelHeap::SiftDown(size_t index) {
  const HeapEntry entry = heap_[index];
  const size_t size = heap_.size();
  for (;;) {
    size_t child = 2 * index + 1;
    if (child >= size) break;
    if (child + 1 < size && heap_[child + 1].deadline < heap_[child].deadline) {
      ++child;
    }
    if (entry.deadline <= heap_[child].deadline) break;
    Put(index, heap_[child]);
    index = child;
  }
  Put(index, entry);
}

void EagerCancelHeap::RemoveAt(size_t index) {
  const HeapEntry last = heap_.back();
  heap_.pop_back();
  if (index == heap_.size()) return;
  const int64_t removed = heap_[index].deadline;
  Put(index, last);
  if (last.deadline < removed) {
    SiftUp(index);
  } else {
    SiftDown(index);
  }
}

}  // namespace internal

template class BasicHeapTimer<internal::EagerCancelHeap>;

}  // namespace bench
}  // namespace timingwheel
