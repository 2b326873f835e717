// Copyright 2026 The timingwheel Authors.
//
// manual_executor.h
// -----------------------------------------------------------------------------
//
// `ManualExecutor` queues callbacks until the test runs them, so a test
// decides on which thread and when callbacks run.

#ifndef TIMINGWHEEL_TIMER_TESTING_MANUAL_EXECUTOR_H_
#define TIMINGWHEEL_TIMER_TESTING_MANUAL_EXECUTOR_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstddef>
#include <deque>
#include <mutex>

#include "timer/executor.h"

namespace timingwheel {
namespace testing {

// ManualExecutor
//
// An `Executor` that only queues. `RunAll()` runs the queue on the calling
// thread. A timer's `Shutdown()` and destructor wait for every callback the
// timer handed to its executor: call `RunAll()` before destroying a timer
// that uses one, or the destructor waits forever for the queued callbacks
// (`MockTimer::AdvanceBy()` drains its own). Thread-safe.
class ManualExecutor final : public Executor {
 public:
  void Execute(Callback callback) override;

  // ManualExecutor::RunAll()
  //
  // Runs queued callbacks, including those queued while it runs, until the
  // queue is empty. Returns how many ran. Thread-safe.
  size_t RunAll();

  // ManualExecutor::size()
  //
  // The number of queued callbacks. Thread-safe.
  size_t size();

 private:
  std::mutex mu_;
  std::deque<Callback> queue_;  // Guarded by mu_.
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TESTING_MANUAL_EXECUTOR_H_
