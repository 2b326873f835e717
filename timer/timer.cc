// Copyright 2026 The timingwheel Authors.

#include "timer/timer.h"

#include <pthread.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>
#include <utility>

#include "absl/base/macros.h"
#include "absl/strings/str_format.h"
#include "timer/internal/bucket.h"
#include "timer/internal/report_error.h"
#include "timer/internal/standby_executor.h"
#include "timer/internal/task_pool.h"
#include "timer/internal/task_state.h"
#include "timer/internal/test_hooks.h"
#include "timer/internal/wheel_math.h"

namespace timingwheel {
namespace {

// Tasks a flush handles per lock hold; the lock is released in between so
// that adds and cancels never wait behind a large bucket.
constexpr size_t kFlushChunk = 512;

constexpr int64_t kMaxWheelSize = int64_t{1} << 20;

// The largest batch the reaper runs itself with the default executor (see
// Timer::Dispatch); larger ones go to the standby thread.
constexpr size_t kInlineBatchMax = 64;

// How much earlier than the next due instant a batch the reaper runs
// itself must be estimated to end (see RunInlineBatches): about a thread
// wake-up, what the watchdog's take-over costs when the estimate is short.
constexpr int64_t kInlineMargin = 100000;

// The longest batch run time that RunBatch() feeds into the reaper's
// estimate of a task's run time (longer ones count as this long).
constexpr int64_t kMaxRunSample = 1000000000;

// The timer whose callback the current thread is running, if any.
thread_local const Timer* current_callback_timer = nullptr;

// The timer whose reaper is flushing on the current thread, when it keeps
// the batches to run them itself (see Timer::Dispatch).
thread_local const Timer* inline_flusher = nullptr;

using State = internal::TaskState;

// Ends the process with a message naming a misuse that would otherwise
// deadlock or touch freed memory.
[[noreturn]] void Die(const char* message) {
  std::fprintf(stderr, "timingwheel: %s\n", message);
  std::fflush(stderr);
  std::abort();
}

// Timer ids for the tasks' state words: unique among live timers, reused
// after a timer is destroyed (when no task carries its id any more).
struct TimerIds {
  std::mutex mu;
  std::vector<uint32_t> free;
  uint32_t next = 1;
};

TimerIds& Ids() {
  static TimerIds* const ids = new TimerIds;  // Never destroyed.
  return *ids;
}

// Returns a free id, or 0 when every id is taken.
uint32_t AllocateTimerId() {
  TimerIds& ids = Ids();
  std::lock_guard<std::mutex> lock(ids.mu);
  if (!ids.free.empty()) {
    const uint32_t id = ids.free.back();
    ids.free.pop_back();
    return id;
  }
  if (ids.next > State::kMaxOwner) return 0;
  return ids.next++;
}

void ReleaseTimerId(uint32_t id) {
  TimerIds& ids = Ids();
  std::lock_guard<std::mutex> lock(ids.mu);
  ids.free.push_back(id);
}

}  // namespace

// Timer::Batch is the executor callback for one batch of expired tasks. Run,
// it runs them; destroyed without running (an executor that drops work), it
// releases them: each task still queued is cancelled.
class Timer::Batch {
 public:
  Batch(Timer* timer, std::vector<TimerTask*> tasks)
      : timer_(timer), tasks_(std::move(tasks)) {}
  Batch(Batch&& other) noexcept
      : timer_(std::exchange(other.timer_, nullptr)),
        tasks_(std::move(other.tasks_)) {}
  Batch& operator=(Batch&&) = delete;
  ~Batch() {
    if (timer_ != nullptr) timer_->ReleaseBatch(tasks_);
  }

  void operator()() && { std::exchange(timer_, nullptr)->RunBatch(tasks_); }

