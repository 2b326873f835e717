// Copyright 2026 The timingwheel Authors.

#include "timer/timer.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "timer/internal/bucket.h"
#include "timer/internal/wheel_math.h"

namespace timingwheel {
namespace {

// Tasks a flush handles per lock hold; the lock is released in between so
// that adds and cancels never wait behind a large bucket.
constexpr size_t kFlushChunk = 512;

constexpr int64_t kMaxWheelSize = int64_t{1} << 20;

// The timer whose callback the current thread is running, if any.
thread_local const Timer* current_callback_timer = nullptr;

}  // namespace

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

absl::StatusOr<std::unique_ptr<Timer>> Timer::Create(TimerOptions options) {
  const int64_t tick_nanos = absl::ToInt64Nanoseconds(options.tick);
  if (tick_nanos <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("timingwheel: tick must be at least 1ns, got %s",
                        absl::FormatDuration(options.tick)));
  }
  if (options.wheel_size < 2 || options.wheel_size > kMaxWheelSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("timingwheel: wheel_size must be in [2, %d], got %d",
                        kMaxWheelSize, options.wheel_size));
  }
  if (options.max_pending < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "timingwheel: max_pending must be >= 0 (0: no limit), got %d",
        options.max_pending));
  }
  std::unique_ptr<Timer> timer(new Timer(options, tick_nanos));
  if (options.start_reaper) {
    Timer* raw = timer.get();
    timer->reaper_ = std::thread([raw] { raw->ReaperLoop(); });
  }
  return timer;
}

Timer::Timer(const TimerOptions& options, int64_t tick_nanos)
    : clock_(options.clock != nullptr ? options.clock : Clock::Real()),
      owned_executor_(options.executor != nullptr
                          ? nullptr
                          : std::make_unique<ThreadExecutor>()),
      executor_(options.executor != nullptr ? options.executor
                                            : owned_executor_.get()),
      origin_(clock_->NowNanos()),
      max_pending_(options.max_pending),
      on_callback_error_(options.on_callback_error),
      wheel_(tick_nanos, options.wheel_size) {
  internal::InitList(&urgent_);
  internal::InitList(&flushing_);
  internal::InitList(&staging_);
}

Timer::~Timer() {
  Shutdown();
  // Shutdown() from a callback could not wait; the destructor, which must
  // not run inside a callback, finishes the job.
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    done_cv_.wait(lock, [this] { return in_flight_.load() == 0; });
  }
  if (reaper_.joinable()) reaper_.join();
}

int64_t Timer::ClockRelative() {
  const int64_t now = clock_->NowNanos();
  if (now <= origin_) return 0;  // A clock reading before the origin.
  // now - origin_ cannot overflow: now > origin_ and both are int64.
  return static_cast<int64_t>(static_cast<uint64_t>(now) -
                              static_cast<uint64_t>(origin_));
}

int64_t Timer::NowRelative() {
  return std::max(ClockRelative(), wheel_.time());
}

absl::Status Timer::AddInternal(TimerTask* task, absl::Duration delay,
                                bool wheel_ref_taken) {
  const int64_t delay_nanos = internal::DelayToNanos(delay);
  const int64_t clock_now = ClockRelative();
  {
    internal::MutexLock lock(mu_);
    absl::Status refused;
    if (shutdown_) {
      refused = absl::FailedPreconditionError(
          "timingwheel: cannot add a task after Timer::Shutdown()");
    } else if (task->pending()) {
      wheel_.Unlink(task, {&urgent_, &flushing_, &staging_});
    } else if (max_pending_ > 0 && counters_.pending >= max_pending_) {
      refused = absl::ResourceExhaustedError(absl::StrFormat(
          "timingwheel: %d tasks pending, the limit (max_pending)",
          counters_.pending));
    } else {
      // The wheel's reference, until the task runs or is cancelled.
      if (!wheel_ref_taken) task->Ref();
      wheel_ref_taken = false;
      ++counters_.pending;
    }
    if (!refused.ok()) {
      if (wheel_ref_taken) task->Unref();  // Never the last: the caller's.
      return refused;
    }
    // Never before the wheel's time: an injected clock that stepped back
    // cannot make the task due earlier than the timer has already seen.
    task->due_nanos_ = internal::SaturatingAdd(
        std::max(clock_now, wheel_.time()), delay_nanos);
    wheel_.Place(task);
    ++counters_.added;
    if (wheel_.EarliestKey() < sleep_deadline_max_) {
      // A sleeper would oversleep the new task. Every sleeper re-registers
      // its deadline when it sleeps again, so one notification suffices.
      sleep_deadline_max_ = kNoSleeper;
      cv_.notify_all();
    }
  }
  // A moved task already had the wheel's reference.
  if (wheel_ref_taken) task->Unref();
  return absl::OkStatus();
}

