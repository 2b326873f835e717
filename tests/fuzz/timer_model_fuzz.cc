// Copyright 2026 The timingwheel Authors.
//
// A libFuzzer target for Timer: the input's first byte picks the wheel's
// shape, the rest decode into add / cancel / advance / shutdown steps
// (tests/timer/model/timer_model.h) that run on the real wheel and on a
// sorted reference; any disagreement after any step aborts. Built and run by
// tests/fuzz/build.sh and .ci/jobs.d/fuzz-timer-model.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/time/time.h"
#include "tests/timer/model/timer_model.h"

namespace {

using ::timingwheel::model::ModelOptions;
using ::timingwheel::model::Step;
using ::timingwheel::model::StepDecoder;
using ::timingwheel::model::TimerModel;

void Fail(const std::string& error, int step) {
  std::fprintf(stderr, "timer model mismatch at step %d: %s\n", step,
               error.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static constexpr int64_t kTickNanos[] = {1, 10, 1'000'000};
  static constexpr int64_t kWheelSizes[] = {2, 3, 4, 5, 8, 16};
  ModelOptions options;
  options.tick = absl::Nanoseconds(kTickNanos[data[0] % 3]);
  options.wheel_size = kWheelSizes[(data[0] / 3) % 6];
  options.num_slots = 16;
  options.allow_shutdown = true;
  StepDecoder decoder(data + 1, size - 1, options);
  TimerModel model(options);
  Step step;
  int steps = 0;
  while (decoder.Next(step)) {
    const std::string error = model.Apply(step);
    if (!error.empty()) Fail(error, steps);
    ++steps;
  }
  const std::string error = model.Finish();
  if (!error.empty()) Fail(error, steps);
  return 0;
}