 private:
  Timer* timer_;  // Null once run or moved from.
  std::vector<TimerTask*> tasks_;
};

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
  if (options.default_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "timingwheel: default_timeout must be >= 0 (0: none), got %s",
        absl::FormatDuration(options.default_timeout)));
  }
  if (options.expected_pending < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "timingwheel: expected_pending must be >= 0 (0: none), got %d",
        options.expected_pending));
  }
  if (options.expected_pending > 0) {
    // Room for tasks whose callback captures nothing (40 bytes) or up to 8
    // bytes (48).
    constexpr int64_t kMinTaskBytes = 40;
    constexpr int64_t kTaskBytes = 48;
    try {
      if (options.expected_pending > INT64_MAX / kTaskBytes) {
        throw std::bad_alloc();
      }
      internal::TaskPool::Reserve(
          kMinTaskBytes, kTaskBytes,
          static_cast<size_t>(options.expected_pending));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "timingwheel: cannot reserve room for %d tasks (expected_pending)",
          options.expected_pending));
    }
  }
  const uint32_t id = AllocateTimerId();
  if (id == 0) {
    return absl::ResourceExhaustedError(
        "timingwheel: too many timers alive at once");
  }
  std::unique_ptr<Timer> timer(new Timer(options, tick_nanos, id));
  if (options.start_reaper) {
    Timer* raw = timer.get();
    timer->reaper_ = std::thread([raw] { raw->ReaperLoop(); });
  }
  return timer;
}

Timer::Timer(const TimerOptions& options, int64_t tick_nanos, uint32_t id)
    : id_(id),
      control_(new internal::TimerControl(this, id)),
      clock_(options.clock != nullptr ? options.clock : Clock::Real()),
      real_clock_(clock_ == Clock::Real()),
      coarse_slack_(options.coarse_clock ? clock_->CoarseStalenessNanos() : 0),
      owned_executor_(options.executor != nullptr
                          ? nullptr
                          : std::make_unique<internal::StandbyExecutor>(
                                [this] { OnWatchdog(); })),
      executor_(options.executor != nullptr ? options.executor
                                            : owned_executor_.get()),
      run_inline_(options.executor == nullptr && options.start_reaper &&
                  clock_ == Clock::Real()),
      origin_(ReadClock()),
      max_pending_(options.max_pending),
      default_timeout_(options.default_timeout),
      on_callback_error_(options.on_callback_error),
      mu_(control_->mu),
      wheel_(tick_nanos, options.wheel_size),
      on_next_due_earlier_(options.on_next_due_earlier),
      use_inbox_(options.producer_inboxes && options.max_pending == 0 &&
                 !options.on_next_due_earlier) {
  internal::InitList(&urgent_);
  internal::InitList(&flushing_);
  internal::InitList(&staging_);
  internal::InitList(&embedded_ready_);
}

Timer::~Timer() {
  if (current_callback_timer == this) {
    Die("a Timer was destroyed from one of its own callbacks; it would wait "
        "for that callback to finish forever. Destroy it from another "
        "thread (Shutdown() from a callback is allowed).");
  }
  Shutdown();
  // Shutdown() from a callback could not wait; the destructor, which does
  // not run inside a callback, finishes the job.
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    done_cv_.wait(lock, [this] { return in_flight_.load() == 0; });
  }
  if (reaper_.joinable()) reaper_.join();
  {
    // Handles that outlive the timer find it gone.
    internal::MutexLock lock(mu_);
    // Every slot of an embedded timer was run or released above.
    ABSL_ASSERT(internal::ListEmpty(&embedded_ready_));
    // Shutdown() drained the inboxes last and closed them.
    ABSL_ASSERT(!inbox_.AnyPushed());
    control_->timer = nullptr;
  }
  // No task carries the id any more: every one was run, cancelled or
  // released above.
  ReleaseTimerId(id_);
  control_->Unref();
}

int64_t Timer::ReadClock() const {
  return real_clock_ ? internal::ReadMonotonic() : clock_->NowNanos();
}

int64_t Timer::ClockRelative() {
  if (coarse_slack_ > 0) {
    // The coarse reading lags the true time by at most coarse_slack_:
    // rounded up by that bound, a due time is never early.
    const int64_t coarse = real_clock_ ? internal::ReadMonotonicCoarse()
                                       : clock_->CoarseNowNanos();
    return std::min(internal::SaturatingAdd(Relative(coarse), coarse_slack_),
                    internal::kMaxNanos - 1);
  }
  return Relative(ReadClock());
}