absl::Status Timer::Add(const TaskPtr<TimerTask>& task, absl::Duration delay) {
  if (task == nullptr) {
    return absl::InvalidArgumentError("timingwheel: Add() of a null task");
  }
  return AddInternal(task.get(), delay);
}

bool Timer::Cancel(TimerTask& task) {
  {
    internal::MutexLock lock(mu_);
    if (!task.pending()) return false;
    wheel_.Unlink(&task, {&urgent_, &flushing_, &staging_});
    --counters_.pending;
    ++counters_.cancelled;
  }
  task.Unref();  // The wheel's reference; the caller holds another.
  return true;
}

bool Timer::IsPending(const TimerTask& task) const {
  internal::MutexLock lock(mu_);
  return task.pending();
}

bool Timer::AdvanceClock(absl::Duration timeout) {
  internal::MutexLock lock(mu_);
  const int64_t deadline =
      internal::SaturatingAdd(NowRelative(), internal::DelayToNanos(timeout));
  for (;;) {
    if (shutdown_) return false;
    const int64_t now = NowRelative();
    const int64_t earliest = wheel_.EarliestKey();
    if (earliest <= now && !flusher_active_) {
      // One flusher at a time; it releases mu_ between chunks.
      flusher_active_ = true;
      FlushDue(now);
      flusher_active_ = false;
      cv_.notify_all();  // Callers waiting for this flush to end.
      return true;
    }
    if (now >= deadline) return false;
    // Sleep until the earliest key, or, while another thread flushes, until
    // that flush ends (it notifies).
    const int64_t sleep_until =
        flusher_active_ ? deadline : std::min(earliest, deadline);
    sleep_deadline_max_ = std::max(sleep_deadline_max_, sleep_until);
    const int64_t wake_at =
        sleep_until == internal::kMaxNanos
            ? kInfiniteFutureNanos
            // origin_ + sleep_until overflows only for a positive origin
            // (clock readings may be negative).
            : (origin_ > 0 && sleep_until > internal::kMaxNanos - origin_
                   ? kInfiniteFutureNanos
                   : origin_ + sleep_until);
    clock_->WaitUntil(cv_, lock.native(), wake_at);
    ++counters_.reaper_wakeups;
  }
}

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
    while (work < kFlushChunk && !internal::ListEmpty(queue)) {
      TimerTask* task = internal::TimingWheel::AsTask(queue->next);
      internal::Unlink(queue->next);
      const int64_t due = internal::TimingWheel::DueOf(task);
      if (due <= now) {
        expired.push_back(task);
      } else {
        ++counters_.tasks_cascaded;
        if (wheel_.InCurrentTick(due)) {
          internal::LinkBefore(&staging_, internal::TimingWheel::AsNode(task));
        } else {
          wheel_.Place(task);
        }
      }
      ++work;
      if (queue == &urgent_ && internal::ListEmpty(&urgent_))
        queue = &flushing_;
    }
    wheel_.MergeIntoDueList(&staging_);
    const bool more = !internal::ListEmpty(&urgent_) ||
                      !internal::ListEmpty(&flushing_) ||
                      wheel_.EarliestKey() <= now;
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
  // Counted in flight while the lock is held: a Shutdown() that follows
  // waits for them.
  in_flight_.fetch_add(count, std::memory_order_relaxed);
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
  std::vector<TimerTask*> batch;
  batch.reserve(kFlushChunk);
  batch.swap(expired);
  return batch;
}

