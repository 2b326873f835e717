// Copyright 2026 The timingwheel Authors.
//
// lazy_heap_timer.h
// -----------------------------------------------------------------------------
//
// `LazyHeapTimer`: baseline 1b, a binary min-heap whose cancel only marks the
// timer (one store, no sift): the cancelled entry stays in the heap until it
// reaches the top, or until cancelled entries make up half the heap, when one
// O(n) pass drops them all (so memory stays bounded by twice the live timers).
// This is what Java's `ScheduledThreadPoolExecutor` (without
// `removeOnCancel`) and Go's runtime timers do. One thread sleeps until the
// earliest deadline; callbacks run on it. Precise and never early. It is
// `BasicHeapTimer` (basic_heap_timer.h) over `internal::LazyCancelHeap`.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_LAZY_HEAP_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_LAZY_HEAP_TIMER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "benchmarks/baselines/basic_heap_timer.h"
#include "benchmarks/baselines/node_pool.h"
#include "benchmarks/baselines/timer_under_test.h"

namespace timingwheel {
namespace bench {
namespace internal {

// LazyCancelHeap
//
// `LazyHeapTimer`'s cancel policy: `Cancel()` marks the timer cancelled; its
// entry leaves the heap later (at the top, or by compaction). Not
// thread-safe: used under the timer's lock.
class LazyCancelHeap {
 public:
  using Callback = TimerUnderTest::Callback;
  using Dropped = std::vector<Callback>;

  static constexpr char kName[] = "lazy-heap";
  static constexpr char kThreadName[] = "bl-lazy-heap";

  TimerId Add(int64_t deadline, Callback callback, bool* earliest);
  bool Cancel(TimerId id, Dropped* dropped);
  void PopDue(int64_t now, std::vector<Callback>& out);
  int64_t NextDeadline();

 private:
  struct Node {
    uint32_t generation = 0;
    bool live = false;
    bool cancelled = false;
    Callback callback;
  };

  // Pops the top entry and frees its node; returns the node's callback.
  Callback PopTop();
  // Drops every cancelled entry and rebuilds the heap, into `dropped`.
  void Compact(std::vector<Callback>& dropped);

  NodePool<Node> pool_;
  std::vector<HeapEntry> heap_;  // A min-heap on deadline (std::push_heap).
  size_t cancelled_ = 0;         // Cancelled entries still in heap_.
};

}  // namespace internal

extern template class BasicHeapTimer<internal::LazyCancelHeap>;

// LazyHeapTimer
//
// Thread-safe. Its thread is named "bl-lazy-heap".
using LazyHeapTimer = BasicHeapTimer<internal::LazyCancelHeap>;

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_LAZY_HEAP_TIMER_H_