int64_t Timer::Relative(int64_t now) const {
  if (now <= origin_) return 0;  // A clock reading before the origin.
  // The difference fits in uint64 (both are int64 and now > origin_) but
  // not always in int64: a clock spanning more than 2^63 ns (a negative
  // origin, a positive reading) saturates, one short of kMaxNanos, the key
  // of an empty delay queue and the due time of a task that never runs.
  const uint64_t elapsed =
      static_cast<uint64_t>(now) - static_cast<uint64_t>(origin_);
  constexpr int64_t kLatest = internal::kMaxNanos - 1;
  return elapsed > static_cast<uint64_t>(kLatest)
             ? kLatest
             : static_cast<int64_t>(elapsed);
}

int64_t Timer::NowRelative() {
  return std::max(Relative(ReadClock()), wheel_.time());
}

absl::Status Timer::AddInternal(TimerTask* task, absl::Duration delay,
                                bool wheel_ref_taken, bool may_buffer) {
  if (!wheel_ref_taken && !task->Counted()) return NotCountedError(*task);
  const int64_t delay_nanos = internal::DelayToNanos(delay);
  const int64_t clock_now = ClockRelative();
  if (may_buffer && use_inbox_) {
    switch (TryBuffer(task, clock_now, delay_nanos, wheel_ref_taken)) {
      case Buffered::kYes:
        return absl::OkStatus();
      case Buffered::kRefused:
        return ShutdownError();
      case Buffered::kNo:
        break;
    }
  }
  bool drop_ref = false;
  bool earlier = false;
  absl::Status status;
  {
    internal::MutexLock lock(mu_);
    DrainMineLocked();  // This thread's buffered adds go first.
    status = AddLocked(task, clock_now, delay_nanos, wheel_ref_taken, drop_ref,
                       /*moved=*/nullptr, &earlier);
  }
  if (drop_ref) task->Unref();  // Never the last: the caller holds one.
  if (earlier && on_next_due_earlier_) on_next_due_earlier_();
  return status;
}

absl::Status Timer::ShutdownError() {
  return absl::FailedPreconditionError(
      "timingwheel: cannot add a task after Timer::Shutdown()");
}

absl::Status Timer::NoDefaultTimeoutError() {
  return absl::FailedPreconditionError(
      "timingwheel: Schedule()/Add() without a delay needs "
      "TimerOptions::default_timeout, which this timer does not set");
}

absl::Status Timer::Add(const TaskPtr<TimerTask>& task) {
  if (default_timeout_ == absl::ZeroDuration()) return NoDefaultTimeoutError();
  return Add(task, default_timeout_);
}

absl::Status Timer::NotCountedError(const TimerTask& task) {
  return absl::InvalidArgumentError(
      task.Embedded()
          ? "timingwheel: Add() of an EmbeddedTimer: schedule it with "
            "EmbeddedTimer::Schedule()"
          : "timingwheel: Add() of a task not created with MakeTask() (a "
            "stack or member object, or a plain new): the timer would "
            "delete it");
}

