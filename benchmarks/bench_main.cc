// Copyright 2026 The timingwheel Authors.
//
// The main() of the Google Benchmark binaries (see bench_main.h).

#include "benchmarks/bench_main.h"

#include "benchmark/benchmark.h"
#include "benchmarks/small_sizes.h"

namespace timingwheel {
namespace bench {
namespace {

bool small_sizes = false;  // Set once, before any benchmark is registered.

}  // namespace

bool SmallSizes() { return small_sizes; }

}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) {
  timingwheel::bench::small_sizes =
      timingwheel::bench::SmallSizesRequested(argc, argv);
  timingwheel::bench::RegisterBenchmarks();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
