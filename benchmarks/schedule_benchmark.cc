// Copyright 2026 The timingwheel Authors.
//
// schedule_benchmark: what scheduling costs, ours against the baselines in
// the same run (each with its thread running on the real clock):
//
//   * BM_Schedule/N: schedule N timers (N = 10^4, 10^5, 10^6) with delays
//     uniform in [1 h, 2 h). Counters: ns_per_schedule, bytes_per_timer
//     (malloc in-use growth per pending timer, the timer's bookkeeping plus
//     the smallest callback) and rss_per_timer (resident growth), both of
//     the first iteration (later ones reuse its freed memory; run one size
//     alone, in its own process, so that no smaller size ran before it).
//     cpu_ns_per_schedule (and cpu_ns_per_add below) is the thread's CPU
//     time: on a loaded machine, wall time also counts preemption.
//   * BM_AddPremade/N: ours only, `Timer::Add()` of tasks allocated
//     beforehand: what the wheel costs without the task's allocation.
//   * BM_ScheduleCancel/P: schedule one timer then cancel it, with P timers
//     already pending (0 or 10^6). Time per iteration is ns per pair.
//   * BM_ScheduleThreads: 1, 2 and 4 producer threads scheduling into one
//     timer; items_per_second is the aggregate schedules per second
//     (producer scaling: compare 2 and 4 threads with 1).
//   * BM_Reschedule/P: ours only, `TimerHandle::Reschedule()` of one pending
//     timer (a move: no allocation), with P timers already pending. Time per
//     iteration is ns per reschedule; compare with BM_ScheduleCancel, the
//     cancel-plus-schedule it replaces.
//   * BM_CancelRearm/P: ours only, `Cancel()` then `Reschedule()` of the
//     same handle (a re-arm: no allocation either), ns per pair: the
//     cancel-plus-schedule pattern without the new task.
//   * BM_AddBatch/N: ours only, `Timer::AddBatch()` of N premade tasks in
//     batches of 1024 (one clock read and one lock per batch); ns_per_add is
//     comparable with BM_AddPremade's.
//   * BM_EmbeddedSchedule/N: ours only, `EmbeddedTimer::Schedule()` of N
//     embedded timers constructed beforehand (untimed): the cost per add of
//     a timer that lives in the user's object (no allocation, no count).
//   * BM_EmbeddedScheduleCancel/P: ours only, schedule then cancel one
//     embedded timer with P timers pending; ns per pair.
//
//   bazel run -c opt //benchmarks:schedule_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// --sizes=small shrinks every size for the CI smoke run.

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_impls.h"
#include "benchmarks/bench_main.h"
#include "benchmarks/long_delays.h"
#include "benchmarks/memory_usage.h"
#include "benchmarks/thread_cpu_time.h"
#include "timer/embedded_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace bench {
namespace {

template <typename Impl>
void BM_Schedule(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  double seconds = 0, cpu_seconds = 0, bytes = 0, rss = 0;
  bool first = true;
  for (auto _ : state) {
    auto impl = std::make_unique<Impl>();
    const int64_t malloc_before = MallocInUseBytes();
    const int64_t rss_before = ResidentBytes();
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) impl->Fire(delays[i & mask]);
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    // Only the first iteration's growth: later ones reuse what the first
    // freed (ours keeps its tasks in a process-wide pool, task_pool.h).
    if (first) {
      bytes = static_cast<double>(MallocInUseBytes() - malloc_before);
      rss = static_cast<double>(ResidentBytes() - rss_before);
      first = false;
    }
    impl.reset();
  }
  const double timers = static_cast<double>(n) * state.iterations();
  state.counters["ns_per_schedule"] = seconds * 1e9 / timers;
  state.counters["cpu_ns_per_schedule"] = cpu_seconds * 1e9 / timers;
  state.counters["bytes_per_timer"] = bytes / static_cast<double>(n);
  state.counters["rss_per_timer"] = rss / static_cast<double>(n);
  state.SetItemsProcessed(static_cast<int64_t>(timers));
  state.SetLabel(Impl::Name());
}

