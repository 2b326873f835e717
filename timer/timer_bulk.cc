// Copyright 2026 The timingwheel Authors.
//
// Operations of Timer over every pending task: CancelAll() and PeekNext().
// Both drain the producer inboxes first (buffered tasks are pending); the
// wheel's TakeAll() and EarliestTask() cover the lists of a flush running
// on another thread, which hold tasks between its chunks.

#include <cstdint>
#include <optional>
#include <vector>

#include "timer/embedded_timer.h"
#include "timer/internal/bucket.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

using State = internal::TaskState;

int64_t Timer::CancelAll() {
  std::vector<TimerTask*> counted;  // Their wheel references, dropped below.
  int64_t count = 0;
  {
    internal::MutexLock lock(mu_);
    if (shutdown_) return 0;
    Inboxes::DrainInboxesLocked(*this);
    std::vector<internal::ListNode*> chains;
    wheel_.TakeAll(chains);
    // Under the lock (unlike Shutdown(), the timer goes on: a Cancel() or a
    // move of one of these tasks must find it unlinked and not pending).
    bool embedded_swept = false;
    for (internal::ListNode* node : chains) {
      while (node != nullptr) {
        internal::ListNode* const next = node->next;
        if (next != nullptr) __builtin_prefetch(next, 1);
        node->prev = node->next = nullptr;  // Unlinked.
        TimerTask* const task = internal::TimingWheel::AsTask(node);
        task->due_nanos_ = State::kCancelledDue;
        // Re-added while it runs: stopped until Run() returns, as Cancel()
        // does.
        State::SweepPending(task, settings_.id);
        ++count;
        if (task->Embedded()) {
          embedded_swept = true;
        } else {
          counted.push_back(task);
        }
        node = next;
      }
    }
    counters_.pending -= count;
    counters_.cancelled += count;
    if (embedded_swept) EmbeddedSlots::NotifyEmbeddedWaiters(*this);
  }
  for (TimerTask* task : counted) {
    Timer::Cancels::NotifyCancelled(*task);
    task->Unref();  // The wheel's.
  }
  return count;
}

std::optional<Timer::Peeked> Timer::PeekNext() {
  internal::MutexLock lock(mu_);
  if (shutdown_) return std::nullopt;
  Inboxes::DrainInboxesLocked(*this);
  TimerTask* best = wheel_.EarliestTask();
  int64_t best_due = best != nullptr ? internal::TimingWheel::DueOf(best)
                                     : internal::kMaxNanos;
  if (best == nullptr) return std::nullopt;
  Peeked peeked;
  peeked.due = origin_ > 0 && best_due > internal::kMaxNanos - origin_
                   ? TimePoint::Max()
                   : TimePoint::FromNanos(origin_ + best_due);
  if (best->Embedded()) {
    peeked.embedded = static_cast<const EmbeddedTimer*>(best);
  } else {
    best->Ref();
    peeked.task = TaskPtr<TimerTask>::Adopt(best);
    best->Ref();
    control_->RefForHandle();
    peeked.handle = TimerHandle(control_, TaskPtr<TimerTask>::Adopt(best));
  }
  return peeked;
}

}  // namespace timingwheel
