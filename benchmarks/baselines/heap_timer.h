// Copyright 2026 The timingwheel Authors.
//
// heap_timer.h
// -----------------------------------------------------------------------------
//
// `HeapTimer`: baseline 1, what most C++ code does by hand. An indexed binary
// min-heap of deadlines (O(log n) schedule and cancel) and one thread that
// sleeps until the earliest deadline, woken early when a new timer becomes
// the earliest. Callbacks run on that thread. Precise (it sleeps until the
// exact deadline) and never early.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_HEAP_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_HEAP_TIMER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/baselines/loop_timer.h"
#include "benchmarks/baselines/node_pool.h"

namespace timingwheel {
namespace bench {

// HeapTimer
//
// Thread-safe. Its thread is named "bl-heap".
class HeapTimer final : public LoopTimer {
 public:
  explicit HeapTimer(Clock* clock = nullptr);
  ~HeapTimer() override { Stop(); }

  std::string name() const override { return "heap"; }
  TimerId Schedule(absl::Duration delay, Callback callback) override;
  bool Cancel(TimerId id) override;

 private:
  struct Node {
    uint32_t generation = 0;
    uint32_t heap_index = 0;
    bool live = false;
    Callback callback;
  };
  // Heap entries carry the deadline, so sifting never leaves the array.
  struct Entry {
    int64_t deadline;
    uint32_t node;
  };

  void CollectDueLocked(int64_t now, std::vector<Callback>& out) override;
  int64_t NextWakeLocked() override;

  void SiftUp(size_t index);
  void SiftDown(size_t index);
  void RemoveAt(size_t index);
  void Put(size_t index, Entry entry) {
    heap_[index] = entry;
    pool_[entry.node].heap_index = static_cast<uint32_t>(index);
  }

  NodePool<Node> pool_;
  std::vector<Entry> heap_;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_HEAP_TIMER_H_
