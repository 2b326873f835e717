// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/make_timers.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmarks/baselines/asio_timer.h"
#include "benchmarks/baselines/heap_timer.h"
#include "benchmarks/baselines/hierarchical_tick_timer.h"
#include "benchmarks/baselines/round_wheel_timer.h"
#include "benchmarks/baselines/timingwheel_timer.h"

namespace timingwheel {
namespace bench {

std::vector<std::string> AllTimerNames() {
  return {"timingwheel",
          "heap",
          "round-wheel-1ms",
          "round-wheel-100ms",
          "hier-tick-1ms",
          "kafka-poll-200ms",
          "asio"};
}

absl::StatusOr<std::unique_ptr<TimerUnderTest>> MakeTimer(
    const std::string& name) {
  if (name == "timingwheel") {
    return std::make_unique<TimingwheelTimer>(TimingwheelTimer::Mode::kReaper);
  }
  if (name == "heap") return std::make_unique<HeapTimer>();
  if (name == "round-wheel-1ms") {
    return std::make_unique<RoundWheelTimer>(absl::Milliseconds(1));
  }
  if (name == "round-wheel-100ms") {
    return std::make_unique<RoundWheelTimer>(absl::Milliseconds(100));
  }
  if (name == "hier-tick-1ms") {
    return std::make_unique<HierarchicalTickTimer>(absl::Milliseconds(1));
  }
  if (name == "kafka-poll-200ms") {
    return std::make_unique<TimingwheelTimer>(TimingwheelTimer::Mode::kPoll,
                                              absl::Milliseconds(200));
  }
  if (name == "asio") return std::make_unique<AsioTimer>();
  return absl::InvalidArgumentError(
      absl::StrCat("unknown timer '", name,
                   "'; known: ", absl::StrJoin(AllTimerNames(), ",")));
}

}  // namespace bench
}  // namespace timingwheel
