// Copyright 2026 The timingwheel Authors.
//
// The flush of Timer: FlushDue() takes the due tasks out of the wheel in
// chunks of kFlushChunk (cascading higher-level buckets on the way, merging
// tasks due in the current tick into the due list), releasing the lock
// between chunks; TakeExpired() marks each chunk's tasks queued and counts
// them in flight; Dispatch() hands a chunk to the executor as one Batch (or
// keeps it for the reaper to run inline). Called under the timer's lock by
// the one flusher at a time (see Timer::AdvanceClock()).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "timer/internal/bucket.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

namespace {

// The largest batch the reaper runs itself with the default executor (see
// Timer::Dispatch); larger ones go to the standby thread.
constexpr size_t kInlineBatchMax = 64;

}  // namespace

using internal::inline_flusher;
using internal::kFlushChunk;
using State = internal::TaskState;

void Timer::FlushDue(int64_t now) {
  wheel_.AdvanceTo(now);
  std::vector<TimerTask*> expired;
  expired.reserve(kFlushChunk);
  // Each round: pop every due bucket (the due list yields its due tasks at
  // once; other buckets join a work queue, level 0 ahead of the levels
  // above: small and urgent before large cascades), drain one chunk of the
  // queue, then hand the expired tasks over outside the lock, re-read the
  // clock and go again until nothing is due. A large cascade so never keeps
  // the tasks due meanwhile waiting for more than a chunk.
  //
  // Cascaded tasks due in the current tick wait on staging_ and are merged
  // into the sorted due list in batches: before the flush ends, when one of
  // them is due, or when the batch has grown to what this flush merged so
  // far. A task is so walked over by O(log n) merges: 200,000 tasks due in
  // one tick merge in O(n log n), not once per chunk (O(n^2 / chunk)).
  size_t staged = 0;  // An upper bound: Cancel() may take some away.
  size_t merged = 0;
  int64_t staged_min = internal::kMaxNanos;
  for (;;) {
    if (shutdown_) break;
    size_t work = 0;
    while (internal::Bucket* bucket = wheel_.PopDueBucket(now)) {
      ++counters_.buckets_flushed;
      if (wheel_.IsDueList(bucket)) {
        const size_t before = expired.size();
        wheel_.PopDueTasks(now, kFlushChunk - work, expired);
        work += expired.size() - before;
        if (work >= kFlushChunk) break;
        continue;
      }
      internal::SpliceAll(&bucket->head,
                          bucket->level == 0 ? &urgent_ : &flushing_);
      internal::TimingWheel::ResetBucket(bucket);
    }
    internal::ListNode* queue =
        internal::ListEmpty(&urgent_) ? &flushing_ : &urgent_;
    // The queue is walked without unlinking each task from it, which would
    // write to the next task at once and so wait for its cache miss: the
    // next task is prefetched while this one is placed, and the queue is
    // closed over the walked part when the chunk ends or it runs dry.
    internal::ListNode* node = queue->next;
    while (work < kFlushChunk && node != queue) {
      internal::ListNode* const next = node->next;
      __builtin_prefetch(next, 1);
      node->prev = node->next = nullptr;  // Unlinked.
      TimerTask* task = internal::TimingWheel::AsTask(node);
      const int64_t due = internal::TimingWheel::DueOf(task);
      if (due <= now) {
        expired.push_back(task);
      } else {
        ++counters_.tasks_cascaded;
        if (wheel_.InCurrentTick(due)) {
          internal::LinkBefore(&staging_, internal::TimingWheel::AsNode(task));
          ++staged;
          staged_min = std::min(staged_min, due);
        } else {
          wheel_.Place(task);
        }
      }
      ++work;
      node = next;
      if (node == queue) {  // Walked it all.
        internal::InitList(queue);
        if (queue == &urgent_) {
          queue = &flushing_;
          node = queue->next;
        }
      }
    }
    if (node != queue) {  // The rest waits for the next chunk.
      queue->next = node;
      node->prev = queue;
    }
    bool more = !internal::ListEmpty(&urgent_) ||
                !internal::ListEmpty(&flushing_) || wheel_.EarliestKey() <= now;
    if (staged > 0 && (!more || staged_min <= now || staged >= merged)) {
      wheel_.MergeIntoDueList(&staging_);
      merged += staged;
      staged = 0;
      staged_min = internal::kMaxNanos;
      more = more || wheel_.EarliestKey() <= now;
    }
    if (!more) break;
    std::vector<TimerTask*> batch = TakeExpired(expired);
    mu_.Unlock();
    Dispatch(std::move(batch));
    mu_.Lock();
    now = NowRelative();
    wheel_.AdvanceTo(now);
  }
  if (!expired.empty()) {
    std::vector<TimerTask*> batch = TakeExpired(expired);
    mu_.Unlock();
    Dispatch(std::move(batch));
    mu_.Lock();
  }
}

