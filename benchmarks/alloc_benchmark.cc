// Copyright 2026 The timingwheel Authors.
//
// alloc_benchmark: the schedule path with the allocation and producer
// levers (task pool, producer inboxes), beside the heap baseline in the
// same run (each on the real clock with its thread running):
//
//   * BM_ScheduleMillion/<impl>: schedule 10^6 timers (delays uniform in
//     [1 h, 2 h)) into a fresh timer; ns_per_schedule. "timingwheel" is the
//     default timer, "timingwheel_reserved" one created with
//     `TimerOptions::expected_pending = 10^6` (pages faulted at Create(),
//     untimed), "heap" the std::priority_queue baseline.
//   * BM_ReAdd: `Timer::Add()` of a pre-made task that is pending already
//     (a move: no allocation), with 10^6 timers pending; ns per re-add.
//   * BM_ProducersOwnTimer/threads:T: T threads, each scheduling into a
//     timer of its own: the most that shards with their own locks could
//     give (no lock or cache line shared between the producers);
//     items_per_second is the aggregate schedules per second. T threads
//     sharing one timer are schedule_benchmark's `BM_ScheduleThreads`
//     (same delays, iterations and thread counts).
//
//   bazel run -c opt //benchmarks:alloc_benchmark --
//       --benchmark_repetitions=5 --benchmark_display_aggregates_only=true
//
// --sizes=small shrinks every size for the CI smoke run.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_impls.h"
#include "benchmarks/bench_main.h"
#include "benchmarks/long_delays.h"
#include "timer/timer.h"

namespace timingwheel {
namespace bench {
namespace {

int64_t Timers() { return SmallSizes() ? 1000 : 1000000; }

// Ours with room reserved for every timer the benchmark schedules.
class OursReserved {
 public:
  static std::string Name() { return "timingwheel_reserved"; }
  OursReserved() {
    TimerOptions options;
    options.expected_pending = Timers();
    timer_ = Timer::Create(options).value();
  }
  void Fire(absl::Duration delay) {
    (void)timer_->Schedule(delay, [] {});
  }

 private:
  std::unique_ptr<Timer> timer_;
};

template <typename Impl>
void BM_ScheduleMillion(benchmark::State& state) {
  const int64_t n = Timers();
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  double seconds = 0;
  for (auto _ : state) {
    auto impl = std::make_unique<Impl>();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) impl->Fire(delays[i & mask]);
    const auto stop = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    impl.reset();
  }
  state.counters["ns_per_schedule"] =
      seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.SetLabel(Impl::Name());
}

void BM_ReAdd(benchmark::State& state) {
  class Noop final : public TimerTask {
   public:
    void Run() override {}
  };
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  std::unique_ptr<Timer> timer = Timer::Create().value();
  for (int64_t i = 0; i < Timers(); ++i) {
    (void)timer->Schedule(delays[i & mask], [] {});
  }
  std::vector<TaskPtr<TimerTask>> tasks;
  for (int i = 0; i < 1024; ++i) {
    tasks.push_back(MakeTask<Noop>());
    (void)timer->Add(tasks.back(), delays[i]);
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(timer->Add(tasks[i & 1023], delays[i & mask]));
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("timingwheel");
}

void BM_ProducersOwnTimer(benchmark::State& state) {
  Ours own;
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  size_t i = static_cast<size_t>(state.thread_index()) * 7919;
  for (auto _ : state) own.Fire(delays[i++ & mask]);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("timingwheel");
}

template <typename Impl>
void Register() {
  const std::string name = Impl::Name();
  benchmark::RegisterBenchmark(("BM_ScheduleMillion/" + name).c_str(),
                               BM_ScheduleMillion<Impl>)
      ->Iterations(SmallSizes() ? 1 : 3)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

// Called by //benchmarks:bench_main's main().
void RegisterBenchmarks() {
  Register<Ours>();
  Register<OursReserved>();
  Register<HeapBaseline>();
  benchmark::RegisterBenchmark("BM_ReAdd/timingwheel", BM_ReAdd)
      ->Iterations(SmallSizes() ? 1000 : 3000000);
  benchmark::RegisterBenchmark("BM_ProducersOwnTimer/timingwheel",
                               BM_ProducersOwnTimer)
      ->UseRealTime()
      ->Iterations(SmallSizes() ? 1000 : 300000)
      ->Threads(1)
      ->Threads(2)
      ->Threads(4);
}

}  // namespace bench
}  // namespace timingwheel
