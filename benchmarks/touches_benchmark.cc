// Copyright 2026 The timingwheel Authors.
//
// touches_benchmark: how many times each task is placed, moved or visited
// before it runs. 200,000 timers of 30 minutes, added 1,000 per millisecond
// over the first 200 ms, at a 1 ms tick, advanced 1 ms at a time to
// completion on a step clock. Counter touches_per_task (ours: one placement
// plus one per cascade, from the timer's metrics; the round wheel: one
// placement plus one visit per revolution; the fixed-tick hierarchical
// wheel: one placement plus one per cascade), and ns_per_task for the whole
// drive. Ours is also run at other wheel sizes, to show why 512.
//
//   bazel run -c opt //benchmarks:touches_benchmark

#include <chrono>
#include <cstdint>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_main.h"
#include "benchmarks/manual_impls.h"

namespace timingwheel {
namespace bench {
namespace {

template <typename Impl, typename... Args>
void BM_Touches(benchmark::State& state, Args... args) {
  const int64_t n = SmallSizes() ? 2000 : 200000;
  const absl::Duration delay =
      SmallSizes() ? absl::Seconds(30) : absl::Minutes(30);
  constexpr int64_t kStep = 1000000;  // 1 ms.
  constexpr int64_t kPerStep = 1000;
  double touches = 0;
  int levels = 0;
  for (auto _ : state) {
    Impl impl(args...);
    int64_t fired = 0;
    const auto start = std::chrono::steady_clock::now();
    int64_t t = 0;
    for (int64_t added = 0; added < n;) {
      for (int64_t k = 0; k < kPerStep && added < n; ++k, ++added) {
        impl.Fire(delay, [&fired] { ++fired; });
      }
      t += kStep;
      impl.AdvanceTo(t);
    }
    const int64_t end = t + absl::ToInt64Nanoseconds(delay) + 2 * kStep;
    while (t < end) {
      t += kStep;
      impl.AdvanceTo(t);
    }
    const auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    if (fired != n) state.SkipWithError("not every timer fired");
    touches = impl.TouchesPerTask(n);
    levels = impl.Levels();
  }
  state.counters["touches_per_task"] = touches;
  state.counters["ns_per_task"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (levels > 0) state.counters["levels"] = levels;
  state.SetLabel(Impl::Name());
}

void Configure(benchmark::internal::Benchmark* b) {
  b->Iterations(1)->Repetitions(1)->UseManualTime()->Unit(
      benchmark::kMillisecond);
}

}  // namespace

// Called by //benchmarks:bench_main's main().
void RegisterBenchmarks() {
  for (int64_t wheel_size : {64, 256, 512, 4096}) {
    benchmark::RegisterBenchmark(
        ("BM_Touches/timingwheel/wheel_size:" + std::to_string(wheel_size))
            .c_str(),
        [wheel_size](benchmark::State& state) {
          BM_Touches<ManualOurs>(state, wheel_size, absl::Milliseconds(1));
        })
        ->Apply(Configure);
  }
  benchmark::RegisterBenchmark("BM_Touches/round-wheel-1ms/wheel_size:512",
                               BM_Touches<ManualRoundWheel>)
      ->Apply(Configure);
  benchmark::RegisterBenchmark("BM_Touches/hier-tick-1ms/wheel_size:512",
                               BM_Touches<ManualHierTick>)
      ->Apply(Configure);
}

}  // namespace bench
}  // namespace timingwheel