void Timer::Dispatch(std::vector<TimerTask*> batch) {
  if (batch.empty()) return;
  // One executor callback per batch: per-task closures, allocations and
  // completion bookkeeping cost more than the callbacks themselves.
  executor_->Execute(
      [this, batch = std::move(batch)]() mutable { RunBatch(batch); });
}

void Timer::RunBatch(std::vector<TimerTask*>& batch) {
  {
    CallbackScope scope(this);
    for (TimerTask* task : batch) {
      try {
        task->Run();
      } catch (...) {
        callback_errors_.fetch_add(1, std::memory_order_relaxed);
        if (on_callback_error_) {
          try {
            on_callback_error_(std::current_exception());
          } catch (...) {
            // The hook's own failure has nowhere better to go.
          }
        }
      }
      task->Unref();  // The wheel's reference: may run the destructor.
    }
  }
  const int64_t count = static_cast<int64_t>(batch.size());
  std::lock_guard<std::mutex> lock(done_mu_);
  if (in_flight_.fetch_sub(count, std::memory_order_acq_rel) == count) {
    done_cv_.notify_all();
  }
}

std::vector<TaskPtr<TimerTask>> Timer::Shutdown() {
  std::vector<TaskPtr<TimerTask>> cancelled;
  {
    internal::MutexLock lock(mu_);
    if (!shutdown_) {
      shutdown_ = true;
      internal::ListNode all;
      internal::InitList(&all);
      wheel_.TakeAll(&all);
      internal::SpliceAll(&urgent_, &all);
      internal::SpliceAll(&flushing_, &all);
      internal::SpliceAll(&staging_, &all);
      while (!internal::ListEmpty(&all)) {
        internal::ListNode* node = all.next;
        internal::Unlink(node);
        // The wheel's reference passes to the caller.
        cancelled.push_back(
            TaskPtr<TimerTask>::Adopt(internal::TimingWheel::AsTask(node)));
      }
      counters_.pending -= static_cast<int64_t>(cancelled.size());
      counters_.cancelled += static_cast<int64_t>(cancelled.size());
    }
  }
  cv_.notify_all();
  if (current_callback_timer == this) return cancelled;

  std::lock_guard<std::mutex> stop(shutdown_mu_);
  if (reaper_.joinable()) reaper_.join();
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    done_cv_.wait(lock, [this] { return in_flight_.load() == 0; });
  }
  if (owned_executor_ != nullptr) owned_executor_->Shutdown();
  return cancelled;
}

TimerMetrics Timer::Metrics() const {
  TimerMetrics metrics;
  {
    internal::MutexLock lock(mu_);
    metrics = counters_;
    metrics.levels = wheel_.num_levels();
  }
  metrics.callback_errors = callback_errors_.load(std::memory_order_relaxed);
  return metrics;
}

int64_t Timer::NumPending() const {
  internal::MutexLock lock(mu_);
  return counters_.pending;
}

void Timer::ReaperLoop() {
  // Named so that tools (and the wake-up benchmark) can find it in
  // /proc/self/task/*/comm.
  pthread_setname_np(pthread_self(), "tw-reaper");
  for (;;) {
    AdvanceClock(absl::InfiniteDuration());
    internal::MutexLock lock(mu_);
    if (shutdown_) return;
  }
}

bool TimerHandle::Cancel() {
  if (task_ == nullptr) return false;
  return timer_->Cancel(*task_);
}

bool TimerHandle::pending() const {
  if (task_ == nullptr) return false;
  return timer_->IsPending(*task_);
}

}  // namespace timingwheel
