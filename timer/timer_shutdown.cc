// Copyright 2026 The timingwheel Authors.
//
// Timer::Shutdown(): closes the producer inboxes, takes every pending task
// out of the wheel and the flush lists under the lock, sweeps them outside
// it (cancelled, returned to the caller), then waits for the reaper and the
// batches in flight, unless called from one of the timer's own callbacks
// (the destructor finishes the wait then). Thread-safe.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/base/macros.h"
#include "timer/internal/bucket.h"
#include "timer/internal/standby_executor.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

using internal::current_callback_timer;
using State = internal::TaskState;

std::vector<TaskPtr<TimerTask>> Timer::Shutdown() {
  // The pending tasks as chains (null-terminated by `next`), one per bucket.
  std::vector<internal::ListNode*> chains;
  int64_t count = 0;
  {
    internal::MutexLock lock(mu_);
    if (!shutdown_) {
      // Close the inbox (producers that push from now on see it after
      // their push and withdraw their task: see TryBuffer), then drain it:
      // buffered tasks are swept as pending ones.
      inbox_closed_ = true;
      Inboxes::PublishFloorLocked(*this);
      Inboxes::DrainInboxesLocked(*this);
      shutdown_ = true;
      // O(buckets) under the lock: the tasks are walked after it.
      wheel_.TakeAll(chains);
      count = counters_.pending;
      counters_.pending = 0;
      counters_.cancelled += count;
    }
  }
  cv_.notify_all();
  // The chains are this call's alone now: with shutdown_ set, Add() and
  // Cancel() leave pending tasks alone. Up to kLanes chains are walked side
  // by side, a step of each in turn, with each lane's next task prefetched:
  // their cache misses overlap instead of following one another.
  std::vector<TaskPtr<TimerTask>> cancelled;
  cancelled.reserve(static_cast<size_t>(count));
  bool swept_embedded = false;
  constexpr size_t kLanes = 16;
  internal::ListNode* lanes[kLanes];
  size_t live = 0;        // Lanes in use: lanes[0, live).
  size_t next_chain = 0;  // The next chain to put in a lane.
  while (live < kLanes && next_chain < chains.size()) {
    lanes[live++] = chains[next_chain++];
  }
  while (live > 0) {
    for (size_t lane = 0; lane < live;) {
      internal::ListNode* const node = lanes[lane];
      // Read first: once kPending is cleared, a thread destroying an
      // embedded timer (waiting for that, see CancelEmbedded) may free it.
      internal::ListNode* const next = node->next;
      if (next != nullptr) __builtin_prefetch(next, 1);
      node->prev = node->next = nullptr;  // Unlinked.
      TimerTask* task = internal::TimingWheel::AsTask(node);
      const bool embedded = task->Embedded();
      // Before the word leaves kPending (readers that see kPending after
      // Shutdown() do not read it; those that see it cleared see this).
      task->due_nanos_ = State::kCancelledDue;
      State::ClearPending(task);
      // The wheel's reference passes to the caller; an embedded timer (no
      // reference: its owner may destroy it any time) is not returned.
      if (embedded) {
        // Not touched again; its destroyer is woken below.
        --count;
        swept_embedded = true;
      } else {
        cancelled.push_back(TaskPtr<TimerTask>::Adopt(task));
      }
      if (next != nullptr) {
        lanes[lane++] = next;
      } else if (next_chain < chains.size()) {
        lanes[lane++] = chains[next_chain++];
      } else {
        lanes[lane] = lanes[--live];  // This lane is done.
      }
    }
  }
  if (swept_embedded) {
    internal::MutexLock lock(mu_);
    EmbeddedSlots::NotifyEmbeddedWaiters(*this);
  }
  ABSL_ASSERT(static_cast<int64_t>(cancelled.size()) == count);
  for (const TaskPtr<TimerTask>& task : cancelled)
    Timer::Cancels::NotifyCancelled(*task);
  if (current_callback_timer == this) return cancelled;

  std::lock_guard<std::mutex> stop(shutdown_mu_);
  if (reaper_.joinable()) reaper_.join();
  { in_flight_.WaitUntilNone(); }
  if (owned_executor_ != nullptr) owned_executor_->Shutdown();
  return cancelled;
}

}  // namespace timingwheel
