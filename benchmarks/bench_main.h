// Copyright 2026 The timingwheel Authors.
//
// bench_main.h
// -----------------------------------------------------------------------------
//
// What the Google Benchmark binaries here share. Linking
// //benchmarks:bench_main gives a binary its main(), which reads
// `--sizes=small`, calls the binary's `RegisterBenchmarks()`, then runs what
// Google Benchmark's flags select:
//
//   * `RegisterBenchmarks()`: defined by each binary; registers its benchmarks.
//   * `SmallSizes()`: whether the binary was asked for its tiny sizes.
//   * `RegisterManualTime()`: registers a benchmark that times itself, with
//     one argument and a fixed iteration count, reported in milliseconds.

#ifndef TIMINGWHEEL_BENCHMARKS_BENCH_MAIN_H_
#define TIMINGWHEEL_BENCHMARKS_BENCH_MAIN_H_

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"

namespace timingwheel {
namespace bench {

// RegisterBenchmarks()
//
// Registers every benchmark of the binary (with
// `benchmark::RegisterBenchmark()`). Each binary that links
// //benchmarks:bench_main defines it; main() calls it once, after
// `SmallSizes()` is known and before Google Benchmark reads its flags.
void RegisterBenchmarks();

// SmallSizes()
//
// Returns whether `--sizes=small` is among the binary's arguments (what
// .ci/jobs.d/benchmark-smoke passes so that every benchmark runs in
// seconds). Known from the time `RegisterBenchmarks()` is called.
bool SmallSizes();

// RegisterManualTime()
//
// Registers `function` (a `void(benchmark::State&)`) as `name` with argument
// `arg`, run exactly `iterations` times per repetition. The benchmark times
// itself (`State::SetIterationTime()`); its time is reported in
// milliseconds. Returns the registration, for further settings.
template <typename Function>
benchmark::internal::Benchmark* RegisterManualTime(const std::string& name,
                                                   Function function,
                                                   int64_t arg,
                                                   int64_t iterations) {
  return benchmark::RegisterBenchmark(name.c_str(), function)
      ->Arg(arg)
      ->Iterations(iterations)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BENCH_MAIN_H_
