// Copyright 2026 The timingwheel Authors.
//
// The flush of Timer: FlushDue() takes the due tasks out of the wheel in
// chunks of kFlushChunk (TimingWheel::FlushChunk() cascades higher-level
// buckets on the way and merges tasks due in the current tick into the due
// list), releasing the lock between chunks; TakeExpired() marks each chunk's
// tasks queued and counts them in flight; Dispatch() hands a chunk to the
// executor as one Batch (or keeps it for the reaper to run inline). Called
// under the timer's lock by the one flusher at a time (see
// Timer::AdvanceClock()).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "timer/internal/bucket.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timing_wheel.h"
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

void Timer::Flusher::FlushDue(Timer& timer, int64_t now) {
  timer.wheel_.AdvanceTo(now);
  std::vector<TimerTask*> expired;
  expired.reserve(kFlushChunk);
  // Each round: one chunk of the wheel's flush (see
  // TimingWheel::FlushChunk()), then the expired tasks are handed over
  // outside the lock, the clock is re-read and the flush goes on until
  // nothing is due.
  for (;;) {
    if (timer.shutdown_) break;
    internal::FlushCounters flushed;
    const bool more =
        timer.wheel_.FlushChunk(now, kFlushChunk, expired, &flushed);
    timer.counters_.buckets_flushed += flushed.buckets_flushed;
    timer.counters_.tasks_cascaded += flushed.tasks_cascaded;
    if (!more) break;
    std::vector<TimerTask*> batch = Flusher::TakeExpired(timer, expired);
    timer.mu_.Unlock();
    Flusher::Dispatch(timer, std::move(batch));
    timer.mu_.Lock();
    now = Timer::Clocks::NowRelative(timer);
    timer.wheel_.AdvanceTo(now);
  }
  if (!expired.empty()) {
    std::vector<TimerTask*> batch = Flusher::TakeExpired(timer, expired);
    timer.mu_.Unlock();
    Flusher::Dispatch(timer, std::move(batch));
    timer.mu_.Lock();
  }
}

std::vector<TimerTask*> Timer::Flusher::TakeExpired(
    Timer& timer, std::vector<TimerTask*>& expired) {
  const int64_t count = static_cast<int64_t>(expired.size());
  timer.counters_.pending -= count;
  timer.counters_.expired += count;
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
      internal::LinkBefore(&timer.embedded_ready_,
                           internal::TimingWheel::AsNode(task));
      task = nullptr;
    }
  }
  // Counted in flight while the lock is held: a Shutdown() that follows
  // waits for them.
  timer.in_flight_.Add(count);
  std::vector<TimerTask*> batch;
  batch.reserve(kFlushChunk);
  batch.swap(expired);
  return batch;
}

void Timer::Flusher::Dispatch(Timer& timer, std::vector<TimerTask*> batch) {
  if (batch.empty()) return;
  if (inline_flusher == &timer) {
    // The reaper's flush with the default executor: its first chunk is kept
    // for the reaper to run once the flush ends (RunInlineBatches), with no
    // hand-off. A flush of more chunks is large: the executor thread runs
    // them all, in order, while the reaper flushes on. So is a first chunk
    // of more than kInlineBatchMax tasks: under heavy expiry (thousands due
    // per millisecond) the reaper running callbacks would leave the next
    // instants to the watchdog, and lateness grew 7-30x in
    // //benchmarks:expiry_lateness; the hand-off keeps the flush and the
    // callbacks on two threads there.
    if (!timer.inline_.handed_off && timer.inline_.batches.empty() &&
        batch.size() <= kInlineBatchMax) {
      timer.inline_.batches.push_back(std::move(batch));
      return;
    }
    timer.inline_.handed_off = true;
    for (std::vector<TimerTask*>& held : timer.inline_.batches) {
      timer.executor_->Execute(Batch(&timer, std::move(held)));
    }
    timer.inline_.batches.clear();
  }
  // One executor callback per batch: per-task closures, allocations and
  // completion bookkeeping cost more than the callbacks themselves. An
  // executor that destroys the callback without running it releases the
  // batch (see Batch).
  timer.executor_->Execute(Batch(&timer, std::move(batch)));
}

}  // namespace timingwheel
