// Copyright 2026 The timingwheel Authors.
//
// The producer inboxes of Timer (see "Producer inboxes" in timer.h and
// internal/inbox.h): the lock-free push of Schedule()/Add(), the lock-free
// cancel of a buffered task, the drains that place buffered tasks in the
// wheel under the lock, and the floor that tells producers when they may
// push. The Dekker pair that keeps a buffered task from being slept over:
//
//   TryBuffer():          push (seq_cst); read the floor (seq_cst); due
//                         before it -> lock, drain (wakes the sleepers).
//   AdvanceClock():       publish the floor (seq_cst, under the lock); if it
//                         rose, look at the inbox (seq_cst) and drain
//                         before sleeping.
//
// A floor that did not rise needs no second look: every task in the inbox
// was checked by its producer against a floor at least as late.

#include <algorithm>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "timer/internal/inbox.h"
#include "timer/internal/task_state.h"
#include "timer/internal/timing_wheel.h"
#include "timer/internal/wheel_math.h"
#include "timer/timer.h"
#include "timer/timer_impl.h"

namespace timingwheel {

using State = internal::TaskState;

Timer::Inboxes::Buffered Timer::Inboxes::AfterPush(Timer& timer,
                                                   TimerTask* task, bool wake) {
  bool refused = false;
  {
    internal::MutexLock lock(timer.mu_);
    if (timer.shutdown_) {
      // Shutdown() closed the floor and drained. If its drain took the
      // task, the add happened before it (the task is among those it
      // returns); if not, the add comes after it: withdrawn and refused.
      refused = State::WithdrawBuffered(task, timer.settings_.id);
      // Takes the withdrawn task (pushed by TryBuffer) out of the inbox.
      Inboxes::ReleaseAfterShutdownLocked(timer);
    } else if (wake) {
      Inboxes::DrainInboxesLocked(timer);
    } else {
      Inboxes::DrainMineLocked(timer);
    }
  }
  if (refused) {
    task->Unref();  // The inbox's; never the last (the caller holds one).
    return Buffered::kRefused;
  }
  return Buffered::kYes;
}

void Timer::Inboxes::ReleaseAfterShutdownLocked(Timer& timer) {
  internal::ListNode* node = timer.inbox_.TakeAll();
  while (node != nullptr) {
    internal::ListNode* const next = node->next;
    TimerTask* const task = internal::TimingWheel::AsTask(node);
    if ((State::Load(task) & State::kRevoked) != 0) {
      // Out of the inbox; its revoker drops the reference
      // (WaitUntilRevokedOut).
      node->next = nullptr;
      State::ReleaseRevoked(task);
    } else {
      // Another producer's, still inside its add: it withdraws it itself
      // once it holds the lock. Back in the inbox until then.
      timer.inbox_.Push(timer.inbox_.Mine(), node);
    }
    node = next;
  }
}

int Timer::Inboxes::CancelBuffered(TimerTask& task, uint32_t owner) {
  switch (State::TryRevokeBuffered(&task, owner)) {
    case State::Revoke::kRevoked:
      return 1;
    case State::Revoke::kAlreadyRevoked:
      return 0;
    case State::Revoke::kNotBuffered:
      break;
  }
  return -1;
}

void Timer::Inboxes::TakeRevokedLocked(Timer& timer) {
  if (timer.shutdown_) {
    Inboxes::ReleaseAfterShutdownLocked(timer);
  } else {
    Inboxes::DrainInboxesLocked(timer);
  }
}

// The control block's lock is the timer's (mu_ is control->mu), which the
// analysis cannot see through the pointer.
void Timer::Inboxes::WaitUntilRevokedOut(internal::TimerControl* control,
                                         TimerTask& task)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  constexpr uint32_t kRevokedInInbox = State::kInbox | State::kRevoked;
  for (;;) {
    {
      internal::MutexLock lock(control->mu);
      Timer* const timer = control->timer;
      // Every drain takes a revoked task out without releasing it. Its
      // producer may not have pushed it yet (the push takes no lock, and
      // ends): until then, drain again.
      if (timer != nullptr) Inboxes::TakeRevokedLocked(*timer);
      if (timer == nullptr ||
          (State::Load(&task) & kRevokedInInbox) != kRevokedInInbox) {
        break;
      }
    }
    std::this_thread::yield();
  }
}

void Timer::Inboxes::DrainInboxesLocked(Timer& timer) {
  if (!timer.settings_.use_inbox || timer.shutdown_) return;
  Inboxes::PlaceDrainedLocked(timer, timer.inbox_.TakeAll());
}

void Timer::Inboxes::DrainMineLocked(Timer& timer) {
  if (!timer.settings_.use_inbox || timer.shutdown_) return;
  Inboxes::PlaceDrainedLocked(timer,
                              internal::Inbox::TakeStripe(timer.inbox_.Mine()));
}

void Timer::Inboxes::PlaceDrainedLocked(Timer& timer,
                                        internal::ListNode* chain) {
  if (chain == nullptr) return;
  for (internal::ListNode* node = chain; node != nullptr;) {
    internal::ListNode* const next = node->next;
    if (next != nullptr) __builtin_prefetch(next, 1);
    // The link is free once the state leaves kInbox (a waiting add may
    // then use it): clear it first.
    node->next = nullptr;
    TimerTask* const task = internal::TimingWheel::AsTask(node);
    if (State::TakeFromInbox(task, timer.settings_.id) ==
        State::Drained::kPlaced) {
      ++timer.counters_.pending;
      ++timer.counters_.added;
      timer.wheel_.Place(task);
    } else {
      // Cancelled while buffered: counted as the add and the cancel it
      // was. Out of the inbox; its revoker drops the inbox's reference
      // (WaitUntilRevokedOut).
      ++timer.counters_.added;
      ++timer.counters_.cancelled;
    }
    node = next;
  }
  Reaper::NotifySleepersIfEarlierLocked(timer);
}

bool Timer::Inboxes::SetSleepDeadlineMaxLocked(Timer& timer, int64_t deadline) {
  timer.wake_.sleep_deadline_max = deadline;
  return Inboxes::PublishFloorLocked(timer);
}

bool Timer::Inboxes::PublishFloorLocked(Timer& timer) {
  if (!timer.settings_.use_inbox) return false;
  // While the reaper runs callbacks with the watchdog armed, and once
  // Shutdown() began, nothing is buffered: kMaxNanos is above every due
  // time TryBuffer() accepts.
  const int64_t floor = timer.inbox_closed_ || timer.watchdog_.active
                            ? internal::kMaxNanos
                            : timer.wake_.sleep_deadline_max;
  const int64_t before = timer.inbox_.floor();  // Written under mu_ only.
  if (floor != before) timer.inbox_.set_floor(floor);
  return floor > before;
}

}  // namespace timingwheel
