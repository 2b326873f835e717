// Copyright 2026 The timingwheel Authors.
//
// basic_heap_timer.h
// -----------------------------------------------------------------------------
//
// `BasicHeapTimer<CancelPolicy>`: what the two heap baselines share. A binary
// min-heap of deadlines under one lock, and one thread that sleeps until the
// earliest deadline, woken early when a new timer becomes the earliest.
// Callbacks run on that thread. Precise (it sleeps until the exact deadline)
// and never early. The `CancelPolicy` is the heap itself and what `Cancel()`
// does to it:
//
//   * `HeapTimer` (heap_timer.h): an indexed heap; cancel removes the entry.
//   * `LazyHeapTimer` (lazy_heap_timer.h): cancel only marks the entry.
//
// `HeapEntry` is the heap slot both policies keep.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_BASIC_HEAP_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_BASIC_HEAP_TIMER_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "benchmarks/baselines/deadline.h"
#include "benchmarks/baselines/loop_timer.h"
#include "timer/clock.h"

namespace timingwheel {
namespace bench {

// HeapEntry
//
// A heap slot: the deadline (clock nanos) and the index of the timer's node.
// Entries carry the deadline, so sifting never leaves the array.
struct HeapEntry {
  int64_t deadline;
  uint32_t node;
};

// BasicHeapTimer
//
// A `LoopTimer` over the heap `CancelPolicy`, which is used under `mu_` only
// and provides:
//
//   static constexpr char kName[], kThreadName[];  // "heap", "bl-heap"
//   using Dropped = ...;  // What Cancel() releases, destroyed unlocked.
//   TimerId Add(int64_t deadline, Callback callback, bool* earliest);
//       // Adds a timer; sets `*earliest` if it is now the first due.
//   bool Cancel(TimerId id, Dropped* dropped);  // False if not pending.
//   void PopDue(int64_t now, std::vector<Callback>& out);
//       // Moves the live callbacks due at `now` into `out`.
//   int64_t NextDeadline();  // The earliest live deadline, or
//                            // `kInfiniteFutureNanos`.
//
// Thread-safe. Its thread is named `CancelPolicy::kThreadName`.
template <typename CancelPolicy>
class BasicHeapTimer final : public LoopTimer {
 public:
  explicit BasicHeapTimer(Clock* clock = nullptr)
      : LoopTimer(CancelPolicy::kThreadName, clock) {}
  ~BasicHeapTimer() override { Stop(); }

  std::string name() const override { return CancelPolicy::kName; }
  TimerId Schedule(absl::Duration delay, Callback callback) override;
  bool Cancel(TimerId id) override;

 private:
  void CollectDueLocked(int64_t now, std::vector<Callback>& out) override;
  int64_t NextWakeLocked() override;

  CancelPolicy heap_;  // Guarded by mu_.
};

// Out of line (not inline), as each baseline's own .cc file instantiates
// them: see the `extern template` in heap_timer.h and lazy_heap_timer.h.

template <typename CancelPolicy>
TimerId BasicHeapTimer<CancelPolicy>::Schedule(absl::Duration delay,
                                               Callback callback) {
  const int64_t deadline = DeadlineAfter(clock_->NowNanos(), delay);
  std::lock_guard<std::mutex> lock(mu_);
  bool earliest = false;
  const TimerId id = heap_.Add(deadline, std::move(callback), &earliest);
  ++touches_;
  if (earliest) WakeIfSleepingPastLocked(deadline);
  return id;
}

template <typename CancelPolicy>
bool BasicHeapTimer<CancelPolicy>::Cancel(TimerId id) {
  typename CancelPolicy::Dropped dropped;  // Destroyed outside the lock.
  std::lock_guard<std::mutex> lock(mu_);
  return heap_.Cancel(id, &dropped);
}

template <typename CancelPolicy>
void BasicHeapTimer<CancelPolicy>::CollectDueLocked(
    int64_t now, std::vector<Callback>& out) {
  heap_.PopDue(now, out);
}

template <typename CancelPolicy>
int64_t BasicHeapTimer<CancelPolicy>::NextWakeLocked() {
  return heap_.NextDeadline();
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_BASIC_HEAP_TIMER_H_
