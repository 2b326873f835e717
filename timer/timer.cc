// Copyright 2026 The timingwheel Authors.
//
// The facade of Timer: Create() and its checks, the constructor and the
// destructor, Add() (the one place that places a task, AddLocked()),
// Cancel(), the counters (Metrics(), NumPending(), NextDueIn()) and the
// handle's methods. The rest of Timer is in one file per job (see
// timer_impl.h for the list).

#include "timer/timer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/macros.h"
#include "absl/strings/str_format.h"
#include "timer/internal/bucket.h"
#include "timer/internal/report_error.h"
#include "timer/internal/standby_executor.h"
#include "timer/internal/task_pool.h"
#include "timer/internal/task_state.h"
#include "timer/internal/test_hooks.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer_impl.h"

namespace timingwheel {
namespace internal {

thread_local const Timer* current_callback_timer = nullptr;
thread_local const Timer* inline_flusher = nullptr;

}  // namespace internal

namespace {

constexpr int64_t kMaxWheelSize = int64_t{1} << 20;

using internal::current_callback_timer;
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
    timer->reaper_ = std::thread([raw] { Reaper::ReaperLoop(*raw); });
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
                                [this] { Reaper::OnWatchdog(*this); })),
      executor_(options.executor != nullptr ? options.executor
                                            : owned_executor_.get()),
      run_inline_(options.executor == nullptr && options.start_reaper &&
                  clock_ == Clock::Real()),
      origin_(Clocks::ReadClock(*this)),
      max_pending_(options.max_pending),
      default_timeout_(options.default_timeout),
      on_callback_error_(options.on_callback_error),
      mu_(control_->mu),
      wheel_(tick_nanos, options.wheel_size),
      on_next_due_earlier_(options.on_next_due_earlier),
      use_inbox_(options.producer_inboxes && options.max_pending == 0 &&
                 !options.on_next_due_earlier) {
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

absl::Status Timer::AddInternal(TimerTask* task, absl::Duration delay,
                                bool wheel_ref_taken, bool may_buffer) {
  if (!wheel_ref_taken && !task->Counted())
    return Timer::Placement::NotCountedError(*task);
  const int64_t delay_nanos = internal::DelayToNanos(delay);
  const int64_t clock_now = Clocks::ClockRelative(*this);
  if (may_buffer && use_inbox_) {
    switch (Inboxes::TryBuffer(*this, task, clock_now, delay_nanos,
                               wheel_ref_taken)) {
      case Inboxes::Buffered::kYes:
        return absl::OkStatus();
      case Inboxes::Buffered::kRefused:
        return Timer::Placement::ShutdownError();
      case Inboxes::Buffered::kNo:
        break;
    }
  }
  bool drop_ref = false;
  bool earlier = false;
  absl::Status status;
  {
    internal::MutexLock lock(mu_);
    Inboxes::DrainMineLocked(*this);  // This thread's buffered adds go first.
    status = Placement::AddLocked(*this, task, clock_now, delay_nanos,
                                  wheel_ref_taken, drop_ref,
                                  /*moved=*/nullptr, &earlier);
  }
  if (drop_ref) task->Unref();  // Never the last: the caller holds one.
  if (earlier && on_next_due_earlier_) on_next_due_earlier_();
  return status;
}

absl::Status Timer::Placement::ShutdownError() {
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

absl::Status Timer::Placement::NotCountedError(const TimerTask& task) {
  return absl::InvalidArgumentError(
      task.Embedded()
          ? "timingwheel: Add() of an EmbeddedTimer: schedule it with "
            "EmbeddedTimer::Schedule()"
          : "timingwheel: Add() of a task not created with MakeTask() (a "
            "stack or member object, or a plain new): the timer would "
            "delete it");
}

absl::Status Timer::Placement::AddLocked(Timer& timer, TimerTask* task,
                                         int64_t base, int64_t delay_nanos,
                                         bool wheel_ref_taken, bool& drop_ref,
                                         bool* moved, bool* earlier) {
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
    if ((state & State::kInbox) != 0 && State::Owner(state) == timer.id_ &&
        !timer.shutdown_) {
      // In a producer inbox of this timer: its link is in use until a drain
      // takes it (after which it is pending, or idle if it was cancelled
      // there). Its producer may not have pushed it yet (a concurrent add
      // of the same task): the push needs no lock, so this ends. Checked
      // on every pass: a lock-free add may take an idle task between a
      // load here and the CAS below, which then fails and reloads.
      Inboxes::DrainInboxesLocked(*&timer);
      state = State::Load(task);
      if ((state & State::kInbox) != 0) std::this_thread::yield();
      continue;
    }
    const uint32_t owner = State::Owner(state);
    if (timer.shutdown_) {
      refused = Timer::Placement::ShutdownError();
      break;
    }
    if (owner != 0 && owner != timer.id_) {
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
    if (kind == kNew && timer.max_pending_ > 0 &&
        timer.counters_.pending >= timer.max_pending_) {
      refused = absl::ResourceExhaustedError(
          absl::StrFormat("timingwheel: %d %s pending, the limit (max_pending)",
                          timer.counters_.pending,
                          timer.counters_.pending == 1 ? "task" : "tasks"));
      break;
    }
    // A withdrawn run stays in its batch, which skips it (and drops the
    // batch's reference) once it sees kQueued cleared.
    const uint32_t desired =
        State::Make(timer.id_, (state & ~State::kQueued) | State::kPending);
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
    timer.wheel_.Unlink(task);
  } else {
    // The wheel's reference, until the task runs or is cancelled.
    if (!wheel_ref_taken && counted) task->Ref();
    wheel_ref_taken = false;
    ++timer.counters_.pending;
    if (kind == kWithdraw) --timer.counters_.expired;
  }
  if (moved != nullptr) *moved = kind != kNew;
  // Never before the wheel's time: an injected clock that stepped back
  // cannot make the task due earlier than the timer has already seen.
  task->due_nanos_ =
      internal::SaturatingAdd(std::max(base, timer.wheel_.time()), delay_nanos);
  // Lower bounds that may be a cancel-emptied bucket's key (not discarded
  // here: that is the sleepers' job), never below what a sleeper or
  // NextDueIn() saw, so comparing them tells whether this add is earlier.
  const int64_t earliest_before = timer.wheel_.KeyLowerBound();
  timer.wheel_.Place(task);
  const int64_t earliest_after = timer.wheel_.KeyLowerBound();
  if (earlier != nullptr && earliest_after < earliest_before) {
    *earlier = true;
  }
  ++timer.counters_.added;
  if (earliest_after < timer.sleep_deadline_max_)
    Reaper::NotifySleepersIfEarlierLocked(*&timer);
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

bool Timer::Cancel(TimerTask& task) {
  bool cancelled;
  bool drop_ref = false;
  bool revoked = false;
  const int buffered =
      use_inbox_ ? Timer::Inboxes::CancelBuffered(task, id_) : -1;
  if (buffered >= 0) {
    cancelled = revoked = buffered == 1;
  } else {
    internal::MutexLock lock(mu_);
    cancelled = Cancels::CancelLocked(*this, task, drop_ref, revoked);
  }
  if (revoked) {
    internal::RunAfterRevokeHook();
    // Out of the inbox first: then the inbox's reference is this call's.
    Timer::Inboxes::WaitUntilRevokedOut(control_, task);
    drop_ref = true;
  }
  if (cancelled) Timer::Cancels::NotifyCancelled(task);
  if (drop_ref) task.Unref();  // The wheel's; the caller holds another.
  return cancelled;
}

void Timer::Cancels::NotifyCancelled(TimerTask& task) {
  try {
    task.OnCancelled();
  } catch (...) {
    // Not to on_callback_error: a handle may cancel after its timer is gone.
    internal::ReportUnhandledError(std::current_exception(),
                                   "a timer task's OnCancelled()",
                                   "a try/catch inside OnCancelled()");
  }
}

bool Timer::Cancels::CancelLocked(Timer& timer, TimerTask& task, bool& drop_ref,
                                  bool& revoked) {
  uint32_t state = State::Load(&task);
  // A pending task leaves its list before its state leaves kPending: once
  // the word is idle, a lock-free add (TryBuffer) may take the task and
  // write its link at once. Only this lock's holder clears kPending, so the
  // loop below is sure to take the pending branch.
  const bool unlinked = State::Owner(state) == timer.id_ &&
                        (state & State::kInbox) == 0 &&
                        (state & State::kPending) != 0 && !timer.shutdown_;
  if (unlinked) timer.wheel_.Unlink(&task);
  for (;;) {
    if (State::Owner(state) != timer.id_) return false;  // Idle, or not ours.
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
    const bool pending = (state & State::kPending) != 0 && !timer.shutdown_;
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
    if (State::Cas(&task, state, State::Make(timer.id_, flags))) break;
    task.due_nanos_ = due;
  }
  if ((state & State::kPending) != 0) {
    if (!unlinked) timer.wheel_.Unlink(&task);
    --timer.counters_.pending;
    drop_ref = !task.Embedded();
  } else {
    if (task.Embedded() &&
        internal::TimingWheel::AsNode(&task)->prev != nullptr) {
      internal::Unlink(internal::TimingWheel::AsNode(&task));
    }
    // Taken back from its batch, which drops its reference when it gets
    // there (or the running thread, for a deferred run).
    --timer.counters_.expired;
  }
  ++timer.counters_.cancelled;
  return true;
}

bool Timer::Cancels::IsPendingLocked(const Timer& timer,
                                     const TimerTask& task) {
  const uint32_t state = State::Load(&task);
  if (State::Owner(state) != timer.id_) return false;
  if ((state & State::kInbox) != 0) return (state & State::kRevoked) == 0;
  return ((state & State::kPending) != 0 && !timer.shutdown_) ||
         (state & State::kQueued) != 0;
}

TimerMetrics Timer::Metrics() const {
  // Drains the inboxes (buffered tasks count from there): logically const.
  TimerMetrics metrics;
  {
    internal::MutexLock lock(mu_);
    Inboxes::DrainInboxesForReaderLocked(*this);
    metrics = counters_;
    metrics.levels = wheel_.num_levels();
  }
  metrics.callback_errors = callback_errors_.load(std::memory_order_relaxed);
  return metrics;
}

absl::Duration Timer::NextDueIn() {
  internal::MutexLock lock(mu_);
  Inboxes::DrainInboxesLocked(*this);
  const int64_t earliest = wheel_.EarliestKey();
  if (shutdown_ || earliest == internal::kMaxNanos) {
    return absl::InfiniteDuration();
  }
  const int64_t now = Clocks::NowRelative(*this);
  return earliest <= now ? absl::ZeroDuration()
                         : absl::Nanoseconds(earliest - now);
}

int64_t Timer::NumPending() const {
  internal::MutexLock lock(mu_);
  Inboxes::DrainInboxesForReaderLocked(*this);
  return counters_.pending;
}

// The handle's control block holds the timer's lock (mu_ is control_->mu),
// which the analysis cannot see through the pointer.
bool TimerHandle::Cancel() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return false;
  // Buffered in its timer's inbox: no lock (a handle's task is only ever
  // added to its own timer).
  const int buffered =
      Timer::Inboxes::CancelBuffered(*task_, control_->timer_id);
  bool cancelled = buffered == 1;
  bool drop_ref = false;
  bool revoked = buffered == 1;
  if (buffered < 0) {
    internal::MutexLock lock(control_->mu);
    if (control_->timer != nullptr) {
      cancelled = Timer::Cancels::CancelLocked(*control_->timer, *task_,
                                               drop_ref, revoked);
    }
  }
  if (revoked) {
    internal::RunAfterRevokeHook();
    // Released now, as a cancelled pending task is: out of the inbox first.
    Timer::Inboxes::WaitUntilRevokedOut(control_, *task_);
    drop_ref = true;
  }
  if (cancelled) Timer::Cancels::NotifyCancelled(*task_);
  if (drop_ref) task_->Unref();  // The wheel's; the handle holds another.
  return cancelled;
}

bool TimerHandle::pending() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (task_ == nullptr) return false;
  internal::MutexLock lock(control_->mu);
  return control_->timer != nullptr &&
         Timer::Cancels::IsPendingLocked(*control_->timer, *task_);
}

}  // namespace timingwheel