std::vector<TimerTask*> Timer::TakeExpired(std::vector<TimerTask*>& expired) {
  const int64_t count = static_cast<int64_t>(expired.size());
  counters_.pending -= count;
  counters_.expired += count;
  // Tasks that became due in the same wake-up run in due-time order (the
  // due list already yields them so; buckets flushed together may not).
  // Sorted here, under the lock: once out of the wheel a task may be added
  // again by another thread, which rewrites its due time.
  auto by_due = [](const TimerTask* a, const TimerTask* b) {
    return internal::TimingWheel::DueOf(a) < internal::TimingWheel::DueOf(b);
  };
  if (!std::is_sorted(expired.begin(), expired.end(), by_due)) {
    std::stable_sort(expired.begin(), expired.end(), by_due);
  }
  for (size_t i = 0; i < expired.size(); ++i) {
    TimerTask*& task = expired[i];
    // A few tasks ahead: its state word is written next.
    constexpr size_t kAhead = 4;
    if (i + kAhead < expired.size()) __builtin_prefetch(expired[i + kAhead], 1);
    // Pending -> queued: Cancel() can still take it back until it starts.
    State::MarkQueued(task);
    if (task->Embedded()) {
      // The batch gets a null slot; the timer keeps the task (see
      // RunEmbeddedSlot), so that destroying it never waits for a batch.
      internal::LinkBefore(&embedded_ready_,
                           internal::TimingWheel::AsNode(task));
      task = nullptr;
    }
  }
  // Counted in flight while the lock is held: a Shutdown() that follows
  // waits for them.
  in_flight_.fetch_add(count, std::memory_order_relaxed);
  std::vector<TimerTask*> batch;
  batch.reserve(kFlushChunk);
  batch.swap(expired);
  return batch;
}

void Timer::Dispatch(std::vector<TimerTask*> batch) {
  if (batch.empty()) return;
  if (inline_flusher == this) {
    // The reaper's flush with the default executor: its first chunk is kept
    // for the reaper to run once the flush ends (RunInlineBatches), with no
    // hand-off. A flush of more chunks is large: the executor thread runs
    // them all, in order, while the reaper flushes on. So is a first chunk
    // of more than kInlineBatchMax tasks: under heavy expiry (thousands due
    // per millisecond) the reaper running callbacks would leave the next
    // instants to the watchdog, and lateness grew 7-30x in
    // //benchmarks:expiry_lateness; the hand-off keeps the flush and the
    // callbacks on two threads there.
    if (!inline_handed_off_ && inline_batches_.empty() &&
        batch.size() <= kInlineBatchMax) {
      inline_batches_.push_back(std::move(batch));
      return;
    }
    inline_handed_off_ = true;
    for (std::vector<TimerTask*>& held : inline_batches_) {
      executor_->Execute(Batch(this, std::move(held)));
    }
    inline_batches_.clear();
  }
  // One executor callback per batch: per-task closures, allocations and
  // completion bookkeeping cost more than the callbacks themselves. An
  // executor that destroys the callback without running it releases the
  // batch (see Batch).
  executor_->Execute(Batch(this, std::move(batch)));
}

}  // namespace timingwheel
