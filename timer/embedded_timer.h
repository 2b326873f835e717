// Copyright 2026 The timingwheel Authors.
//
// embedded_timer.h
// -----------------------------------------------------------------------------
//
// A timer that lives inside the user's own object, in the manner of Folly's
// `HHWheelTimer::Callback`: no allocation and no reference count per
// scheduling, destroyed with its owner (which cancels it). This file
// defines:
//
//   * `EmbeddedTimer`: the base to derive from; override `OnTimer()`.
//   * `CallbackTimer`: an `EmbeddedTimer` that runs a callable, to hold as a
//     member.
//
// Use `Timer::Schedule()` and `TaskPtr` instead when the timer's object must
// be shared or outlive its owner.
//
// Lifetime rules (the owner's promise is the timer's only hold on it):
//   * Destroying an embedded timer cancels it, from any thread, in any state:
//     idle, pending, handed to the executor and not started (it is taken
//     back; destruction never waits for the executor to reach it), or after
//     its timer was shut down or destroyed.
//   * If its callback is running on another thread, destruction (and
//     `Cancel()`) waits until that run returns: when it returns, no run is in
//     progress and none will start. Do not hold a lock the callback takes
//     while you destroy or cancel it.
//   * Destroying it from inside its own callback (`delete owner;` in
//     `OnTimer()`) is allowed: the timer does not touch it after `OnTimer()`
//     returns.
//   * A subclass of `EmbeddedTimer` must call `Cancel()` first thing in its
//     own destructor: C++ destroys the subclass's members before
//     `~EmbeddedTimer()` runs, so only a `Cancel()` there waits for a
//     running `OnTimer()` before they go. `CallbackTimer` does this; as a
//     member, declare it after the members its callback uses (it is then
//     destroyed, and waits, before them).
//   * The `Timer` may be destroyed first: the embedded timer is then idle,
//     and destroying it later is harmless.
//
// Example (an idle timeout per connection):
//   class Connection {
//    public:
//     explicit Connection(timingwheel::Timer& timer) : timer_(timer) {}
//     void OnTraffic() {  // Moves the pending timeout; no allocation.
//       idle_.Schedule(timer_, absl::Seconds(30)).IgnoreError();
//     }
//    private:
//     void Close();
//     timingwheel::Timer& timer_;
//     timingwheel::CallbackTimer idle_{[this] { Close(); }};  // Last member.
//   };

#ifndef TIMINGWHEEL_TIMER_EMBEDDED_TIMER_H_
#define TIMINGWHEEL_TIMER_EMBEDDED_TIMER_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

// EmbeddedTimer
//
// A timer in the user's object. Derive from it, override `OnTimer()`, and
// `Schedule()` it on a `Timer`; or hold a `CallbackTimer`. It is not a
// `TimerTask` to its users: `Timer::Add()` and `Timer::Cancel()` do not take
// it (its reference count holds a marker that `Add()` refuses), and the
// timer never deletes it.
//
// It keeps every promise of a timer task: never early, exactly once per
// scheduling (run or cancelled), never concurrently with itself. 48 bytes
// (a `TimerTask`'s 40 and a pointer to its timer's control block).
//
// Thread safety: `Schedule()`, `Cancel()`, `IsScheduled()` and
// `TimeRemaining()` may be called from any thread (including from
// `OnTimer()`), while the timer's reaper runs, except that moving it to a
// different `Timer` must not race with another call on the same object.
class EmbeddedTimer : private TimerTask {
 public:
  EmbeddedTimer() { InitRefs(kEmbeddedRefs); }
  EmbeddedTimer(const EmbeddedTimer&) = delete;
  EmbeddedTimer& operator=(const EmbeddedTimer&) = delete;

  // Cancels it and waits for a run in progress on another thread (see the
  // lifetime rules above).
  ~EmbeddedTimer() override;