absl::Status Timer::AddLocked(TimerTask* task, int64_t base,
                              int64_t delay_nanos, bool wheel_ref_taken,
                              bool& drop_ref, bool* moved, bool* earlier) {
  // An embedded timer (EmbeddedTimer::Schedule() passes wheel_ref_taken)
  // has no reference count: the wheel holds it by its owner's promise, and
  // nothing here may Ref() or Unref() it.
  const bool counted = !task->Embedded();
  absl::Status refused;
  // How the task enters the wheel: moved within it, taken back from a
  // batch handed to the executor (Run() not started), or added anew.
  enum { kMove, kWithdraw, kNew } kind = kNew;
  uint32_t state = State::Load(task);
  for (;;) {
    if ((state & State::kInbox) != 0 && State::Owner(state) == id_ &&
        !shutdown_) {
      // In a producer inbox of this timer: its link is in use until a drain
      // takes it (after which it is pending, or idle if it was cancelled
      // there). Its producer may not have pushed it yet (a concurrent add
      // of the same task): the push needs no lock, so this ends. Checked
      // on every pass: a lock-free add may take an idle task between a
      // load here and the CAS below, which then fails and reloads.
      DrainInboxesLocked();
      state = State::Load(task);
      if ((state & State::kInbox) != 0) std::this_thread::yield();
      continue;
    }
    const uint32_t owner = State::Owner(state);
    if (shutdown_) {
      refused = ShutdownError();
      break;
    }
    if (owner != 0 && owner != id_) {
      refused = absl::FailedPreconditionError(
          "timingwheel: the task belongs to another Timer (pending, queued "
          "or running there); a task is in one timer at a time");
      break;
    }
    if ((state & State::kStopped) != 0) {
      refused = absl::CancelledError(
          "timingwheel: the task was cancelled while its Run() runs; it "
          "can be added again once Run() has returned");
      break;
    }
    if ((state & State::kPending) != 0) {
      kind = kMove;  // kPending changes only under mu_.
      break;
    }
    kind = (state & State::kQueued) != 0 ? kWithdraw : kNew;
    if (kind == kNew && max_pending_ > 0 && counters_.pending >= max_pending_) {
      refused = absl::ResourceExhaustedError(absl::StrFormat(
          "timingwheel: %d %s pending, the limit (max_pending)",
          counters_.pending, counters_.pending == 1 ? "task" : "tasks"));
      break;
    }
    // A withdrawn run stays in its batch, which skips it (and drops the
    // batch's reference) once it sees kQueued cleared.
    const uint32_t desired =
        State::Make(id_, (state & ~State::kQueued) | State::kPending);
    if (State::Cas(task, state, desired)) break;
  }
  if (!refused.ok()) {
    drop_ref = wheel_ref_taken && counted;
    return refused;
  }
  if (kind == kWithdraw && !counted &&
      internal::TimingWheel::AsNode(task)->prev != nullptr) {
    // Embedded, queued: on embedded_ready_ (not yet claimed by a slot).
    internal::Unlink(internal::TimingWheel::AsNode(task));
  }
  if (kind == kMove) {
    wheel_.Unlink(task, {&urgent_, &flushing_, &staging_});
  } else {
    // The wheel's reference, until the task runs or is cancelled.
    if (!wheel_ref_taken && counted) task->Ref();
    wheel_ref_taken = false;
    ++counters_.pending;
    if (kind == kWithdraw) --counters_.expired;
  }
  if (moved != nullptr) *moved = kind != kNew;
  // Never before the wheel's time: an injected clock that stepped back
  // cannot make the task due earlier than the timer has already seen.
  task->due_nanos_ =
      internal::SaturatingAdd(std::max(base, wheel_.time()), delay_nanos);
  // Lower bounds that may be a cancel-emptied bucket's key (not discarded
  // here: that is the sleepers' job), never below what a sleeper or
  // NextDueIn() saw, so comparing them tells whether this add is earlier.
  const int64_t earliest_before = wheel_.KeyLowerBound();
  wheel_.Place(task);
  const int64_t earliest_after = wheel_.KeyLowerBound();
  if (earlier != nullptr && earliest_after < earliest_before) {
    *earlier = true;
  }
  ++counters_.added;
  if (earliest_after < sleep_deadline_max_) NotifySleepersIfEarlierLocked();
  // A moved task already had the wheel's reference.
  drop_ref = wheel_ref_taken && counted;
  return absl::OkStatus();
}

absl::Status Timer::Add(const TaskPtr<TimerTask>& task, absl::Duration delay) {
  if (task == nullptr) {
    return absl::InvalidArgumentError("timingwheel: Add() of a null task");
  }
  return AddInternal(task.get(), delay, /*wheel_ref_taken=*/false,
                     /*may_buffer=*/true);
}

void Timer::NotifySleepersIfEarlierLocked() {
  if (wheel_.KeyLowerBound() >= sleep_deadline_max_) return;
  // A sleeper would oversleep the new task. Every sleeper re-registers
  // its deadline when it sleeps again, so one notification suffices.
  SetSleepDeadlineMaxLocked(kNoSleeper);
  cv_.notify_all();
  // The reaper runs callbacks: its standby must wake for this one.
  if (watchdog_active_) ArmWatchdogLocked(wheel_.EarliestKey(), false);
}

