// Copyright 2026 The timingwheel Authors.
//
// small_sizes.h
// -----------------------------------------------------------------------------
//
// `SmallSizesRequested()`: whether a Google Benchmark binary was asked for
// its tiny sizes (`--sizes=small`, what .ci/jobs.d/benchmark-smoke passes so
// that every benchmark runs in seconds).

#ifndef TIMINGWHEEL_BENCHMARKS_SMALL_SIZES_H_
#define TIMINGWHEEL_BENCHMARKS_SMALL_SIZES_H_

#include <cstring>

namespace timingwheel {
namespace bench {

// SmallSizesRequested()
//
// Returns whether `--sizes=small` is among the command-line arguments.
inline bool SmallSizesRequested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--sizes=small") == 0) return true;
  }
  return false;
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_SMALL_SIZES_H_
