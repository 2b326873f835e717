// Copyright 2026 The timingwheel Authors.
//
// make_timers.h
// -----------------------------------------------------------------------------
//
// `MakeTimer()`: builds any timer the benchmarks compare from its name, so
// every benchmark binary takes the same `--impls` list.
//
//   timingwheel        this project's Timer with its reaper
//   heap               baseline 1: indexed binary heap, thread sleeps to the
//                      earliest deadline
//   round-wheel-1ms    baseline 2: Netty-style 512-slot round wheel, 1 ms tick
//   round-wheel-100ms  baseline 2: the same, 100 ms tick
//   hier-tick-1ms      baseline 3: hierarchical wheel, fixed 1 ms tick
//   kafka-poll-200ms   baseline 4: our wheel, Kafka's AdvanceClock(200 ms) loop
//   asio               baseline 5: Boost.Asio steady_timer on one io_context

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_MAKE_TIMERS_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_MAKE_TIMERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmarks/baselines/timer_under_test.h"

namespace timingwheel {
namespace bench {

// AllTimerNames()
//
// Every name `MakeTimer()` accepts, ours first.
std::vector<std::string> AllTimerNames();

// MakeTimer()
//
// Returns the timer named `name` (not started), or InvalidArgument.
absl::StatusOr<std::unique_ptr<TimerUnderTest>> MakeTimer(
    const std::string& name);

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_MAKE_TIMERS_H_
