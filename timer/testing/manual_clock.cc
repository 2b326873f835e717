// Copyright 2026 The timingwheel Authors.

#include "timer/testing/manual_clock.h"

#include <algorithm>
#include <chrono>

namespace timingwheel {
namespace testing {
namespace {

// How often AdvanceBy()/SetNanos() notify a sleeper again until it has left
// WaitUntil(): a notification sent just before the sleeper blocks would be
// lost otherwise (the clock cannot take the sleeper's mutex). Real time,
// invisible to the timer.
constexpr std::chrono::milliseconds kRenotifyInterval(1);

}  // namespace

void ManualClock::WaitUntil(std::condition_variable& cv,
                            std::unique_lock<std::mutex>& lock,
                            int64_t deadline_nanos) {
  Sleeper sleeper{&cv, deadline_nanos, false};
  {
    std::lock_guard<std::mutex> guard(mu_);
    sleepers_.push_back(&sleeper);
  }
  sleepers_changed_.notify_all();
  // The caller's lock is held from its own check to the wait, so a
  // notification of `cv` by the caller's peers is never lost: the wait has no
  // timeout that could race with it (a timed wait that times out may swallow
  // a concurrent notification). A notification from the clock, which does
  // not take the caller's lock, is repeated until this sleeper has left.
  if (NowNanos() < deadline_nanos) cv.wait(lock);
  {
    std::lock_guard<std::mutex> guard(mu_);
    sleepers_.erase(std::find(sleepers_.begin(), sleepers_.end(), &sleeper));
  }
  sleepers_changed_.notify_all();
}

void ManualClock::AdvanceBy(absl::Duration delta) {
  if (delta <= absl::ZeroDuration()) return;
  const int64_t nanos = absl::ToInt64Nanoseconds(delta);
  int64_t now = now_.load();
  int64_t next;
  do {
    next = now > kInfiniteFutureNanos - 1 - nanos ? kInfiniteFutureNanos - 1
                                                  : now + nanos;
  } while (!now_.compare_exchange_weak(now, next));
  WakeDueSleepers();
}

void ManualClock::SetNanos(int64_t now_nanos) {
  now_.store(now_nanos, std::memory_order_release);
  WakeDueSleepers();
}

void ManualClock::WakeDueSleepers() {
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t now = NowNanos();
  for (Sleeper* sleeper : sleepers_) {
    if (sleeper->deadline <= now) sleeper->woken = true;
  }
  // Notifies every woken sleeper until it has left WaitUntil(). A sleeper
  // stays in `sleepers_` (and alive) until then, so its pointer is valid.
  auto any_woken = [this] {
    return std::any_of(sleepers_.begin(), sleepers_.end(),
                       [](const Sleeper* sleeper) { return sleeper->woken; });
  };
  while (any_woken()) {
    for (Sleeper* sleeper : sleepers_) {
      if (sleeper->woken) sleeper->cv->notify_all();
    }
    sleepers_changed_.wait_for(lock, kRenotifyInterval);
  }
}

bool ManualClock::AwaitSleeper(int64_t deadline_nanos,
                               absl::Duration real_timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return sleepers_changed_.wait_for(
      lock, absl::ToChronoNanoseconds(real_timeout), [&] {
        return std::any_of(
            sleepers_.begin(), sleepers_.end(), [&](const Sleeper* sleeper) {
              return !sleeper->woken && sleeper->deadline == deadline_nanos;
            });
      });
}

}  // namespace testing
}  // namespace timingwheel
