// Copyright 2026 The timingwheel Authors.
//
// long_delays.h
// -----------------------------------------------------------------------------
//
// `LongDelays()`: the delays the scheduling micro benchmarks add timers
// with, uniform in [1 h, 2 h) (so nothing fires during a run), the same
// sequence for every timer compared.

#ifndef TIMINGWHEEL_BENCHMARKS_LONG_DELAYS_H_
#define TIMINGWHEEL_BENCHMARKS_LONG_DELAYS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/time/time.h"

namespace timingwheel {
namespace bench {

// LongDelays()
//
// Returns 2^20 delays uniform in [1 h, 2 h) from a fixed seed; index them
// with `i & (LongDelays().size() - 1)`. Thread-safe.
inline const std::vector<absl::Duration>& LongDelays() {
  static const std::vector<absl::Duration>* const delays = [] {
    auto* out = new std::vector<absl::Duration>();
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int64_t> dist(0, 3600LL * 1000000000 - 1);
    for (int i = 0; i < (1 << 20); ++i) {
      out->push_back(absl::Hours(1) + absl::Nanoseconds(dist(rng)));
    }
    return out;
  }();
  return *delays;
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_LONG_DELAYS_H_
