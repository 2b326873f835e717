// Copyright 2026 The timingwheel Authors.
//
// executor.h
// -----------------------------------------------------------------------------
//
// A timer never runs a callback itself: it hands expired tasks to an
// `Executor`, outside every lock of the wheel. This file defines:
//
//   * `Executor`: the interface a user implements to run callbacks on their
//     own threads (a thread pool, an event loop).
//   * `ThreadExecutor`: one dedicated thread with an unbounded FIFO queue, the
//     default executor of a `Timer`.

#ifndef TIMINGWHEEL_TIMER_EXECUTOR_H_
#define TIMINGWHEEL_TIMER_EXECUTOR_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"

namespace timingwheel {

// Executor
//
// Runs callables handed to it on a thread of its choice. `Execute()` must not
// block for long (the timer's reaper calls it) and must not run the callable
// inline while the caller holds locks it cannot know of; running it inline on
// the calling thread is allowed (tests do), since the timer calls its
// executor with no lock held. The executor must outlive every timer that
// uses it. Implementations must be thread-safe.
//
// The contract: each callable handed to `Execute()` is, eventually, either
// invoked once or destroyed without being invoked ("dropped": an executor
// that is shutting down, a full queue that rejects work, an `Execute()` that
// throws). Nothing else is needed to report a rejection: a timer's callable
// that is destroyed unrun releases its tasks itself (each counted cancelled
// in `TimerMetrics::cancelled`, none runs), so the timer's `Shutdown()` and
// destructor never wait for it. An executor that keeps a callable forever,
// neither invoking nor destroying it, makes them wait forever. Destroying a
// callable may take the timer's lock: do not destroy one from inside a
// timer's callback while holding a lock that the timer's users take.
class Executor {
 public:
  using Callback = absl::AnyInvocable<void() &&>;

  virtual ~Executor() = default;

  // Executor::Execute()
  //
  // Runs `callback` once, later or now, on some thread, or destroys it
  // without running it (see the contract above). Thread-safe.
  virtual void Execute(Callback callback) = 0;
};

// ThreadExecutor
//
// An `Executor` with one dedicated thread and an unbounded FIFO queue: a slow
// callback delays only the callbacks queued behind it, never the caller of
// `Execute()`. Thread-safe.
class ThreadExecutor final : public Executor {
 public:
  ThreadExecutor();
  ThreadExecutor(const ThreadExecutor&) = delete;
  ThreadExecutor& operator=(const ThreadExecutor&) = delete;

  // Drains the queue and joins the thread (see `Shutdown()`). Must not run
  // on the executor's own thread (from one of its callbacks: a thread cannot
  // join itself); if it does, it aborts the process with a message saying
  // so.
  ~ThreadExecutor() override;

  void Execute(Callback callback) override;

  // ThreadExecutor::Shutdown()
  //
  // Runs every callback already queued, then stops the thread and joins it.
  // Callbacks passed to `Execute()` afterwards are destroyed without running
  // (dropped: a timer's batch then cancels its tasks). When called from the
  // executor's own thread (from a callback), it cannot join itself: the
  // thread still runs every callback queued before the call, then exits
  // after the callback returns, and the destructor (from another thread)
  // joins it. Idempotent. Thread-safe.
  void Shutdown();

  // ThreadExecutor::IsCurrentThread()
  //
  // Returns whether the calling thread is this executor's thread.
  bool IsCurrentThread() const;

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Callback> queue_;  // Guarded by mu_.
  bool stopping_ = false;        // Guarded by mu_.
  std::thread thread_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_EXECUTOR_H_
