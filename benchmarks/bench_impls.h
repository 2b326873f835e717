// Copyright 2026 The timingwheel Authors.
//
// bench_impls.h
// -----------------------------------------------------------------------------
//
// The timers the micro benchmarks template over, each wrapped so that the
// benchmark calls it directly (no virtual call, no id map): this project's
// `Timer` through its own API (`Schedule()` with an empty lambda, the
// returned `TimerHandle` to cancel), the baselines through their concrete
// classes with an empty callback. Each wrapper is started on construction
// (threads running, real clock) unless given a `StepClock`.
//
//   * `Ours`: `Timer` with its reaper, through `Schedule()` and the handle.
//   * `OursTask`: the same `Timer` through the task API: `Add()` of a
//     `TaskPtr`, `Add()` again to move it, `Timer::Cancel(task)`.
//   * `Baseline<T>`: a baseline from baselines/.
//
// Each has `Fire(delay)` (schedule, drop the handle), `Schedule(delay)`,
// `Cancel(handle)`, `Move(handle, delay)` (make a pending timer due at a new
// time: ours moves it, a baseline cancels and schedules anew, which is what
// its users do) and `Shutdown()` (stop, and release everything pending).

#ifndef TIMINGWHEEL_BENCHMARKS_BENCH_IMPLS_H_
#define TIMINGWHEEL_BENCHMARKS_BENCH_IMPLS_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "benchmarks/baselines/asio_timer.h"
#include "benchmarks/baselines/heap_timer.h"
#include "benchmarks/baselines/hierarchical_tick_timer.h"
#include "benchmarks/baselines/lazy_heap_timer.h"
#include "benchmarks/baselines/round_wheel_timer.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace bench {

// Ours: the project's Timer (reaper and default executor running).
class Ours {
 public:
  using Handle = TimerHandle;
  static std::string Name() { return "timingwheel"; }

  Ours() : timer_(Timer::Create().value()) {}

  void Fire(absl::Duration delay) {
    // The handle is dropped: the timer keeps the task.
    (void)timer_->Schedule(delay, [] {});
  }
  Handle Schedule(absl::Duration delay) {
    return *timer_->Schedule(delay, [] {});
  }
  bool Cancel(Handle& handle) { return handle.Cancel(); }
  void Move(Handle& handle, absl::Duration delay) {
    (void)handle.Reschedule(delay);
  }
  void Shutdown() { timer_->Shutdown(); }  // Drops the returned tasks.

 private:
  std::unique_ptr<Timer> timer_;
};

// OursTask: the project's Timer through the task API.
class OursTask {
 public:
  using Handle = TaskPtr<TimerTask>;
  static std::string Name() { return "timingwheel-task"; }

  OursTask() : timer_(Timer::Create().value()) {}

  void Fire(absl::Duration delay) { (void)Schedule(delay); }
  Handle Schedule(absl::Duration delay) {
    Handle task = MakeTask<Noop>();
    (void)timer_->Add(task, delay);
    return task;
  }
  bool Cancel(Handle& handle) { return timer_->Cancel(*handle); }
  // Add() of a task pending in this timer moves it.
  void Move(Handle& handle, absl::Duration delay) {
    (void)timer_->Add(handle, delay);
  }
  void Shutdown() { timer_->Shutdown(); }

 private:
  class Noop final : public TimerTask {
   public:
    void Run() override {}
  };

  std::unique_ptr<Timer> timer_;
};

// Baseline<T>: a baseline timer (started).
template <typename T>
class Baseline {
 public:
  using Handle = TimerId;

  template <typename... Args>
  explicit Baseline(Args&&... args)
      : timer_(std::make_unique<T>(std::forward<Args>(args)...)) {
    timer_->Start();
  }

  void Fire(absl::Duration delay) {
    timer_->Schedule(delay, [] {});
  }
  Handle Schedule(absl::Duration delay) {
    return timer_->Schedule(delay, [] {});
  }
  bool Cancel(Handle handle) { return timer_->Cancel(handle); }
  void Move(Handle& handle, absl::Duration delay) {
    timer_->Cancel(handle);
    handle = timer_->Schedule(delay, [] {});
  }
  void Shutdown() { timer_.reset(); }  // Stops, then frees what is pending.

 private:
  std::unique_ptr<T> timer_;
};

// The baselines with their benchmark names and default configurations.
struct HeapBaseline : Baseline<HeapTimer> {
  static std::string Name() { return "heap"; }
};
struct LazyHeapBaseline : Baseline<LazyHeapTimer> {
  static std::string Name() { return "lazy-heap"; }
};
struct RoundWheelBaseline : Baseline<RoundWheelTimer> {
  RoundWheelBaseline() : Baseline<RoundWheelTimer>(absl::Milliseconds(1)) {}
  static std::string Name() { return "round-wheel-1ms"; }
};
struct HierTickBaseline : Baseline<HierarchicalTickTimer> {
  HierTickBaseline() : Baseline<HierarchicalTickTimer>(absl::Milliseconds(1)) {}
  static std::string Name() { return "hier-tick-1ms"; }
};
struct AsioBaseline : Baseline<AsioTimer> {
  static std::string Name() { return "asio"; }
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BENCH_IMPLS_H_
