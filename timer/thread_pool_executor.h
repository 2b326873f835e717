// Copyright 2026 The timingwheel Authors.
//
// thread_pool_executor.h
// -----------------------------------------------------------------------------
//
// `ThreadPoolExecutor` is a fixed-size thread pool `Executor`: callbacks run
// concurrently on N threads (a timer's tasks on any of N threads, a durable
// scheduler's handlers side by side, up to N at once). It can wait, bounded,
// until every callback handed to it has finished (for a graceful shutdown or
// a test).
//
// Example:
//   ThreadPoolExecutor pool(4);
//   TimerOptions options;
//   options.executor = &pool;  // The pool outlives the timer.
//   auto timer = Timer::Create(options).value();
//   ...
//   ASSERT_TRUE(pool.AwaitIdle(absl::Seconds(15)));

#ifndef TIMINGWHEEL_TIMER_THREAD_POOL_EXECUTOR_H_
#define TIMINGWHEEL_TIMER_THREAD_POOL_EXECUTOR_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "timer/executor.h"

namespace timingwheel {

// ThreadPoolExecutor
//
// An `Executor` with `threads` worker threads sharing one unbounded FIFO
// queue: any worker runs any callback, so callbacks handed in one after the
// other may run concurrently and finish out of order. `Execute()` never runs
// a callback inline and never blocks for long. Follows the `Executor`
// contract: each callback handed in either runs once or, once `Shutdown()`
// has begun, is destroyed without running (dropped; a timer's batch then
// cancels its tasks).
//
// Thread-safe: every member may be called from any thread, including from
// the pool's own callbacks, except the destructor, which must not run on a
// worker thread (a thread cannot join itself; it aborts with a message).
class ThreadPoolExecutor final : public Executor {
 public:
  // Starts `threads` workers; aborts with a message if `threads` < 1.
  explicit ThreadPoolExecutor(int threads);
  ThreadPoolExecutor(const ThreadPoolExecutor&) = delete;
  ThreadPoolExecutor& operator=(const ThreadPoolExecutor&) = delete;

  // Shuts down (see `Shutdown()`) and joins every worker.
  ~ThreadPoolExecutor() override;

  // ThreadPoolExecutor::Execute()
  //
  // Queues `callback` for a worker; after `Shutdown()` began, destroys it
  // without running it, on the calling thread. Thread-safe.
  void Execute(Callback callback) override;

  // ThreadPoolExecutor::Shutdown()
  //
  // The workers run every callback queued before the call (not those handed
  // in afterwards, which are dropped), then exit; returns once they have
  // been joined. From a worker thread (inside a callback) it cannot join
  // its own thread: it returns at once and the destructor joins the
  // workers. Idempotent. Thread-safe.
  void Shutdown();

  // ThreadPoolExecutor::AwaitIdle()
  //
  // Blocks until every callback handed to `Execute()` so far has finished
  // running (none queued, none running), or until `timeout` of real time
  // passes. Returns whether the pool became idle. Must not be called from a
  // worker (it would wait for its own callback). Thread-safe.
  bool AwaitIdle(absl::Duration timeout);

  // ThreadPoolExecutor::IsWorkerThread()
  //
  // Returns whether the calling thread is one of this pool's workers.
  bool IsWorkerThread() const;

 private:
  void Loop();

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // Work queued, or stopping.
  std::condition_variable idle_cv_;  // unfinished_ dropped to 0.
  std::deque<Callback> queue_;       // Guarded by mu_.
  int64_t unfinished_ = 0;           // Queued + running. Guarded by mu_.
  bool stopping_ = false;            // Guarded by mu_.
  std::vector<std::thread::id> worker_ids_;  // Set before any worker runs.
  std::mutex join_mu_;                       // Serialises the joins.
  std::vector<std::thread> threads_;         // Guarded by join_mu_.
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_THREAD_POOL_EXECUTOR_H_
