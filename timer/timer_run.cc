// Copyright 2026 The timingwheel Authors.
//
// Running the batches Timer hands to the executor: RunBatch() claims each
// task still queued (or leaves it to the thread already running it) and
// runs it, RunClaimed() runs again what a batch left to the running thread,
// InvokeRun() catches what a callback throws, ReleaseBatch() cancels the
// tasks of a batch the executor dropped, and FinishInFlight() lets a waiting
// Shutdown() or destructor go on. Called on the executor's threads (or the
// reaper's, for inline batches), without the timer's lock.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "timer/clock.h"
#include "timer/internal/bucket.h"
#include "timer/internal/report_error.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

namespace {

// The longest batch run time that RunBatch() feeds into the reaper's
// estimate of a task's run time (longer ones count as this long).
constexpr int64_t kMaxRunSample = 1000000000;

}  // namespace

using internal::current_callback_timer;
using State = internal::TaskState;

// Timer::CallbackScope marks the current thread as running a callback of
// `timer`, so that Shutdown() from inside a callback does not wait for itself.
class Timer::CallbackScope {
 public:
  explicit CallbackScope(const Timer* timer)
      : previous_(std::exchange(current_callback_timer, timer)) {}
  ~CallbackScope() { current_callback_timer = previous_; }

 private:
  const Timer* const previous_;
};

void Timer::Runner::InvokeRun(Timer& timer, TimerTask* task) {
  try {
    task->Run();
  } catch (...) {
    timer.callback_errors_.fetch_add(1, std::memory_order_relaxed);
    if (timer.settings_.on_callback_error) {
      try {
        timer.settings_.on_callback_error(std::current_exception());
      } catch (...) {
        // The hook's own failure has nowhere better to go.
      }
    } else {
      internal::ReportUnhandledError(std::current_exception(),
                                     "a timer callback",
                                     "TimerOptions::on_callback_error");
    }
  }
}

int64_t Timer::Runner::RunClaimed(Timer& timer, TimerTask* task) {
  int64_t dropped = 0;
  bool deferred_run = false;  // Whether this run is a deferred one.
  for (;;) {
    Runner::InvokeRun(timer, task);
    // kAgain: a batch left a run to this thread; run again, still kRunning.
    const State::RunEnd end = State::FinishRun(task);
    const bool again = end == State::RunEnd::kAgain;
    const bool drop_deferred = end == State::RunEnd::kDoneDropDeferred;
    // The batch that called this holds a reference until it returns.
    if (deferred_run) {
      task->Unref();
      ++dropped;
    }
    if (drop_deferred) {  // The deferred run was cancelled meanwhile.
      task->Unref();
      ++dropped;
    }
    if (!again) return dropped;
    deferred_run = true;
  }
}

void Timer::Runner::RunBatch(Timer& timer, std::vector<TimerTask*>& batch) {
  int64_t released = 0;
  // Timed for RunInlineBatches()'s estimate, on either thread. Read now:
  // the batch's in-flight count keeps the timer alive until its tasks are
  // released, and another thread may release some of them (a deferred run).
  const bool timed = timer.settings_.run_inline;
  const int64_t started = timed ? internal::ReadMonotonic() : 0;
  {
    CallbackScope scope(&timer);
    for (size_t i = 0; i < batch.size(); ++i) {
      TimerTask* task = batch[i];
      // A few tasks ahead (its state word is written, its vtable read).
      constexpr size_t kAhead = 4;
      if (i + kAhead < batch.size() && batch[i + kAhead] != nullptr) {
        __builtin_prefetch(batch[i + kAhead], 1);
      }
      if (task == nullptr) {  // A slot for an embedded timer.
        EmbeddedSlots::RunEmbeddedSlot(timer);
        ++released;
        continue;
      }
      // Skipped: cancelled or moved after it was handed over, or running
      // elsewhere with a run already owed (this reference is surplus).
      // Handed on: running on another thread (or up this one's stack),
      // never concurrently with itself; that thread runs it again when its
      // Run() returns, with this batch's reference.
      const State::Claim claim = State::TryClaimForRun(task);
      if (claim == State::Claim::kHandedOn) continue;
      if (claim == State::Claim::kClaimed) {
        released += Runner::RunClaimed(timer, task);
      }
      task->Unref();  // The wheel's reference: may run the destructor.
      ++released;
    }
  }
  // Only while this batch still holds in-flight counts (released > 0): a
  // batch whose every task was run by another thread may outlive the timer.
  if (timed && released > 0) {
    // An average that follows the last few batches (weight 1/8 each), so a
    // slow callback once does not keep later batches off the reaper.
    const int64_t per_task =
        std::min<int64_t>(internal::ReadMonotonic() - started, kMaxRunSample) /
        static_cast<int64_t>(batch.size());
    const int64_t old =
        timer.inline_.run_ns_per_task.load(std::memory_order_relaxed);
    timer.inline_.run_ns_per_task.store(old + (per_task - old) / 8,
                                        std::memory_order_relaxed);
  }
  // Last: once in_flight_ reaches 0, the timer may be destroyed.
  Runner::FinishInFlight(timer, released);
}

void Timer::Runner::ReleaseBatch(Timer& timer, std::vector<TimerTask*>& batch) {
  std::vector<TimerTask*> cancelled;  // Counted tasks: told after unlocking.
  {
    internal::MutexLock lock(timer.mu_);
    for (TimerTask* task : batch) {
      if (task == nullptr) {
        // A slot for an embedded timer: the front one is dropped (any one
        // would do; each slot stands for one of them). Touched under the
        // lock only: its owner may destroy it once the lock is released.
        if (internal::ListEmpty(&timer.embedded_ready_)) continue;
        task = internal::TimingWheel::AsTask(timer.embedded_ready_.next);
        internal::Unlink(timer.embedded_ready_.next);
      }
      if (State::TryCancelQueued(task)) {
        --timer.counters_.expired;
        ++timer.counters_.cancelled;
        if (!task->Embedded()) cancelled.push_back(task);
      }
    }
  }
  // The batch still holds their references (dropped below).
  for (TimerTask* task : cancelled) Timer::Cancels::NotifyCancelled(*task);
  for (TimerTask* task : batch) {
    if (task != nullptr) task->Unref();  // Null: an embedded timer's slot.
  }
  Runner::FinishInFlight(timer, static_cast<int64_t>(batch.size()));
}

void Timer::Runner::FinishInFlight(Timer& timer, int64_t count) {
  if (count == 0) return;
  timer.in_flight_.Finish(count);
}

}  // namespace timingwheel
