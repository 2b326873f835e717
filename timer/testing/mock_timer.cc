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
  const int64_t expired_before = timer_->Metrics().expired;
  // One flush empties everything due at a frozen clock, so a flush that
  // hands nothing over is never followed by another unless callbacks added
  // work. A timer that keeps reporting flushes that do nothing would spin
  // here forever: fail instead.
  int idle_flushes = 0;
  for (;;) {
    const bool flushed = timer_->AdvanceClock(absl::ZeroDuration());
    // The timer hands over batches of tasks: count tasks, not callbacks.
    const size_t batches = executor_.RunAll();
    if (!flushed && batches == 0) break;
    idle_flushes = batches == 0 ? idle_flushes + 1 : 0;
    if (idle_flushes > 2) {
      std::fprintf(stderr,
                   "MockTimer: AdvanceClock() keeps reporting flushes that "
                   "hand nothing over (a broken timer)\n");
      std::abort();
    }
  }
  return static_cast<size_t>(timer_->Metrics().expired - expired_before);
}

}  // namespace testing
}  // namespace timingwheel