bool Timer::Cancel(TimerTask& task) {
  bool cancelled;
  bool drop_ref = false;
  bool revoked = false;
  const int buffered = use_inbox_ ? CancelBuffered(task, id_) : -1;
  if (buffered >= 0) {
    cancelled = revoked = buffered == 1;
  } else {
    internal::MutexLock lock(mu_);
    cancelled = CancelLocked(task, drop_ref, revoked);
  }
  if (revoked) {
    internal::RunAfterRevokeHook();
    // Out of the inbox first: then the inbox's reference is this call's.
    WaitUntilRevokedOut(control_, task);
    drop_ref = true;
  }
  if (cancelled) NotifyCancelled(task);
  if (drop_ref) task.Unref();  // The wheel's; the caller holds another.
  return cancelled;
}

void Timer::NotifyCancelled(TimerTask& task) {
  try {
    task.OnCancelled();
  } catch (...) {
    // Not to on_callback_error: a handle may cancel after its timer is gone.
    internal::ReportUnhandledError(std::current_exception(),
                                   "a timer task's OnCancelled()",
                                   "a try/catch inside OnCancelled()");
  }
}

bool Timer::CancelLocked(TimerTask& task, bool& drop_ref, bool& revoked) {
  uint32_t state = State::Load(&task);
  // A pending task leaves its list before its state leaves kPending: once
  // the word is idle, a lock-free add (TryBuffer) may take the task and
  // write its link at once. Only this lock's holder clears kPending, so the
  // loop below is sure to take the pending branch.
  const bool unlinked = State::Owner(state) == id_ &&
                        (state & State::kInbox) == 0 &&
                        (state & State::kPending) != 0 && !shutdown_;
  if (unlinked) wheel_.Unlink(&task, {&urgent_, &flushing_, &staging_});
  for (;;) {
    if (State::Owner(state) != id_) return false;  // Idle, or not ours.
    if ((state & State::kInbox) != 0) {
      // Buffered: the drain takes it out (and counts it cancelled); the
      // caller releases it.
      if ((state & State::kRevoked) != 0) return false;
      if (State::Cas(&task, state, state | State::kRevoked)) {
        revoked = true;
        return true;
      }
      continue;
    }
    // A pending task after Shutdown() is on Shutdown()'s list: swept.
    const bool pending = (state & State::kPending) != 0 && !shutdown_;
    const bool queued = (state & State::kQueued) != 0;
    const bool running = (state & State::kRunning) != 0;
    if (!pending && !queued) {
      if (!running || (state & State::kStopped) != 0) return false;
      // Running, nothing waiting: stop re-adds until Run() returns.
      if (State::Cas(&task, state, state | State::kStopped)) return false;
      continue;
    }
    uint32_t flags = state & ~(State::kPending | State::kQueued);
    if (running) flags |= State::kStopped;
    // Before the word may go idle (a lock-free add may then write it).
    const int64_t due = task.due_nanos_;
    task.due_nanos_ = State::kCancelledDue;
    if (State::Cas(&task, state, State::Make(id_, flags))) break;
    task.due_nanos_ = due;
  }
  if ((state & State::kPending) != 0) {
    if (!unlinked) wheel_.Unlink(&task, {&urgent_, &flushing_, &staging_});
    --counters_.pending;
    drop_ref = !task.Embedded();
  } else {
    if (task.Embedded() &&
        internal::TimingWheel::AsNode(&task)->prev != nullptr) {
      internal::Unlink(internal::TimingWheel::AsNode(&task));
    }
    // Taken back from its batch, which drops its reference when it gets
    // there (or the running thread, for a deferred run).
    --counters_.expired;
  }
  ++counters_.cancelled;
  return true;
}

bool Timer::IsPendingLocked(const TimerTask& task) const {
  const uint32_t state = State::Load(&task);
  if (State::Owner(state) != id_) return false;
  if ((state & State::kInbox) != 0) return (state & State::kRevoked) == 0;
  return ((state & State::kPending) != 0 && !shutdown_) ||
         (state & State::kQueued) != 0;
}

