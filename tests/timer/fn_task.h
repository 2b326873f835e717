// Copyright 2026 The timingwheel Authors.
//
// fn_task.h
// -----------------------------------------------------------------------------
//
// `FnTask`: a `TimerTask` whose `Run()` calls a function, for tests that
// need a task object of their own (`MakeTask<FnTask>(...)`, `Timer::Add()`)
// rather than `Schedule()`'s. Not thread-safe beyond what `TimerTask` is.

#ifndef TIMINGWHEEL_TESTS_TIMER_FN_TASK_H_
#define TIMINGWHEEL_TESTS_TIMER_FN_TASK_H_

#include <functional>
#include <utility>

#include "timer/timer_task.h"

namespace timingwheel {
namespace testing {

// FnTask
//
// A task that calls `fn` each time it runs.
class FnTask final : public TimerTask {
 public:
  explicit FnTask(std::function<void()> fn) : fn_(std::move(fn)) {}
  void Run() override { fn_(); }

 private:
  std::function<void()> fn_;
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_TIMER_FN_TASK_H_
