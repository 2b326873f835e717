// Copyright 2026 The timingwheel Authors.
//
// in_flight.h
// -----------------------------------------------------------------------------
//
// `InFlightCallbacks`: how many batches of a timer's callbacks have been
// handed to an executor and have not finished, and a wait for none. It
// promises that `WaitUntilNone()` returns only after the `Finish()` that
// brought the count to zero has returned (the count drops under its mutex),
// so that the waiter may then destroy the object, and the timer holding it.
// Private to //timer.
//
// Thread safety: every member may be called from any thread; `Add()` takes
// no lock, the others take the object's own mutex (never a timer's).

#ifndef TIMINGWHEEL_TIMER_INTERNAL_IN_FLIGHT_H_
#define TIMINGWHEEL_TIMER_INTERNAL_IN_FLIGHT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace timingwheel {
namespace internal {

class InFlightCallbacks {
 public:
  InFlightCallbacks() = default;
  InFlightCallbacks(const InFlightCallbacks&) = delete;
  InFlightCallbacks& operator=(const InFlightCallbacks&) = delete;

  // Counts `count` more (the flush calls it with the timer's lock held, so
  // that a Shutdown() that follows waits for them).
  void Add(int64_t count) {
    count_.fetch_add(count, std::memory_order_relaxed);
  }

  // `count` of them finished (ran, or were released); wakes the waiters when
  // none is left.
  void Finish(int64_t count) {
    std::lock_guard<std::mutex> lock(mu_);
    if (count_.fetch_sub(count, std::memory_order_acq_rel) == count) {
      cv_.notify_all();
    }
  }

  // Blocks until none is in flight.
  void WaitUntilNone() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return count_.load() == 0; });
  }

 private:
  std::atomic<int64_t> count_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_IN_FLIGHT_H_
