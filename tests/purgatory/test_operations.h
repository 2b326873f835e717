// Copyright 2026 The timingwheel Authors.
//
// test_operations.h
// -----------------------------------------------------------------------------
//
// Helpers for the purgatory tests:
//
//   * `CountingOperation`: completes once `ready` is set; records how often
//     each callback ran, in which state, whether `TryComplete()` held the
//     operation's lock, and can be told to throw from any callback.
//   * `CallbackError`: the exception the operations throw.
//   * `RunWithin()`: runs a function on a thread and dies with a message if
//     it does not return in time (a deadlock fails the test, never hangs it).

#ifndef TIMINGWHEEL_TESTS_PURGATORY_TEST_OPERATIONS_H_
#define TIMINGWHEEL_TESTS_PURGATORY_TEST_OPERATIONS_H_

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "purgatory/delayed_operation.h"

namespace timingwheel {
namespace testing {

// CallbackError: what a `CountingOperation` throws when told to.
class CallbackError : public std::runtime_error {
 public:
  explicit CallbackError(const std::string& what) : std::runtime_error(what) {}
};

// CountingOperation
//
// Completes when `ready` is true. Counts callbacks; `events` records the
// order of OnComplete ("complete") and OnExpiration ("expire"), and
// `state_in_complete` the state `OnComplete()` saw. Thread-safe counters;
// `events` is written only by the completing thread.
class CountingOperation : public DelayedOperation {
 public:
  explicit CountingOperation(absl::Duration delay) : DelayedOperation(delay) {}

  bool TryComplete() override {
    const int call = ++try_calls;
    if (!Waiting()) ++tries_after_finish;
    if (on_try) on_try(call);
    if (!HoldsLock()) ++tries_without_lock;
    if (throw_in_try.load()) throw CallbackError("TryComplete");
    if (!ready.load()) return false;
    // Either way is allowed: the purgatory completes it on `true`.
    return return_true_only.load() ? true : ForceComplete();
  }
  void OnComplete() override {
    ++completions;
    state_in_complete = state();
    events.push_back("complete");
    if (on_complete) on_complete();
    if (throw_in_complete.load()) throw CallbackError("OnComplete");
  }
  void OnExpiration() override {
    ++expirations;
    events.push_back("expire");
    if (throw_in_expire.load()) throw CallbackError("OnExpiration");
  }

  bool Waiting() const { return state() == OperationState::kWaiting; }

  std::atomic<bool> ready{false};
  std::atomic<bool> return_true_only{false};
  std::atomic<bool> throw_in_try{false};
  std::atomic<bool> throw_in_complete{false};
  std::atomic<bool> throw_in_expire{false};
  std::atomic<int> try_calls{0};
  std::atomic<int> tries_after_finish{0};
  std::atomic<int> tries_without_lock{0};
  std::atomic<int> completions{0};
  std::atomic<int> expirations{0};
  OperationState state_in_complete = OperationState::kWaiting;
  std::vector<std::string> events;
  std::function<void()> on_complete;
  std::function<void(int)> on_try;  // Called with the 1-based try number.
};

// RunWithin()
//
// Runs `fn` on a new thread and waits for it up to `limit` of real time. If
// it has not returned by then (a deadlock), prints `what` and aborts: the
// test fails at once instead of hanging until Bazel's timeout.
inline void RunWithin(absl::Duration limit, const char* what,
                      std::function<void()> fn) {
  std::future<void> done = std::async(std::launch::async, std::move(fn));
  if (done.wait_for(absl::ToChronoNanoseconds(limit)) !=
      std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s did not return within %s (deadlock?)\n",
                 what, absl::FormatDuration(limit).c_str());
    std::abort();
  }
  done.get();
}

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_PURGATORY_TEST_OPERATIONS_H_
