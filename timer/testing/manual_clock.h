// Copyright 2026 The timingwheel Authors.
//
// manual_clock.h
// -----------------------------------------------------------------------------
//
// `ManualClock` is a `Clock` that moves only when a test says so, so that a
// real `Timer` (real wheel, real reaper thread if wanted) runs
// deterministically and no test sleeps to wait for a timer.

#ifndef TIMINGWHEEL_TIMER_TESTING_MANUAL_CLOCK_H_
#define TIMINGWHEEL_TIMER_TESTING_MANUAL_CLOCK_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/time/time.h"
#include "timer/clock.h"
#include "timer/time_point.h"

namespace timingwheel {
namespace testing {

// ManualClock
//
// A clock whose time is set by the test. Threads sleeping in `WaitUntil()`
// (a timer's reaper) wake when the clock reaches their deadline or when their
// condition variable is notified, exactly as with a real clock, and the test
// can wait until a thread sleeps with a given deadline (`AwaitSleeper()`).
// Thread-safe.
//
// Example:
//   ManualClock clock;
//   TimerOptions options;
//   options.clock = &clock;
//   auto timer = Timer::Create(options).value();  // With its reaper.
//   const TimePoint deadline = timer->Now() + absl::Milliseconds(5);
//   timer->ScheduleAt(deadline, [&] { done.Notify(); }).value();
//   ASSERT_TRUE(clock.AwaitSleeper(deadline));  // The reaper sleeps till then.
//   clock.AdvanceBy(absl::Milliseconds(5));     // It wakes and fires.
class ManualClock final : public Clock {
 public:
  // Starts at `start_nanos` (default 0).
  explicit ManualClock(int64_t start_nanos = 0) : now_(start_nanos) {}
  ManualClock(const ManualClock&) = delete;
  ManualClock& operator=(const ManualClock&) = delete;

  int64_t NowNanos() override { return now_.load(std::memory_order_acquire); }

  void WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock,
                 int64_t deadline_nanos) override;

  // ManualClock::AdvanceBy()
  //
  // Moves the time forward by `delta` (negative deltas are ignored), wakes
  // the sleepers whose deadline has come and returns once they have left
  // `WaitUntil()` (so it must not be called while holding a sleeper's
  // mutex). Thread-safe.
  void AdvanceBy(absl::Duration delta);

  // ManualClock::SetNanos()
  //
  // Sets the time, forwards or backwards (to test clock anomalies), and
  // wakes the sleepers whose deadline has come, as `AdvanceBy()` does.
  // Thread-safe.
  void SetNanos(int64_t now_nanos);

  // ManualClock::AwaitSleeper()
  //
  // Blocks until some thread sleeps in `WaitUntil()` with deadline
  // `deadline_nanos` (`kInfiniteFutureNanos`: sleeping without a deadline),
  // or until `real_timeout` of real time passes. Returns whether it saw one.
  // Thread-safe.
  bool AwaitSleeper(int64_t deadline_nanos,
                    absl::Duration real_timeout = absl::Seconds(10));

  // As above, for a deadline on this clock as a `TimePoint` (what
  // `Timer::Now() + delay` gives; `TimePoint::Max()`: no deadline).
  bool AwaitSleeper(TimePoint deadline,
                    absl::Duration real_timeout = absl::Seconds(10)) {
    return AwaitSleeper(deadline.nanos(), real_timeout);
  }

  // ManualClock::AwaitSleeperAt()
  //
  // As `AwaitSleeper()`, for a deadline `offset` after the clock's origin 0.
  bool AwaitSleeperAt(absl::Duration offset,
                      absl::Duration real_timeout = absl::Seconds(10)) {
    return AwaitSleeper(absl::ToInt64Nanoseconds(offset), real_timeout);
  }

 private:
  struct Sleeper {
    std::condition_variable* cv;
    int64_t deadline;
    bool woken;
  };

  void WakeDueSleepers();

  std::atomic<int64_t> now_;
  std::mutex mu_;  // Order: a sleeper's own mutex before mu_.
  std::condition_variable sleepers_changed_;
  std::vector<Sleeper*> sleepers_;  // Guarded by mu_.
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TESTING_MANUAL_CLOCK_H_
