// Copyright 2026 The timingwheel Authors.
//
// The randomized model test: thousands of add / cancel / re-add / advance
// steps from fixed seeds, applied to the real wheel and to a sorted
// reference (tests/timer/model/timer_model.h), checked after every step.

#include "tests/timer/model/timer_model.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace model {
namespace {

struct Config {
  const char* name;
  absl::Duration tick;
  int64_t wheel_size;
  int num_slots;
};

class TimerModelTest : public ::testing::TestWithParam<Config> {};

// Runs `steps` random steps from `seed`; returns the model's level count.
int RunSeed(const Config& config, uint64_t seed, int steps,
            bool allow_shutdown) {
  ModelOptions options;
  options.tick = config.tick;
  options.wheel_size = config.wheel_size;
  options.num_slots = config.num_slots;
  options.allow_shutdown = allow_shutdown;
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(static_cast<size_t>(steps) * 7);
  for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng());
  StepDecoder decoder(bytes.data(), bytes.size(), options);
  TimerModel model(options);
  Step step;
  int applied = 0;
  int max_pending = 0;
  while (decoder.Next(step)) {
    const std::string error = model.Apply(step);
    if (!error.empty()) {
      ADD_FAILURE() << config.name << " seed " << seed << " step " << applied
                    << ": " << error;
      return 0;
    }
    ++applied;
    max_pending = std::max<int>(max_pending, static_cast<int>(model.pending()));
  }
  const int levels = model.levels();
  const std::string error = model.Finish();
  EXPECT_EQ(error, "") << config.name << " seed " << seed;
  EXPECT_EQ(applied, steps);
  EXPECT_GT(model.runs(), 0) << "seed " << seed;
  EXPECT_GT(max_pending, 4) << "seed " << seed;
  return levels;
}

TEST_P(TimerModelTest, RandomStepsMatchTheReference) {
  const Config& config = GetParam();
  int max_levels = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    max_levels = std::max(max_levels, RunSeed(config, seed, 3000, false));
    if (HasFailure()) return;
  }
  // The delays reach far past level 0: several levels were exercised.
  EXPECT_GE(max_levels, 4);
}

TEST_P(TimerModelTest, RandomStepsWithShutdown) {
  const Config& config = GetParam();
  for (uint64_t seed = 100; seed < 104; ++seed) {
    RunSeed(config, seed, 2000, true);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TimerModelTest,
    ::testing::Values(Config{"10ns x 4", absl::Nanoseconds(10), 4, 32},
                      Config{"10ns x 5", absl::Nanoseconds(10), 5, 24},
                      Config{"1ns x 2", absl::Nanoseconds(1), 2, 16},
                      Config{"1ms x 8", absl::Milliseconds(1), 8, 64}),
    [](const ::testing::TestParamInfo<Config>& info) {
      return std::to_string(info.index);
    });

}  // namespace
}  // namespace model
}  // namespace timingwheel
