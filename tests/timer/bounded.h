// Copyright 2026 The timingwheel Authors.
//
// bounded.h
// -----------------------------------------------------------------------------
//
// `RunWithin()`: runs a call that could hang on a broken timer (a shutdown
// that waits for work an executor dropped) on another thread and fails the
// test with a message after a deadline, instead of hanging until Bazel's
// timeout.

#ifndef TIMINGWHEEL_TESTS_TIMER_BOUNDED_H_
#define TIMINGWHEEL_TESTS_TIMER_BOUNDED_H_

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>
#include <utility>

namespace timingwheel {
namespace testing {

// RunWithin()
//
// Runs `call` on a new thread and waits up to `timeout` for it. If it has
// not returned by then, prints `what` and aborts the test binary (a thread
// stuck in the call cannot be joined, so the test cannot go on).
template <typename F>
void RunWithin(const char* what, F&& call,
               std::chrono::seconds timeout = std::chrono::seconds(30)) {
  std::packaged_task<void()> task(std::forward<F>(call));
  std::future<void> done = task.get_future();
  std::thread thread(std::move(task));
  if (done.wait_for(timeout) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s did not return within %llds\n", what,
                 static_cast<long long>(timeout.count()));
    std::fflush(stderr);
    std::abort();
  }
  thread.join();
  done.get();
}

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_TIMER_BOUNDED_H_
