// Copyright 2026 The timingwheel Authors.

#include "timer/testing/mock_timer.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace timingwheel {
namespace testing {

MockTimer::MockTimer(TimerOptions options) {
  options.clock = &clock_;
  options.executor = &executor_;
  options.start_reaper = false;
  absl::StatusOr<std::unique_ptr<Timer>> timer = Timer::Create(options);
  if (!timer.ok()) {
    std::fprintf(stderr, "MockTimer: %s\n", timer.status().ToString().c_str());
    std::abort();
  }
  timer_ = std::move(timer).value();
}

size_t MockTimer::AdvanceBy(absl::Duration delta) {
  clock_.AdvanceBy(delta);
  size_t ran = 0;
  for (;;) {
    const bool flushed = timer_->AdvanceClock(absl::ZeroDuration());
    const size_t now_ran = executor_.RunAll();
    ran += now_ran;
    if (!flushed && now_ran == 0) return ran;
  }
}

}  // namespace testing
}  // namespace timingwheel