template <typename Impl>
void BM_ScheduleCancel(benchmark::State& state) {
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  Impl impl;
  for (int64_t i = 0; i < state.range(0); ++i) impl.Fire(delays[i & mask]);
  size_t i = 0;
  for (auto _ : state) {
    auto handle = impl.Schedule(delays[i++ & mask]);
    benchmark::DoNotOptimize(impl.Cancel(handle));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(Impl::Name());
}

template <typename Impl>
void BM_ScheduleThreads(benchmark::State& state) {
  static Impl* shared = nullptr;
  if (state.thread_index() == 0) shared = new Impl();
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  size_t i = static_cast<size_t>(state.thread_index()) * 7919;
  for (auto _ : state) shared->Fire(delays[i++ & mask]);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(Impl::Name());
  if (state.thread_index() == 0) {
    delete shared;
    shared = nullptr;
  }
}

// Iterations per size, so that each size schedules a few million in all.
struct Size {
  int64_t timers;
  int64_t iterations;
};
std::vector<Size> ScheduleSizes() {
  if (SmallSizes()) return {{1000, 2}};
  return {{10000, 100}, {100000, 10}, {1000000, 3}};
}

// BM_AddPremade/N: ours only, `Timer::Add()` of N tasks made beforehand
// (untimed): the wheel's own cost per add, without allocating the task.
void BM_AddPremade(benchmark::State& state) {
  class Noop final : public TimerTask {
   public:
    void Run() override {}
  };
  const int64_t n = state.range(0);
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  double seconds = 0, cpu_seconds = 0;
  for (auto _ : state) {
    std::unique_ptr<Timer> timer = Timer::Create().value();
    std::vector<TaskPtr<TimerTask>> tasks;
    tasks.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) tasks.push_back(MakeTask<Noop>());
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      benchmark::DoNotOptimize(timer->Add(tasks[i], delays[i & mask]));
    }
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    timer.reset();
  }
  state.counters["ns_per_add"] =
      seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.counters["cpu_ns_per_add"] =
      cpu_seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.SetLabel("timingwheel");
}

// BM_Reschedule/P: moves one pending timer to a new due time per iteration.
void BM_Reschedule(benchmark::State& state) {
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  std::unique_ptr<Timer> timer = Timer::Create().value();
  for (int64_t i = 0; i < state.range(0); ++i) {
    (void)timer->Schedule(delays[i & mask], [] {});
  }
  TimerHandle handle = timer->Schedule(delays[0], [] {}).value();
  size_t i = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(handle.Reschedule(delays[i++ & mask]));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("timingwheel");
}

// BM_CancelRearm/P: cancels one timer and re-arms the same handle.
void BM_CancelRearm(benchmark::State& state) {
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  std::unique_ptr<Timer> timer = Timer::Create().value();
  for (int64_t i = 0; i < state.range(0); ++i) {
    (void)timer->Schedule(delays[i & mask], [] {});
  }
  TimerHandle handle = timer->Schedule(delays[0], [] {}).value();
  size_t i = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(handle.Cancel());
    benchmark::DoNotOptimize(handle.Reschedule(delays[i++ & mask]));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("timingwheel");
}

// BM_AddBatch/N: as BM_AddPremade, through AddBatch() in batches of 1024.
void BM_AddBatch(benchmark::State& state) {
  class Noop final : public TimerTask {
   public:
    void Run() override {}
  };
  constexpr size_t kBatch = 1024;
  const int64_t n = state.range(0);
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  double seconds = 0, cpu_seconds = 0;
  for (auto _ : state) {
    std::unique_ptr<Timer> timer = Timer::Create().value();
    std::vector<TimerBatchEntry> entries;
    entries.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      entries.push_back({MakeTask<Noop>(), delays[i & mask]});
    }
    const absl::Span<const TimerBatchEntry> all(entries);
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < all.size(); i += kBatch) {
      benchmark::DoNotOptimize(timer->AddBatch(all.subspan(i, kBatch)));
    }
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    timer.reset();
  }
  state.counters["ns_per_add"] =
      seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.counters["cpu_ns_per_add"] =
      cpu_seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.SetLabel("timingwheel");
}

