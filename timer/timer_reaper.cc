// Copyright 2026 The timingwheel Authors.
//
// The reaper of Timer and how the timer sleeps and wakes: ReaperLoop() (the
// reaper thread's body), AdvanceClock() (wait until something is due, then
// flush it), NotifySleepersIfEarlierLocked() (wake a sleeper an add would
// make oversleep), RunInlineBatches() (the reaper running small batches
// itself with the default executor) and the watchdog that takes over when
// such a run lasts past the next due instant (ArmWatchdogLocked(),
// OnWatchdog()). AdvanceClock() may be called from any thread; the others
// run on the reaper, the standby thread, or under the lock as each says.

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "timer/internal/standby_executor.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

namespace {

// How much earlier than the next due instant a batch the reaper runs
// itself must be estimated to end (see RunInlineBatches): about a thread
// wake-up, what the watchdog's take-over costs when the estimate is short.
constexpr int64_t kInlineMargin = 100000;

}  // namespace

using internal::inline_flusher;

void Timer::Reaper::ReaperLoop(Timer& timer) {
  // Named so that tools (and the wake-up benchmark) can find it in
  // /proc/self/task/*/comm.
  pthread_setname_np(pthread_self(), "tw-reaper");
  for (;;) {
    if (timer.settings_.run_inline) inline_flusher = &timer;
    timer.AdvanceClock(absl::InfiniteDuration());
    inline_flusher = nullptr;
    timer.inline_.handed_off = false;
    // After the flush (wake_.flusher_active is false again and mu_ is free), so
    // that the standby can take over flushing while these run.
    if (!timer.inline_.batches.empty()) Reaper::RunInlineBatches(timer);
    internal::MutexLock lock(timer.mu_);
    if (timer.shutdown_) return;
  }
}

bool Timer::AdvanceClock(absl::Duration timeout) {
  internal::MutexLock lock(mu_);
  const int64_t deadline = internal::SaturatingAdd(
      Clocks::NowRelative(*this), internal::DelayToNanos(timeout));
  for (;;) {
    if (shutdown_) return false;
    Inboxes::DrainInboxesLocked(
        *this);  // At every wake-up: the wheel's view first.
    const int64_t now = Clocks::NowRelative(*this);
    const int64_t earliest = wheel_.EarliestKey();
    if (earliest <= now && !wake_.flusher_active) {
      // One flusher at a time; it releases mu_ between chunks.
      wake_.flusher_active = true;
      Flusher::FlushDue(*this, now);
      wake_.flusher_active = false;
      if (settings_.use_inbox) inbox_.set_time_hint(wheel_.time());
      cv_.notify_all();  // Callers waiting for this flush to end.
      return true;
    }
    if (now >= deadline) return false;
    // Sleep until the earliest key, or, while another thread flushes, until
    // that flush ends (it notifies).
    const int64_t sleep_until =
        wake_.flusher_active ? deadline : std::min(earliest, deadline);
    if (Inboxes::SetSleepDeadlineMaxLocked(
            *this, std::max(wake_.sleep_deadline_max, sleep_until)) &&
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
    settings_.clock->WaitUntil(cv_, lock.native(), wake_at);
    ++counters_.reaper_wakeups;
  }
}

void Timer::Reaper::NotifySleepersIfEarlierLocked(Timer& timer) {
  if (timer.wheel_.KeyLowerBound() >= timer.wake_.sleep_deadline_max) return;
  // A sleeper would oversleep the new task. Every sleeper re-registers
  // its deadline when it sleeps again, so one notification suffices.
  Inboxes::SetSleepDeadlineMaxLocked(timer, internal::WakeState::kNoSleeper);
  timer.cv_.notify_all();
  // The reaper runs callbacks: its standby must wake for this one.
  if (timer.watchdog_.active) {
    Reaper::ArmWatchdogLocked(timer, timer.wheel_.EarliestKey(), false);
  }
}

void Timer::Reaper::RunInlineBatches(Timer& timer) {
  std::vector<std::vector<TimerTask*>> batches;
  batches.swap(timer.inline_.batches);
  size_t tasks = 0;
  for (const std::vector<TimerTask*>& batch : batches) tasks += batch.size();
  const int64_t estimate =
      static_cast<int64_t>(tasks) *
      timer.inline_.run_ns_per_task.load(std::memory_order_relaxed);
  bool hand_off;
  {
    internal::MutexLock lock(timer.mu_);
    // Buffered tasks first: the decision below counts them.
    Inboxes::DrainInboxesLocked(timer);
    // Run here only when nothing else comes due before these would have
    // run (the estimate): otherwise the next instant would wait for the
    // watchdog, a wake-up later, and the flush and the callbacks would
    // share one thread. The standby runs them at once instead, and this
    // thread stays free to flush the next instant on time.
    const int64_t next = timer.wheel_.EarliestKey();
    hand_off = next != internal::kMaxNanos &&
               next - Timer::Clocks::NowRelative(timer) <
                   std::max<int64_t>(estimate, 0) + kInlineMargin;
    if (!hand_off) {
      timer.watchdog_.active = true;
      Reaper::ArmWatchdogLocked(timer, next, /*force=*/true);
      // The inbox floor is closed while the watchdog is armed (see
      // PublishFloorLocked): what was buffered since the drain above goes
      // in the wheel now, and re-arms the watchdog if it is due earlier.
      Inboxes::DrainInboxesLocked(timer);
    }
  }
  if (hand_off) {
    for (std::vector<TimerTask*>& batch : batches) {
      timer.executor_->Execute(Batch(&timer, std::move(batch)));
    }
    return;
  }
  for (std::vector<TimerTask*>& batch : batches) Runner::RunBatch(timer, batch);
  {
    // Under the lock: an Add() re-arming meanwhile is not undone later.
    internal::MutexLock lock(timer.mu_);
    timer.watchdog_.active = false;
    Inboxes::PublishFloorLocked(timer);
    timer.owned_executor_->Disarm();
  }
}

void Timer::Reaper::ArmWatchdogLocked(Timer& timer, int64_t key, bool force) {
  if (!force && key >= timer.watchdog_.deadline) return;
  timer.watchdog_.deadline = key;
  // An Add() due before it notifies (AddLocked), and re-arms.
  Inboxes::SetSleepDeadlineMaxLocked(
      timer, std::max(timer.wake_.sleep_deadline_max, key));
  if (timer.shutdown_ || key == internal::kMaxNanos ||
      (timer.origin_ > 0 && key > internal::kMaxNanos - timer.origin_)) {
    timer.owned_executor_->Disarm();
    return;
  }
  timer.owned_executor_->ArmAt(timer.origin_ + key);
}

void Timer::Reaper::OnWatchdog(Timer& timer) {
  // The reaper is inside callbacks at a due instant (or just left them):
  // flush what is due; the batches go to this thread's queue, which it runs
  // next.
  timer.AdvanceClock(absl::ZeroDuration());
  internal::MutexLock lock(timer.mu_);
  if (timer.watchdog_.active) {
    Reaper::ArmWatchdogLocked(timer, timer.wheel_.EarliestKey(), true);
  }
}

}  // namespace timingwheel
