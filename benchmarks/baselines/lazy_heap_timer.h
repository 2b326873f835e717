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
// earliest deadline; callbacks run on it. Precise and never early.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_LAZY_HEAP_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_LAZY_HEAP_TIMER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/baselines/loop_timer.h"
#include "benchmarks/baselines/node_pool.h"

namespace timingwheel {
namespace bench {

// LazyHeapTimer
//
// Thread-safe. Its thread is named "bl-lazy-heap".
class LazyHeapTimer final : public LoopTimer {
 public:
  explicit LazyHeapTimer(Clock* clock = nullptr);
  ~LazyHeapTimer() override { Stop(); }

  std::string name() const override { return "lazy-heap"; }
  TimerId Schedule(absl::Duration delay, Callback callback) override;
  // Marks the timer cancelled; its entry leaves the heap later.
  bool Cancel(TimerId id) override;

 private:
  struct Node {
    uint32_t generation = 0;
    bool live = false;
    bool cancelled = false;
    Callback callback;
  };
  struct Entry {
    int64_t deadline;
    uint32_t node;
  };

  void CollectDueLocked(int64_t now, std::vector<Callback>& out) override;
  int64_t NextWakeLocked() override;

  // Pops the top entry and frees its node; returns the node's callback.
  Callback PopTopLocked();
  // Drops every cancelled entry and rebuilds the heap, into `dropped`.
  void CompactLocked(std::vector<Callback>& dropped);

  NodePool<Node> pool_;
  std::vector<Entry> heap_;  // A min-heap on deadline (std::push_heap).
  size_t cancelled_ = 0;     // Cancelled entries still in heap_.
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_LAZY_HEAP_TIMER_H_
