// Copyright 2026 The timingwheel Authors.
//
// manual_impls.h
// -----------------------------------------------------------------------------
//
// The timers the manual-clock micro benchmarks template over, each driven on
// the benchmark's thread by a `StepClock` (no timer thread at all):
//
//   * `ManualOurs`: `Timer` with `start_reaper = false` and an inline
//     executor, advanced with `AdvanceClock(absl::ZeroDuration())`.
//   * `ManualBaseline<T>`: a baseline from baselines/ never started,
//     advanced with `RunDue()`.
//
// Each has `Fire(delay, callback)`, `AdvanceTo(nanos)` (runs what is due
// then) and `TouchesPerTask(n)` (placements, moves and visits per task).

#ifndef TIMINGWHEEL_BENCHMARKS_MANUAL_IMPLS_H_
#define TIMINGWHEEL_BENCHMARKS_MANUAL_IMPLS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "benchmarks/baselines/heap_timer.h"
#include "benchmarks/baselines/hierarchical_tick_timer.h"
#include "benchmarks/baselines/round_wheel_timer.h"
#include "benchmarks/step_clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace bench {

// ManualOurs: the project's Timer on a StepClock.
class ManualOurs {
 public:
  static std::string Name() { return "timingwheel"; }

  explicit ManualOurs(int64_t wheel_size = 512,
                      absl::Duration tick = absl::Milliseconds(1)) {
    TimerOptions options;
    options.clock = &clock_;
    options.executor = &executor_;
    options.start_reaper = false;
    options.wheel_size = wheel_size;
    options.tick = tick;
    timer_ = Timer::Create(options).value();
  }

  template <typename F>
  void Fire(absl::Duration delay, F&& callback) {
    (void)timer_->Schedule(delay, std::forward<F>(callback));
  }
  void AdvanceTo(int64_t nanos) {
    clock_.Set(nanos);
    timer_->AdvanceClock(absl::ZeroDuration());
  }
  // Every task is placed once when added, and once more per cascade.
  double TouchesPerTask(int64_t tasks) const {
    const TimerMetrics metrics = timer_->Metrics();
    return static_cast<double>(metrics.added + metrics.tasks_cascaded) /
           static_cast<double>(tasks);
  }
  int Levels() const { return timer_->Metrics().levels; }
  Timer& timer() { return *timer_; }

 private:
  StepClock clock_;
  InlineExecutor executor_;
  std::unique_ptr<Timer> timer_;
};

// ManualBaseline<T>: a baseline on a StepClock, never started.
template <typename T>
class ManualBaseline {
 public:
  template <typename... Args>
  explicit ManualBaseline(Args&&... args)
      : timer_(std::make_unique<T>(std::forward<Args>(args)..., &clock_)) {}

  template <typename F>
  void Fire(absl::Duration delay, F&& callback) {
    timer_->Schedule(delay, std::forward<F>(callback));
  }
  void AdvanceTo(int64_t nanos) {
    clock_.Set(nanos);
    timer_->RunDue();
  }
  double TouchesPerTask(int64_t tasks) const {
    return static_cast<double>(timer_->touches()) / static_cast<double>(tasks);
  }
  int Levels() const { return 0; }

 private:
  StepClock clock_;
  std::unique_ptr<T> timer_;
};

struct ManualHeap : ManualBaseline<HeapTimer> {
  static std::string Name() { return "heap"; }
};
struct ManualRoundWheel : ManualBaseline<RoundWheelTimer> {
  ManualRoundWheel()
      : ManualBaseline<RoundWheelTimer>(absl::Milliseconds(1), 512) {}
  static std::string Name() { return "round-wheel-1ms"; }
};
struct ManualHierTick : ManualBaseline<HierarchicalTickTimer> {
  ManualHierTick()
      : ManualBaseline<HierarchicalTickTimer>(absl::Milliseconds(1), 512) {}
  static std::string Name() { return "hier-tick-1ms"; }
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_MANUAL_IMPLS_H_
