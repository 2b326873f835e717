// Copyright 2026 The timingwheel Authors.
//
// expiry_benchmark: what expiring costs. N = 10^6 timers with delays uniform
// in [0, 1 s] are driven to completion on a step clock advanced 1 ms at a
// time (no timer thread; ours runs callbacks inline), ours against the
// baselines. Only the driving is timed: counter ns_per_expired. Lateness
// with the real clock is a separate run: //benchmarks:expiry_lateness.
//
//   bazel run -c opt //benchmarks:expiry_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "benchmarks/manual_impls.h"
#include "benchmarks/small_sizes.h"

namespace timingwheel {
namespace bench {
namespace {

bool small_sizes = false;

template <typename Impl>
void BM_Expiry(benchmark::State& state) {
  const int64_t n = state.range(0);
  constexpr int64_t kSpan = 1000000000;  // 1 s.
  constexpr int64_t kStep = 1000000;     // 1 ms.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(0, kSpan);
  std::vector<absl::Duration> delays;
  for (int64_t i = 0; i < n; ++i)
    delays.push_back(absl::Nanoseconds(dist(rng)));
  double seconds = 0;
  int64_t fired = 0;
  for (auto _ : state) {
    Impl impl;
    int64_t count = 0;
    for (const absl::Duration& delay : delays) {
      impl.Fire(delay, [&count] { ++count; });
    }
    const auto start = std::chrono::steady_clock::now();
    for (int64_t t = kStep; t <= kSpan + kStep; t += kStep) impl.AdvanceTo(t);
    const auto stop = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    fired += count;
    if (count != n) state.SkipWithError("not every timer fired");
  }
  state.counters["ns_per_expired"] = seconds * 1e9 / static_cast<double>(fired);
  state.SetItemsProcessed(fired);
  state.SetLabel(Impl::Name());
}

template <typename Impl>
void Register() {
  benchmark::RegisterBenchmark(("BM_Expiry/" + Impl::Name()).c_str(),
                               BM_Expiry<Impl>)
      ->Arg(small_sizes ? 10000 : 1000000)
      ->Iterations(small_sizes ? 1 : 2)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) {
  using namespace timingwheel::bench;  // NOLINT(build/namespaces)
  small_sizes = SmallSizesRequested(argc, argv);
  Register<ManualOurs>();
  Register<ManualHeap>();
  Register<ManualRoundWheel>();
  Register<ManualHierTick>();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
