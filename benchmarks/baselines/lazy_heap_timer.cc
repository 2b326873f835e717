// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/lazy_heap_timer.h"

#include <algorithm>
#include <utility>

#include "benchmarks/baselines/deadline.h"

namespace timingwheel {
namespace bench {
namespace {

// For std::push_heap and friends: a min-heap on deadline.
struct Later {
  template <typename Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    return a.deadline > b.deadline;
  }
};

}  // namespace

LazyHeapTimer::LazyHeapTimer(Clock* clock) : LoopTimer("bl-lazy-heap", clock) {}

TimerId LazyHeapTimer::Schedule(absl::Duration delay, Callback callback) {
  const int64_t deadline = DeadlineAfter(clock_->NowNanos(), delay);
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t index = pool_.Allocate();
  pool_[index].cancelled = false;
  pool_[index].callback = std::move(callback);
  heap_.push_back(Entry{deadline, index});
  std::push_heap(heap_.begin(), heap_.end(), Later());
  ++touches_;
  if (heap_.front().node == index) WakeIfSleepingPastLocked(deadline);
  return pool_.IdOf(index);
}

bool LazyHeapTimer::Cancel(TimerId id) {
  std::vector<Callback> dropped;  // Destroyed outside the lock.
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t index = pool_.Find(id);
  if (index == kNil || pool_[index].cancelled) return false;
  pool_[index].cancelled = true;
  ++cancelled_;
  if (2 * cancelled_ > heap_.size()) CompactLocked(dropped);
  return true;
}

LazyHeapTimer::Callback LazyHeapTimer::PopTopLocked() {
  std::pop_heap(heap_.begin(), heap_.end(), Later());
  const uint32_t index = heap_.back().node;
  heap_.pop_back();
  Callback callback = std::move(pool_[index].callback);
  if (pool_[index].cancelled) --cancelled_;
  pool_.Free(index);
  return callback;
}

void LazyHeapTimer::CompactLocked(std::vector<Callback>& dropped) {
  const auto kept = std::remove_if(
      heap_.begin(), heap_.end(), [this, &dropped](const Entry& entry) {
        if (!pool_[entry.node].cancelled) return false;
        dropped.push_back(std::move(pool_[entry.node].callback));
        pool_.Free(entry.node);
        return true;
      });
  heap_.erase(kept, heap_.end());
  std::make_heap(heap_.begin(), heap_.end(), Later());
  cancelled_ = 0;
}

void LazyHeapTimer::CollectDueLocked(int64_t now, std::vector<Callback>& out) {
  while (!heap_.empty() && heap_.front().deadline <= now) {
    const bool cancelled = pool_[heap_.front().node].cancelled;
    Callback callback = PopTopLocked();
    // A cancelled callback is destroyed here, under the lock (rare: most
    // leave by compaction).
    if (!cancelled) out.push_back(std::move(callback));
  }
}

int64_t LazyHeapTimer::NextWakeLocked() {
  // Cancelled entries at the top would only cause an early wake-up.
  while (!heap_.empty() && pool_[heap_.front().node].cancelled) {
    PopTopLocked();
  }
  return heap_.empty() ? kInfiniteFutureNanos : heap_.front().deadline;
}

}  // namespace bench
}  // namespace timingwheel