bool Timer::AdvanceClock(absl::Duration timeout) {
  internal::MutexLock lock(mu_);
  const int64_t deadline =
      internal::SaturatingAdd(NowRelative(), internal::DelayToNanos(timeout));
  for (;;) {
    if (shutdown_) return false;
    DrainInboxesLocked();  // At every wake-up: the wheel's view first.
    const int64_t now = NowRelative();
    const int64_t earliest = wheel_.EarliestKey();
    if (earliest <= now && !flusher_active_) {
      // One flusher at a time; it releases mu_ between chunks.
      flusher_active_ = true;
      FlushDue(now);
      flusher_active_ = false;
      if (use_inbox_) inbox_.set_time_hint(wheel_.time());
      cv_.notify_all();  // Callers waiting for this flush to end.
      return true;
    }
    if (now >= deadline) return false;
    // Sleep until the earliest key, or, while another thread flushes, until
    // that flush ends (it notifies).
    const int64_t sleep_until =
        flusher_active_ ? deadline : std::min(earliest, deadline);
    if (SetSleepDeadlineMaxLocked(std::max(sleep_deadline_max_, sleep_until)) &&
        inbox_.AnyPushed()) {
      // The floor rose: a task buffered meanwhile may be due before it
      // (its producer checked the lower floor). Drain, and go again.
      continue;
    }
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
    uint32_t state = State::Load(task);
    while (
        !State::Cas(task, state, (state & ~State::kPending) | State::kQueued)) {
    }
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

void Timer::InvokeRun(TimerTask* task) {
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
    } else {
      internal::ReportUnhandledError(std::current_exception(),
                                     "a timer callback",
                                     "TimerOptions::on_callback_error");
    }
  }
}

