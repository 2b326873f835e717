// Copyright 2026 The timingwheel Authors.
//
// asio_timer.h
// -----------------------------------------------------------------------------
//
// `AsioTimer`: baseline 5, Boost.Asio's `steady_timer` on one `io_context`
// run by one thread ("bl-asio"): the C++ timer most users already have (a
// binary heap of timers, waited for with epoll and a timerfd). Each
// scheduled callback is one heap-allocated `steady_timer` kept in an id map
// under a mutex, so that another thread can cancel it; the handler checks
// the map, so a timer cancelled after it expired but before its handler ran
// still does not run; `Post()` skips the map (the handler owns its timer,
// Asio's usual idiom). Asio's wait cannot be instrumented, so `wakeups()`
// counts returns from `io_context::run_one()` (handlers run); the wake-up
// benchmark cross-checks it with the thread's context switches.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_ASIO_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_ASIO_TIMER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "benchmarks/baselines/timer_under_test.h"

namespace timingwheel {
namespace bench {

// AsioTimer
//
// Thread-safe.
class AsioTimer final : public TimerUnderTest {
 public:
  AsioTimer();
  ~AsioTimer() override;

  std::string name() const override { return "asio"; }
  void Start() override;
  void Stop() override;
  TimerId Schedule(absl::Duration delay, Callback callback) override;
  void Post(absl::Duration delay, Callback callback) override;
  bool Cancel(TimerId id) override;
  int64_t wakeups() const override {
    return wakeups_.load(std::memory_order_relaxed);
  }
  std::string timer_thread_name() const override { return "bl-asio"; }

 private:
  struct State;  // Keeps Boost out of this header.

  std::unique_ptr<State> state_;
  std::atomic<int64_t> wakeups_{0};
  std::thread thread_;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_ASIO_TIMER_H_
