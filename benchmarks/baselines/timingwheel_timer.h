// Copyright 2026 The timingwheel Authors.
//
// timingwheel_timer.h
// -----------------------------------------------------------------------------
//
// `TimingwheelTimer`: this project's `Timer` behind the benchmarks' interface,
// in one of two modes:
//
//   * `kReaper`: the timer as shipped; its own reaper ("tw-reaper") sleeps
//     until the earliest bucket key.
//   * `kPoll`: baseline 4, the same wheel driven the way Kafka drives its
//     timer: a thread ("bl-poller") that calls `AdvanceClock(poll)` in a loop
//     (Kafka's ExpirationReaper uses 200 ms), so it also wakes every `poll`
//     when nothing is due.
//
// Callbacks run on the timer's default executor ("tw-executor"). Ids map to
// `TimerHandle`s in a small slab under a mutex (freed when the callback runs
// or is cancelled); `Post()` skips it and calls `Timer::Schedule()` alone, as
// do the micro benchmarks.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_TIMINGWHEEL_TIMER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_TIMINGWHEEL_TIMER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "benchmarks/baselines/node_pool.h"
#include "benchmarks/baselines/timer_under_test.h"
#include "timer/timer.h"

namespace timingwheel {
namespace bench {

// TimingwheelTimer
//
// Thread-safe.
class TimingwheelTimer final : public TimerUnderTest {
 public:
  enum class Mode { kReaper, kPoll };

  // `poll` is used in `kPoll` mode only.
  explicit TimingwheelTimer(Mode mode,
                            absl::Duration poll = absl::Milliseconds(200),
                            TimerOptions options = TimerOptions());
  ~TimingwheelTimer() override { Stop(); }

  std::string name() const override;
  void Start() override;
  void Stop() override;
  TimerId Schedule(absl::Duration delay, Callback callback) override;
  void Post(absl::Duration delay, Callback callback) override;
  bool Cancel(TimerId id) override;
  int64_t wakeups() const override;
  std::string timer_thread_name() const override {
    return mode_ == Mode::kReaper ? "tw-reaper" : "bl-poller";
  }

  // TimingwheelTimer::timer()
  //
  // The wrapped timer (valid until `Stop()`).
  Timer& timer() { return *timer_; }

 private:
  struct Node {
    uint32_t generation = 0;
    bool live = false;
    TimerHandle handle;
  };

  void ReleaseId(TimerId id);

  const Mode mode_;
  const absl::Duration poll_;
  TimerOptions options_;
  std::unique_ptr<Timer> timer_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> poller_wakeups_{0};
  std::thread poller_;
  std::mutex ids_mu_;
  NodePool<Node> ids_;  // Guarded by ids_mu_.
  int64_t final_wakeups_ = -1;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_TIMINGWHEEL_TIMER_H_
