// Copyright 2026 The timingwheel Authors.
//
// test_sync.h
// -----------------------------------------------------------------------------
//
// Waiting primitives for tests that run a timer's threads: a `Latch` (a
// one-shot gate) and a `Counter` (wait for a count). Every wait is bounded by
// a generous real-time timeout and returns false instead of hanging; tests
// assert on counts, never on durations.

#ifndef TIMINGWHEEL_TESTS_TIMER_TEST_SYNC_H_
#define TIMINGWHEEL_TESTS_TIMER_TEST_SYNC_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace timingwheel {
namespace testing {

// kTestWaitTimeout: how long a test waits for its timer's threads.
inline constexpr std::chrono::seconds kTestWaitTimeout(15);

// Latch
//
// A one-shot gate: `Wait()` blocks until `Open()`. Thread-safe.
class Latch {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Returns false if the latch did not open within `timeout`.
  bool Wait(std::chrono::nanoseconds timeout = kTestWaitTimeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [this] { return open_; });
  }
  bool IsOpen() {
    std::lock_guard<std::mutex> lock(mu_);
    return open_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Counter
//
// Counts events and lets a test wait for a total. Thread-safe.
class Counter {
 public:
  void Add(int64_t n = 1) {
    std::lock_guard<std::mutex> lock(mu_);
    count_ += n;
    cv_.notify_all();
  }
  void Increment() { Add(1); }
  // Returns false if the count did not reach `n` within `timeout`.
  bool AwaitAtLeast(int64_t n,
                    std::chrono::nanoseconds timeout = kTestWaitTimeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return count_ >= n; });
  }
  int64_t value() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t count_ = 0;
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_TIMER_TEST_SYNC_H_
