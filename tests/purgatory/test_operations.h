// Copyright 2026 The timingwheel Authors.
//
// test_operations.h
// -----------------------------------------------------------------------------
//
// Delayed operations for the purgatory tests: `CountingOperation` completes
// once `ready` is set and records how often each callback ran and whether
// `TryComplete()` held the operation's lock.

#ifndef TIMINGWHEEL_TESTS_PURGATORY_TEST_OPERATIONS_H_
#define TIMINGWHEEL_TESTS_PURGATORY_TEST_OPERATIONS_H_

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "purgatory/delayed_operation.h"

namespace timingwheel {
namespace testing {

// CountingOperation
//
// Completes when `ready` is true. Counts callbacks; `events` records the
// order of OnComplete ("complete") and OnExpiration ("expire"). Thread-safe
// counters; `events` is written only by the completing thread.
class CountingOperation : public DelayedOperation {
 public:
  explicit CountingOperation(absl::Duration delay) : DelayedOperation(delay) {}

  bool TryComplete() override {
    const int call = ++try_calls;
    if (on_try) on_try(call);
    if (!HoldsLock()) ++tries_without_lock;
    if (!ready.load()) return false;
    return ForceComplete();
  }
  void OnComplete() override {
    ++completions;
    events.push_back("complete");
    if (on_complete) on_complete();
  }
  void OnExpiration() override {
    ++expirations;
    events.push_back("expire");
  }

  std::atomic<bool> ready{false};
  std::atomic<int> try_calls{0};
  std::atomic<int> tries_without_lock{0};
  std::atomic<int> completions{0};
  std::atomic<int> expirations{0};
  std::vector<std::string> events;
  std::function<void()> on_complete;
  std::function<void(int)> on_try;  // Called with the 1-based try number.
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_PURGATORY_TEST_OPERATIONS_H_