int64_t Timer::RunClaimed(TimerTask* task) {
  int64_t dropped = 0;
  bool deferred_run = false;  // Whether this run is a deferred one.
  for (;;) {
    InvokeRun(task);
    uint32_t state = State::Load(task);
    bool again;
    bool drop_deferred;
    for (;;) {
      uint32_t desired;
      again = (state & State::kDeferred) != 0 && (state & State::kQueued) != 0;
      drop_deferred = !again && (state & State::kDeferred) != 0;
      if (again) {
        // A batch left a run to this thread: run again, still kRunning.
        desired = state & ~(State::kDeferred | State::kQueued);
      } else {
        desired = State::Make(
            State::Owner(state),
            state & ~(State::kRunning | State::kDeferred | State::kStopped));
      }
      if (State::Cas(task, state, desired)) break;
    }
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

void Timer::RunBatch(std::vector<TimerTask*>& batch) {
  int64_t released = 0;
  // Timed for RunInlineBatches()'s estimate, on either thread. Read now:
  // the batch's in-flight count keeps the timer alive until its tasks are
  // released, and another thread may release some of them (a deferred run).
  const bool timed = run_inline_;
  const int64_t started = timed ? internal::ReadMonotonic() : 0;
  {
    CallbackScope scope(this);
    for (size_t i = 0; i < batch.size(); ++i) {
      TimerTask* task = batch[i];
      // A few tasks ahead (its state word is written, its vtable read).
      constexpr size_t kAhead = 4;
      if (i + kAhead < batch.size() && batch[i + kAhead] != nullptr) {
        __builtin_prefetch(batch[i + kAhead], 1);
      }
      if (task == nullptr) {  // A slot for an embedded timer.
        RunEmbeddedSlot();
        ++released;
        continue;
      }
      uint32_t state = State::Load(task);
      bool run = false;
      bool handed_on = false;
      for (;;) {
        // Cancelled or moved after it was handed over: skip it.
        if ((state & State::kQueued) == 0) break;
        if ((state & State::kRunning) != 0) {
          // Running on another thread (or up this one's stack): never
          // concurrently with itself. That thread runs it again when its
          // Run() returns, with this batch's reference; if it already owes
          // a run, this reference is surplus.
          if ((state & State::kDeferred) != 0) break;
          if (State::Cas(task, state, state | State::kDeferred)) {
            handed_on = true;
            break;
          }
          continue;
        }
        if (State::Cas(task, state,
                       (state & ~State::kQueued) | State::kRunning)) {
          run = true;
          break;
        }
      }
      if (handed_on) continue;
      if (run) released += RunClaimed(task);
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
    const int64_t old = run_ns_per_task_.load(std::memory_order_relaxed);
    run_ns_per_task_.store(old + (per_task - old) / 8,
                           std::memory_order_relaxed);
  }
  // Last: once in_flight_ reaches 0, the timer may be destroyed.
  FinishInFlight(released);
}

void Timer::ReleaseBatch(std::vector<TimerTask*>& batch) {
  std::vector<TimerTask*> cancelled;  // Counted tasks: told after unlocking.
  {
    internal::MutexLock lock(mu_);
    for (TimerTask* task : batch) {
      if (task == nullptr) {
        // A slot for an embedded timer: the front one is dropped (any one
        // would do; each slot stands for one of them). Touched under the
        // lock only: its owner may destroy it once the lock is released.
        if (internal::ListEmpty(&embedded_ready_)) continue;
        task = internal::TimingWheel::AsTask(embedded_ready_.next);
        internal::Unlink(embedded_ready_.next);
      }
      uint32_t state = State::Load(task);
      while ((state & State::kQueued) != 0) {
        const int64_t due = task->due_nanos_;
        task->due_nanos_ = State::kCancelledDue;
        if (State::Cas(
                task, state,
                State::Make(State::Owner(state), state & ~State::kQueued))) {
          --counters_.expired;
          ++counters_.cancelled;
          if (!task->Embedded()) cancelled.push_back(task);
          break;
        }
        task->due_nanos_ = due;
      }
    }
  }
  // The batch still holds their references (dropped below).
  for (TimerTask* task : cancelled) NotifyCancelled(*task);
  for (TimerTask* task : batch) {
    if (task != nullptr) task->Unref();  // Null: an embedded timer's slot.
  }
  FinishInFlight(static_cast<int64_t>(batch.size()));
}

void Timer::FinishInFlight(int64_t count) {
  if (count == 0) return;
  std::lock_guard<std::mutex> lock(done_mu_);
  if (in_flight_.fetch_sub(count, std::memory_order_acq_rel) == count) {
    done_cv_.notify_all();
  }
}

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
      PublishFloorLocked();
      DrainInboxesLocked();
      shutdown_ = true;
      // O(buckets) under the lock: the tasks are walked after it.
      wheel_.TakeAll(chains);
      for (internal::ListNode* list : {&urgent_, &flushing_, &staging_}) {
        if (internal::ListNode* chain = internal::DetachChain(list)) {
          chains.push_back(chain);
        }
      }
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
      uint32_t state = State::Load(task);
      while (!State::Cas(
          task, state,
          State::Make(State::Owner(state), state & ~State::kPending))) {
      }
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
    NotifyEmbeddedWaiters();
  }
  ABSL_ASSERT(static_cast<int64_t>(cancelled.size()) == count);
  for (const TaskPtr<TimerTask>& task : cancelled) NotifyCancelled(*task);
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
  // Drains the inboxes (buffered tasks count from there): logically const.
  TimerMetrics metrics;
  {
    internal::MutexLock lock(mu_);
    DrainInboxesForReaderLocked();
    metrics = counters_;
    metrics.levels = wheel_.num_levels();
  }
  metrics.callback_errors = callback_errors_.load(std::memory_order_relaxed);
  return metrics;
}

absl::Duration Timer::NextDueIn() {
  internal::MutexLock lock(mu_);
  DrainInboxesLocked();
  const int64_t earliest = wheel_.EarliestKey();
  if (shutdown_ || earliest == internal::kMaxNanos) {
    return absl::InfiniteDuration();
  }
  const int64_t now = NowRelative();
  return earliest <= now ? absl::ZeroDuration()
                         : absl::Nanoseconds(earliest - now);
}

int64_t Timer::NumPending() const {
  internal::MutexLock lock(mu_);
  DrainInboxesForReaderLocked();
  return counters_.pending;
}

void Timer::ReaperLoop() {
  // Named so that tools (and the wake-up benchmark) can find it in
  // /proc/self/task/*/comm.
  pthread_setname_np(pthread_self(), "tw-reaper");
  // The kernel lets a thread's timed sleeps end up to its timer slack late
  // (50 us by default) to batch wake-ups; the reaper's sleep is a task's
  // deadline, so it asks for none.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  for (;;) {
    if (run_inline_) inline_flusher = this;
    AdvanceClock(absl::InfiniteDuration());
    inline_flusher = nullptr;
    inline_handed_off_ = false;
    // After the flush (flusher_active_ is false again and mu_ is free), so
    // that the standby can take over flushing while these run.
    if (!inline_batches_.empty()) RunInlineBatches();
    internal::MutexLock lock(mu_);
    if (shutdown_) return;
  }
}

