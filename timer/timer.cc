// Copyright 2026 The timingwheel Authors.
//
// The facade of Timer: Create() and its checks, the constructor and the
// destructor, Add() (and Timer::Placement, the one place that places a
// task: AddLocked()) and the counters (Metrics(), NumPending(),
// NextDueIn()). The rest of Timer is in one file per job (see timer_impl.h
// for the list).

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
#include "timer/internal/standby_executor.h"
#include "timer/internal/task_pool.h"
#include "timer/internal/task_state.h"
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

// The settings `options` give the timer with id `id`.
internal::TimerSettings SettingsFor(const TimerOptions& options, uint32_t id) {
  Clock* const clock = options.clock != nullptr ? options.clock : Clock::Real();
  return internal::TimerSettings{
      id,
      clock,
      /*real_clock=*/clock == Clock::Real(),
      /*coarse_slack=*/options.coarse_clock ? clock->CoarseStalenessNanos() : 0,
      /*run_inline=*/options.executor == nullptr && options.start_reaper &&
          clock == Clock::Real(),
      options.max_pending,
      options.default_timeout,
      options.on_callback_error,
      options.on_next_due_earlier,
      /*use_inbox=*/options.producer_inboxes && options.max_pending == 0 &&
          !options.on_next_due_earlier,
  };
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
    : settings_(SettingsFor(options, id)),
      control_(new internal::TimerControl(this, id)),
      owned_executor_(options.executor != nullptr
                          ? nullptr
                          : std::make_unique<internal::StandbyExecutor>(
                                [this] { Reaper::OnWatchdog(*this); })),
      executor_(options.executor != nullptr ? options.executor
                                            : owned_executor_.get()),
      origin_(Clocks::ReadClock(*this)),
      mu_(control_->mu),
      wheel_(tick_nanos, options.wheel_size) {
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
  { in_flight_.WaitUntilNone(); }
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
  ReleaseTimerId(settings_.id);
  control_->Unref();
}

absl::Status Timer::AddInternal(TimerTask* task, absl::Duration delay,
                                bool wheel_ref_taken, bool may_buffer) {
  if (!wheel_ref_taken && !task->Counted()) {
    return Timer::Placement::NotCountedError(*task);
  }
  const int64_t delay_nanos = internal::DelayToNanos(delay);
  const int64_t clock_now = Clocks::ClockRelative(*this);
  if (may_buffer && settings_.use_inbox) {
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
  return Placement::AddWithLock(*this, task, clock_now, delay_nanos,
                                wheel_ref_taken);
}

absl::Status Timer::Placement::AddWithLock(Timer& timer, TimerTask* task,
                                           int64_t clock_now,
                                           int64_t delay_nanos,
                                           bool wheel_ref_taken) {
  bool drop_ref = false;
  bool earlier = false;
  absl::Status status;
  {
    internal::MutexLock lock(timer.mu_);
    // This thread's buffered adds go first.
    Inboxes::DrainMineLocked(timer);
    status = Placement::AddLocked(timer, task, clock_now, delay_nanos,
                                  wheel_ref_taken, drop_ref,
                                  /*moved=*/nullptr, &earlier);
  }
  if (drop_ref) task->Unref();  // Never the last: the caller holds one.
  if (earlier && timer.settings_.on_next_due_earlier) {
    timer.settings_.on_next_due_earlier();
  }
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
  if (settings_.default_timeout == absl::ZeroDuration()) {
    return NoDefaultTimeoutError();
  }
  return Add(task, settings_.default_timeout);
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
    if ((state & State::kInbox) != 0 &&
        State::Owner(state) == timer.settings_.id && !timer.shutdown_) {
      // In a producer inbox of this timer: its link is in use until a drain
      // takes it (after which it is pending, or idle if it was cancelled
      // there). Its producer may not have pushed it yet (a concurrent add
      // of the same task): the push needs no lock, so this ends. Checked
      // on every pass: a lock-free add may take an idle task between a
      // load here and the CAS below, which then fails and reloads.
      Inboxes::DrainInboxesLocked(timer);
      state = State::Load(task);
      if ((state & State::kInbox) != 0) std::this_thread::yield();
      continue;
    }
    const uint32_t owner = State::Owner(state);
    if (timer.shutdown_) {
      refused = Timer::Placement::ShutdownError();
      break;
    }
    if (owner != 0 && owner != timer.settings_.id) {
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
    if (kind == kNew && timer.settings_.max_pending > 0 &&
        timer.counters_.pending >= timer.settings_.max_pending) {
      refused = absl::ResourceExhaustedError(
          absl::StrFormat("timingwheel: %d %s pending, the limit (max_pending)",
                          timer.counters_.pending,
                          timer.counters_.pending == 1 ? "task" : "tasks"));
      break;
    }
    // A withdrawn run stays in its batch, which skips it (and drops the
    // batch's reference) once it sees kQueued cleared.
    const uint32_t desired = State::Make(
        timer.settings_.id, (state & ~State::kQueued) | State::kPending);
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
  if (earliest_after < timer.wake_.sleep_deadline_max) {
    Reaper::NotifySleepersIfEarlierLocked(timer);
  }
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

}  // namespace timingwheel
