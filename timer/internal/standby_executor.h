// Copyright 2026 The timingwheel Authors.
//
// standby_executor.h
// -----------------------------------------------------------------------------
//
// The executor a `Timer` owns when `TimerOptions::executor` is null. This
// file defines:
//
//   * `internal::StandbyExecutor`: one thread with a FIFO queue (an
//     eventfd) and a watchdog (a timerfd), both waited on with one poll().
//
// With the real clock, the timer's reaper runs a due batch itself instead
// of handing it over (one wake-up per due instant for the whole process),
// and arms the watchdog to the next due instant while it does. Arming and
// disarming a timerfd does not wake the thread: it sleeps through the
// normal case. Only when the reaper is still inside callbacks at the next
// due instant does the watchdog fire, and the thread takes over (its
// `on_watchdog` flushes the timer and runs what is due), so a long or
// blocking callback never delays another timer. Batches the reaper does
// not run itself (a manual clock, `AdvanceClock()` from another thread, a
// flush of more than one chunk or of more than 64 tasks, a batch estimated
// to run past the next due instant) go to the queue, as they went to the
// `ThreadExecutor` this replaces.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_STANDBY_EXECUTOR_H_
#define TIMINGWHEEL_TIMER_INTERNAL_STANDBY_EXECUTOR_H_

#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "timer/executor.h"

namespace timingwheel {
namespace internal {

// StandbyExecutor
//
// An `Executor` with one thread named "tw-executor" that runs queued
// callbacks in FIFO order and calls `on_watchdog` when the watchdog armed
// by `ArmAt()` expires. Thread-safe.
class StandbyExecutor final : public Executor {
 public:
  // Starts the thread. `on_watchdog` runs on it each time the watchdog
  // expires, until `Shutdown()`. Aborts the process if the kernel refuses
  // an eventfd or a timerfd.
  explicit StandbyExecutor(absl::AnyInvocable<void()> on_watchdog);
  StandbyExecutor(const StandbyExecutor&) = delete;
  StandbyExecutor& operator=(const StandbyExecutor&) = delete;

  // Shuts down (see `Shutdown()`) and closes the descriptors. Must not run
  // on the executor's own thread.
  ~StandbyExecutor() override;

  // StandbyExecutor::Execute()
  //
  // Queues `callback`; the thread runs it after those queued before.
  // After `Shutdown()`, destroys it without running it. Thread-safe.
  void Execute(Callback callback) override;

  // StandbyExecutor::ArmAt()
  //
  // Makes the watchdog expire at `monotonic_nanos` (a `Clock::Real()`
  // reading; CLOCK_MONOTONIC), replacing any earlier arming. Does not wake
  // the thread. Thread-safe.
  void ArmAt(int64_t monotonic_nanos);

  // StandbyExecutor::Disarm()
  //
  // Stops the watchdog; an expiry the thread has not consumed yet may
  // still call `on_watchdog` once. Does not wake the thread. Thread-safe.
  void Disarm();

  // StandbyExecutor::Shutdown()
  //
  // Runs every callback already queued, then stops the thread and joins it
  // (from the thread itself it cannot join: the thread exits once the
  // callback returns and the destructor joins it). The watchdog no longer
  // calls `on_watchdog` once this is called. Idempotent. Thread-safe.
  void Shutdown();

  // StandbyExecutor::IsCurrentThread()
  //
  // Returns whether the calling thread is this executor's thread.
  bool IsCurrentThread() const;

  // StandbyExecutor::wakeups()
  //
  // How many times the thread returned from poll(). Thread-safe.
  int64_t wakeups() const;

 private:
  void Loop();
  void Notify();

  absl::AnyInvocable<void()> on_watchdog_;
  const int event_fd_;
  const int timer_fd_;
  mutable std::mutex mu_;
  std::vector<Callback> queue_;  // Guarded by mu_.
  bool stopping_ = false;        // Guarded by mu_.
  int64_t wakeups_ = 0;          // Guarded by mu_.
  std::thread thread_;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_STANDBY_EXECUTOR_H_
