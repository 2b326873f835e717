// Copyright 2026 The timingwheel Authors.
//
// ProbeTask: a task that counts its runs, its cancellation notifications
// and its destruction, for tests of who ends a scheduling and when.

#ifndef TIMINGWHEEL_TESTS_TIMER_PROBE_TASK_H_
#define TIMINGWHEEL_TESTS_TIMER_PROBE_TASK_H_

#include <atomic>

#include "timer/timer_task.h"

namespace timingwheel {
namespace testing {

class ProbeTask final : public TimerTask {
 public:
  struct Counts {
    std::atomic<int> runs{0};
    std::atomic<int> cancelled{0};
    std::atomic<int> destroyed{0};
  };
  explicit ProbeTask(Counts* counts) : counts_(counts) {}
  ~ProbeTask() override { counts_->destroyed.fetch_add(1); }
  void Run() override { counts_->runs.fetch_add(1); }
  void OnCancelled() override { counts_->cancelled.fetch_add(1); }

 private:
  Counts* const counts_;
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_TIMER_PROBE_TASK_H_