// An embedded timer with nothing to do.
class NoopEmbedded final : public EmbeddedTimer {
 public:
  ~NoopEmbedded() override { Cancel(); }

 private:
  void OnTimer() override {}
};

// BM_EmbeddedSchedule/N: ours only, `EmbeddedTimer::Schedule()` of N
// embedded timers constructed beforehand (untimed), as they would live in
// the user's objects.
void BM_EmbeddedSchedule(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  double seconds = 0, cpu_seconds = 0;
  for (auto _ : state) {
    std::unique_ptr<Timer> timer = Timer::Create().value();
    std::unique_ptr<NoopEmbedded[]> timers(new NoopEmbedded[n]);
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      benchmark::DoNotOptimize(timers[i].Schedule(*timer, delays[i & mask]));
    }
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    timer.reset();  // First: the embedded timers then go without a cancel.
  }
  state.counters["ns_per_add"] =
      seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.counters["cpu_ns_per_add"] =
      cpu_seconds * 1e9 / (static_cast<double>(n) * state.iterations());
  state.SetLabel("timingwheel");
}

// BM_EmbeddedScheduleCancel/P: ours only, schedule then cancel one embedded
// timer with P (counted) timers already pending.
void BM_EmbeddedScheduleCancel(benchmark::State& state) {
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  std::unique_ptr<Timer> timer = Timer::Create().value();
  for (int64_t i = 0; i < state.range(0); ++i) {
    (void)timer->Schedule(delays[i & mask], [] {});
  }
  NoopEmbedded embedded;
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(embedded.Schedule(*timer, delays[i++ & mask]));
    benchmark::DoNotOptimize(embedded.Cancel());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("timingwheel");
}

void CancelSizes(benchmark::internal::Benchmark* b) {
  if (SmallSizes()) {
    b->Arg(0)->Iterations(1000);
    return;
  }
  b->Arg(0)->Arg(1000000);
}

void ThreadCounts(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->Iterations(SmallSizes() ? 1000 : 300000);
  b->Threads(1)->Threads(2)->Threads(4);
}

template <typename Impl>
void RegisterAll() {
  const std::string name = Impl::Name();
  for (const Size& size : ScheduleSizes()) {
    RegisterManualTime("BM_Schedule/" + name, BM_Schedule<Impl>, size.timers,
                       size.iterations);
  }
  benchmark::RegisterBenchmark(("BM_ScheduleCancel/" + name).c_str(),
                               BM_ScheduleCancel<Impl>)
      ->Apply(CancelSizes);
  benchmark::RegisterBenchmark(("BM_ScheduleThreads/" + name).c_str(),
                               BM_ScheduleThreads<Impl>)
      ->Apply(ThreadCounts);
}

}  // namespace

// Called by //benchmarks:bench_main's main().
void RegisterBenchmarks() {
  RegisterAll<Ours>();
  for (const Size& size : ScheduleSizes()) {
    RegisterManualTime("BM_AddPremade/timingwheel", BM_AddPremade, size.timers,
                       size.iterations);
    RegisterManualTime("BM_AddBatch/timingwheel", BM_AddBatch, size.timers,
                       size.iterations);
  }
  benchmark::RegisterBenchmark("BM_Reschedule/timingwheel", BM_Reschedule)
      ->Apply(CancelSizes);
  benchmark::RegisterBenchmark("BM_CancelRearm/timingwheel", BM_CancelRearm)
      ->Apply(CancelSizes);
  for (const Size& size : ScheduleSizes()) {
    RegisterManualTime("BM_EmbeddedSchedule/timingwheel", BM_EmbeddedSchedule,
                       size.timers, size.iterations);
  }
  benchmark::RegisterBenchmark("BM_EmbeddedScheduleCancel/timingwheel",
                               BM_EmbeddedScheduleCancel)
      ->Apply(CancelSizes);
  RegisterAll<HeapBaseline>();
  RegisterAll<RoundWheelBaseline>();
  RegisterAll<HierTickBaseline>();
  RegisterAll<AsioBaseline>();
}

}  // namespace bench
}  // namespace timingwheel
