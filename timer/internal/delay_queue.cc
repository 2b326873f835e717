// Copyright 2026 The timingwheel Authors.

#include "timer/internal/delay_queue.h"

namespace timingwheel {
namespace internal {

void DelayQueue::Place(size_t index, Bucket* bucket) {
  heap_[index] = bucket;
  bucket->heap_index = static_cast<int32_t>(index);
}

void DelayQueue::Update(Bucket* bucket) {
  if (bucket->heap_index < 0) {
    heap_.push_back(bucket);
    bucket->heap_index = static_cast<int32_t>(heap_.size() - 1);
    SiftUp(heap_.size() - 1);
    return;
  }
  const size_t index = static_cast<size_t>(bucket->heap_index);
  SiftUp(index);
  SiftDown(static_cast<size_t>(bucket->heap_index));
}

void DelayQueue::Remove(Bucket* bucket) {
  if (bucket->heap_index < 0) return;
  const size_t index = static_cast<size_t>(bucket->heap_index);
  bucket->heap_index = -1;
  Bucket* last = heap_.back();
  heap_.pop_back();
  if (index == heap_.size()) return;  // It was the last element.
  Place(index, last);
  SiftUp(index);
  SiftDown(static_cast<size_t>(last->heap_index));
}

void DelayQueue::SiftUp(size_t index) {
  Bucket* bucket = heap_[index];
  while (index > 0) {
    const size_t parent = (index - 1) / 2;
    if (heap_[parent]->key <= bucket->key) break;
    Place(index, heap_[parent]);
    index = parent;
  }
  Place(index, bucket);
}

void DelayQueue::SiftDown(size_t index) {
  Bucket* bucket = heap_[index];
  const size_t size = heap_.size();
  for (;;) {
    size_t child = 2 * index + 1;
    if (child >= size) break;
    if (child + 1 < size && heap_[child + 1]->key < heap_[child]->key) ++child;
    if (bucket->key <= heap_[child]->key) break;
    Place(index, heap_[child]);
    index = child;
  }
  Place(index, bucket);
}

}  // namespace internal
}  // namespace timingwheel
