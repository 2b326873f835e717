// Copyright 2026 The timingwheel Authors.
//
// heap_timer.h
// -----------------------------------------------------------------------------
//
// `HeapTimer`: baseline 1, what most C++ code does by hand. An indexed binary
// min-heap of deadlines (O(log n) schedule and cancel) and one thread that
// sleeps until the earliest deadline, woken early when a new timer becomes
// the earliest. Callbacks run on that thread. Precise (it sleeps until the
// exact deadline) and never early. It is `BasicHeapTimer` (basic_heap_timer.h)
// over `internal::EagerCancelHeap`.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_HEAP_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_HEAP_TIMER_H_

#include <cstdint>
#include <vector>

#include "benchmarks/baselines/basic_heap_timer.h"
#include "benchmarks/baselines/node_pool.h"
#include "benchmarks/baselines/timer_under_test.h"

namespace timingwheel {
namespace bench {
namespace internal {

// EagerCancelHeap
//
// `HeapTimer`'s cancel policy: each node knows its heap index, so a cancel
// removes the entry at once (O(log n)). Not thread-safe: used under the
// timer's lock.
class EagerCancelHeap {
 public:
  using Callback = TimerUnderTest::Callback;
  using Dropped = Callback;

  static constexpr char kName[] = "heap";
  static constexpr char kThreadName[] = "bl-heap";

  TimerId Add(int64_t deadline, Callback callback, bool* earliest);
  bool Cancel(TimerId id, Dropped* dropped);
  void PopDue(int64_t now, std::vector<Callback>& out);
  int64_t NextDeadline();

 private:
  struct Node {
    uint32_t generation = 0;
    uint32_t heap_index = 0;
    bool live = false;
    Callback callback;
  };

  void SiftUp(size_t index);
  void SiftDown(size_t index);
  void RemoveAt(size_t index);
  void Put(size_t index, HeapEntry entry) {
    heap_[index] = entry;
    pool_[entry.node].heap_index = static_cast<uint32_t>(index);
  }

  NodePool<Node> pool_;
  std::vector<HeapEntry> heap_;
};

}  // namespace internal

extern template class BasicHeapTimer<internal::EagerCancelHeap>;

// HeapTimer
//
// Thread-safe. Its thread is named "bl-heap".
using HeapTimer = BasicHeapTimer<internal::EagerCancelHeap>;

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_HEAP_TIMER_H_
