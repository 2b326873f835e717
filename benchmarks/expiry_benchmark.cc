// Copyright 2026 The timingwheel Authors.
//
// expiry_benchmark: what expiring costs, on a step clock (no timer thread;
// ours runs callbacks inline), ours against the baselines. Only the driving
// is timed: counter ns_per_expired.
//
//   * BM_Expiry/<impl>/1000000: 10^6 timers with delays uniform in [0, 1 s]
//     driven to completion 1 ms at a time.
//   * BM_FlushOneTick/<impl>/200000: 200,000 timers due in the same 1 ms
//     tick, flushed by one advance (Time is ms per flush).
//
// Lateness with the real clock is a separate run:
// //benchmarks:expiry_lateness.
//
//   bazel run -c opt //benchmarks:expiry_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_main.h"
#include "benchmarks/manual_impls.h"
#include "benchmarks/thread_cpu_time.h"

namespace timingwheel {
namespace bench {
namespace {

// TimeDriving: per iteration, fires `delays` into a fresh `Impl` at clock 0
// (untimed), then times advancing its step clock to each of `times` (nanos).
// Fails the benchmark unless every timer fired. Reports ns_per_expired (wall)
// and cpu_ns_per_expired (the thread's CPU time).
template <typename Impl>
void TimeDriving(benchmark::State& state,
                 const std::vector<absl::Duration>& delays,
                 const std::vector<int64_t>& times) {
  const int64_t n = static_cast<int64_t>(delays.size());
  double seconds = 0, cpu_seconds = 0;
  int64_t fired = 0;
  for (auto _ : state) {
    Impl impl;
    int64_t count = 0;
    for (const absl::Duration& delay : delays) {
      impl.Fire(delay, [&count] { ++count; });
    }
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (const int64_t t : times) impl.AdvanceTo(t);
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    fired += count;
    if (count != n) state.SkipWithError("not every timer fired");
  }
  state.counters["ns_per_expired"] = seconds * 1e9 / static_cast<double>(fired);
  state.counters["cpu_ns_per_expired"] =
      cpu_seconds * 1e9 / static_cast<double>(fired);
  state.SetItemsProcessed(fired);
  state.SetLabel(Impl::Name());
}

// BM_Expiry/N: delays uniform in [0, 1 s], driven 1 ms at a time.
template <typename Impl>
void BM_Expiry(benchmark::State& state) {
  constexpr int64_t kSpan = 1000000000;  // 1 s.
  constexpr int64_t kStep = 1000000;     // 1 ms.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(0, kSpan);
  std::vector<absl::Duration> delays;
  for (int64_t i = 0; i < state.range(0); ++i) {
    delays.push_back(absl::Nanoseconds(dist(rng)));
  }
  std::vector<int64_t> times;
  for (int64_t t = kStep; t <= kSpan + kStep; t += kStep) times.push_back(t);
  TimeDriving<Impl>(state, delays, times);
}

// BM_FlushOneTick/N: N timers all due at 5 ms (one bucket of our 1 ms
// tick), flushed by one advance to 6 ms.
template <typename Impl>
void BM_FlushOneTick(benchmark::State& state) {
  const std::vector<absl::Duration> delays(static_cast<size_t>(state.range(0)),
                                           absl::Milliseconds(5));
  TimeDriving<Impl>(state, delays, {6000000});
}

template <typename Impl>
void Register() {
  RegisterManualTime("BM_Expiry/" + Impl::Name(), BM_Expiry<Impl>,
                     SmallSizes() ? 10000 : 1000000, SmallSizes() ? 1 : 2);
  RegisterManualTime("BM_FlushOneTick/" + Impl::Name(), BM_FlushOneTick<Impl>,
                     SmallSizes() ? 2000 : 200000, SmallSizes() ? 1 : 3);
}

}  // namespace

// Called by //benchmarks:bench_main's main().
void RegisterBenchmarks() {
  Register<ManualOurs>();
  Register<ManualHeap>();
  Register<ManualRoundWheel>();
  Register<ManualHierTick>();
}

}  // namespace bench
}  // namespace timingwheel
