// Copyright 2026 The timingwheel Authors.
//
// bench_main.h
// -----------------------------------------------------------------------------
//
// The registration and main() tail the Google Benchmark binaries here share:
//
//   * `RegisterManualTime()`: registers a benchmark that times itself, with
//     one argument and a fixed iteration count, reported in milliseconds.
//   * `BenchmarkMain()`: the binaries' main(): reads `--sizes=small`,
//     registers their benchmarks, then runs what Google Benchmark's flags
//     select.

#ifndef TIMINGWHEEL_BENCHMARKS_BENCH_MAIN_H_
#define TIMINGWHEEL_BENCHMARKS_BENCH_MAIN_H_

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
#include "benchmarks/small_sizes.h"

namespace timingwheel {
namespace bench {

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

// BenchmarkMain()
//
// The main() of a benchmark binary: sets `*small_sizes` to whether
// `--sizes=small` is among the arguments (what .ci/jobs.d/benchmark-smoke
// passes), calls `register_benchmarks()` (which may read it), then hands the
// arguments to Google Benchmark, runs the benchmarks its flags select and
// shuts it down. Returns main()'s exit status.
inline int BenchmarkMain(int argc, char** argv, bool* small_sizes,
                         void (*register_benchmarks)()) {
  *small_sizes = SmallSizesRequested(argc, argv);
  register_benchmarks();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BENCH_MAIN_H_