void Timer::RunInlineBatches() {
  std::vector<std::vector<TimerTask*>> batches;
  batches.swap(inline_batches_);
  size_t tasks = 0;
  for (const std::vector<TimerTask*>& batch : batches) tasks += batch.size();
  const int64_t estimate = static_cast<int64_t>(tasks) *
                           run_ns_per_task_.load(std::memory_order_relaxed);
  bool hand_off;
  {
    internal::MutexLock lock(mu_);
    // Buffered tasks first: the decision below counts them.
    DrainInboxesLocked();
    // Run here only when nothing else comes due before these would have
    // run (the estimate): otherwise the next instant would wait for the
    // watchdog, a wake-up later, and the flush and the callbacks would
    // share one thread. The standby runs them at once instead, and this
    // thread stays free to flush the next instant on time.
    const int64_t next = wheel_.EarliestKey();
    hand_off =
        next != internal::kMaxNanos &&
        next - NowRelative() < std::max<int64_t>(estimate, 0) + kInlineMargin;
    if (!hand_off) {
      watchdog_active_ = true;
      ArmWatchdogLocked(next, /*force=*/true);
      // The inbox floor is closed while the watchdog is armed (see
      // PublishFloorLocked): what was buffered since the drain above goes
      // in the wheel now, and re-arms the watchdog if it is due earlier.
      DrainInboxesLocked();
    }
  }
  if (hand_off) {
    for (std::vector<TimerTask*>& batch : batches) {
      executor_->Execute(Batch(this, std::move(batch)));
    }
    return;
  }
  for (std::vector<TimerTask*>& batch : batches) RunBatch(batch);
  {
    // Under the lock: an Add() re-arming meanwhile is not undone later.
    internal::MutexLock lock(mu_);
    watchdog_active_ = false;
    PublishFloorLocked();
    owned_executor_->Disarm();
  }
}

void Timer::ArmWatchdogLocked(int64_t key, bool force) {
  if (!force && key >= watchdog_deadline_) return;
  watchdog_deadline_ = key;
  // An Add() due before it notifies (AddLocked), and re-arms.
  SetSleepDeadlineMaxLocked(std::max(sleep_deadline_max_, key));
  if (shutdown_ || key == internal::kMaxNanos ||
      (origin_ > 0 && key > internal::kMaxNanos - origin_)) {
    owned_executor_->Disarm();
    return;
  }
  owned_executor_->ArmAt(origin_ + key);
}

void Timer::OnWatchdog() {
  // The reaper is inside callbacks at a due instant (or just left them):
  // flush what is due; the batches go to this thread's queue, which it runs
  // next.
  AdvanceClock(absl::ZeroDuration());
  internal::MutexLock lock(mu_);
  if (watchdog_active_) ArmWatchdogLocked(wheel_.EarliestKey(), true);
}

// The handle's control block holds the timer's lock (mu_ is control_->mu),
// which the analysis cannot see through the pointer.
bool TimerHandle::Cancel() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return false;
  // Buffered in its timer's inbox: no lock (a handle's task is only ever
  // added to its own timer).
  const int buffered = Timer::CancelBuffered(*task_, control_->timer_id);
  bool cancelled = buffered == 1;
  bool drop_ref = false;
  bool revoked = buffered == 1;
  if (buffered < 0) {
    internal::MutexLock lock(control_->mu);
    if (control_->timer != nullptr) {
      cancelled = control_->timer->CancelLocked(*task_, drop_ref, revoked);
    }
  }
  if (revoked) {
    internal::RunAfterRevokeHook();
    // Released now, as a cancelled pending task is: out of the inbox first.
    Timer::WaitUntilRevokedOut(control_, *task_);
    drop_ref = true;
  }
  if (cancelled) Timer::NotifyCancelled(*task_);
  if (drop_ref) task_->Unref();  // The wheel's; the handle holds another.
  return cancelled;
}

bool TimerHandle::pending() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return false;
  internal::MutexLock lock(control_->mu);
  return control_->timer != nullptr && control_->timer->IsPendingLocked(*task_);
}

}  // namespace timingwheel