  // EmbeddedTimer::Schedule()
  //
  // Runs `OnTimer()` on `timer`'s executor once `delay` has elapsed on its
  // clock, never early. If it is already pending (or handed to the executor
  // and not started), it is moved to the new due time: O(1), no allocation,
  // no cancel-and-add. Called while `OnTimer()` runs (a repeating timer
  // re-arming itself), it runs again once due, never concurrently with
  // itself. Returns the errors of `Timer::Add()`:
  // `absl::FailedPreconditionError` after `timer.Shutdown()`, or while it is
  // pending, queued or running on another `Timer` (`Cancel()` it there
  // first), `absl::CancelledError` when `Cancel()` stopped it while
  // `OnTimer()` runs (until it returns), `absl::ResourceExhaustedError` past
  // `max_pending`. `timer` must outlive the call (not the object).
  // Thread-safe.
  absl::Status Schedule(Timer& timer, absl::Duration delay);

  // EmbeddedTimer::Cancel()
  //
  // Prevents its next run if that run has not started, and, when
  // `OnTimer()` is running on another thread, stops it from re-arming itself
  // and waits until it returns. When `Cancel()` returns, `OnTimer()` is not
  // running (except on the calling thread, from inside `OnTimer()`) and will
  // not start until the next `Schedule()`. Returns true if this call
  // prevented a run. O(1) apart from that wait. Thread-safe.
  bool Cancel();

  // EmbeddedTimer::IsScheduled()
  //
  // Returns whether a run is waiting (pending, or handed to the executor and
  // not started): whether `Cancel()` would prevent one. False once its timer
  // is shut down or destroyed. A snapshot. Thread-safe.
  bool IsScheduled() const;

  // EmbeddedTimer::status()
  //
  // Whether its last scheduling is pending, running, ran or was cancelled
  // (see `TaskStatus` in timer_handle.h); `kNone` before its first
  // `Schedule()`. Thread-safe.
  TaskStatus status() const;

  // EmbeddedTimer::Deadline()
  //
  // The instant on its timer's clock it is due at while pending, or was due
  // at while running; `TimePoint::Max()` otherwise. Thread-safe.
  TimePoint Deadline() const;

  // EmbeddedTimer::TimeRemaining()
  //
  // Returns how long until its run is due on its timer's clock: zero when
  // it is due (or handed to the executor, not started), and
  // `absl::InfiniteDuration()` when no run is waiting (never scheduled, ran,
  // running, cancelled, its timer shut down or destroyed). The same as
  // `TimerHandle::TimeRemaining()`. A snapshot, like `IsScheduled()`.
  // Thread-safe. Tested by EmbeddedTimeRemainingTest.
  absl::Duration TimeRemaining() const;

 protected:
  // EmbeddedTimer::OnTimer()
  //
  // The work. Called on the timer's executor, at most once per scheduling,
  // never early. An exception it throws goes to the timer's error hook (or
  // stderr).
  virtual void OnTimer() = 0;

 private:
  friend class Timer;
  void Run() final { OnTimer(); }
  // No cancel notification: the owner holds an embedded timer and ends its
  // schedulings itself (a sweep by `Timer::CancelAll()` or `Shutdown()`
  // shows in `status()`); final, so that a subclass cannot expect one.
  void OnCancelled() final {}

  // The control block of the timer it was last scheduled on (a reference),
  // or null: outlives the timer, so a late destruction finds it gone.
  internal::TimerControl* control_ = nullptr;
};

// CallbackTimer
//
// An `EmbeddedTimer` that runs `callback` (a `void()` callable; the small
// buffer of `absl::AnyInvocable` holds a lambda capturing a pointer or two
// without allocating). Hold it as a member, declared after what the callback
// uses. Its destructor cancels it and waits for a run in progress on
// another thread before the callback is destroyed. 80 bytes.
class CallbackTimer final : public EmbeddedTimer {
 public:
  explicit CallbackTimer(absl::AnyInvocable<void()> callback)
      : callback_(std::move(callback)) {}
  ~CallbackTimer() override { Cancel(); }

 private:
  void OnTimer() override { callback_(); }

  absl::AnyInvocable<void()> callback_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_EMBEDDED_TIMER_H_
