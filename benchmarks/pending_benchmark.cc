// Copyright 2026 The timingwheel Authors.
//
// pending_benchmark: what operations on a large pending set cost when the
// timers they touch are cache-cold, ours against the heap baselines in the
// same run (each with its thread running on the real clock). P timers
// (P = 10^5, 10^6) are scheduled with delays uniform in [1 h, 2 h)
// (untimed); then one operation per pending timer is timed, visiting the
// timers either in insertion order ("insertion") or in a shuffled order
// from a fixed seed ("random", the idle-timeout traffic of a server):
//
//   * BM_Cancel/<impl>/<order>/P: cancel each. ns per cancel.
//   * BM_Move/<impl>/<order>/P: make each due at a new delay in [1 h, 2 h):
//     ours moves it (`TimerHandle::Reschedule()`, or `Timer::Add()` of the
//     pending task for timingwheel-task); a baseline cancels and schedules
//     anew, the move its users have. ns per move.
//   * BM_ScheduleCancelPair/<impl>/<order>/P: schedule a new timer, then
//     cancel the visited old one (the pending count stays P). ns per pair.
//   * BM_Shutdown/<impl>/P: stop the timer with P pending and release them
//     all (ours: `Timer::Shutdown()`, whose returned tasks are dropped; a
//     baseline: its destructor). ms.
//
// Impls: timingwheel (handle API), timingwheel-task (task API), heap
// (indexed heap, O(log n) cancel) and lazy-heap (cancel marks the entry).
//
//   bazel run -c opt //benchmarks:pending_benchmark --
//       --benchmark_repetitions=5 --benchmark_display_aggregates_only=true
//
// --sizes=small shrinks every size for the CI smoke run.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_impls.h"
#include "benchmarks/bench_main.h"
#include "benchmarks/long_delays.h"
#include "benchmarks/thread_cpu_time.h"

namespace timingwheel {
namespace bench {
namespace {

enum class Order { kInsertion, kRandom };

const char* OrderName(Order order) {
  return order == Order::kInsertion ? "insertion" : "random";
}

// The visiting order of `p` pending timers: 0..p-1, or shuffled (seed 12).
std::vector<size_t> VisitOrder(size_t p, Order order) {
  std::vector<size_t> visit(p);
  std::iota(visit.begin(), visit.end(), size_t{0});
  if (order == Order::kRandom) {
    std::mt19937_64 rng(12);
    std::shuffle(visit.begin(), visit.end(), rng);
  }
  return visit;
}

// TimeOverPending: per iteration, schedules state.range(0) timers into a
// fresh `Impl` (untimed), then times `op(impl, handle, delay)` once per
// pending timer in `order`, `delay` a fresh long delay. Reports ns_per_op
// (wall) and cpu_ns_per_op (the thread's CPU time).
template <typename Impl, typename Op>
void TimeOverPending(benchmark::State& state, Order order, Op op) {
  const size_t p = static_cast<size_t>(state.range(0));
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  const std::vector<size_t> visit = VisitOrder(p, order);
  double seconds = 0, cpu_seconds = 0;
  for (auto _ : state) {
    auto impl = std::make_unique<Impl>();
    std::vector<typename Impl::Handle> handles;
    handles.reserve(p);
    for (size_t i = 0; i < p; ++i) {
      handles.push_back(impl->Schedule(delays[i & mask]));
    }
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (size_t k = 0; k < p; ++k) {
      op(*impl, handles[visit[k]], delays[(p + k) & mask]);
    }
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    const double elapsed = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    impl.reset();
  }
  const double ops = static_cast<double>(p) * state.iterations();
  state.counters["ns_per_op"] = seconds * 1e9 / ops;
  state.counters["cpu_ns_per_op"] = cpu_seconds * 1e9 / ops;
  state.SetItemsProcessed(static_cast<int64_t>(ops));
  state.SetLabel(std::string(Impl::Name()) + " " + OrderName(order));
}

template <typename Impl>
void BM_Cancel(benchmark::State& state, Order order) {
  TimeOverPending<Impl>(
      state, order,
      [](Impl& impl, typename Impl::Handle& handle, absl::Duration) {
        benchmark::DoNotOptimize(impl.Cancel(handle));
      });
}

template <typename Impl>
void BM_Move(benchmark::State& state, Order order) {
  TimeOverPending<Impl>(state, order,
                        [](Impl& impl, typename Impl::Handle& handle,
                           absl::Duration delay) { impl.Move(handle, delay); });
}

template <typename Impl>
void BM_ScheduleCancelPair(benchmark::State& state, Order order) {
  TimeOverPending<Impl>(
      state, order,
      [](Impl& impl, typename Impl::Handle& handle, absl::Duration delay) {
        typename Impl::Handle fresh = impl.Schedule(delay);
        benchmark::DoNotOptimize(impl.Cancel(handle));
        handle = std::move(fresh);
      });
}

template <typename Impl>
void BM_Shutdown(benchmark::State& state) {
  const int64_t p = state.range(0);
  const std::vector<absl::Duration>& delays = LongDelays();
  const size_t mask = delays.size() - 1;
  for (auto _ : state) {
    auto impl = std::make_unique<Impl>();
    for (int64_t i = 0; i < p; ++i) impl->Fire(delays[i & mask]);
    const auto start = std::chrono::steady_clock::now();
    impl->Shutdown();
    const auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    impl.reset();
  }
  state.SetLabel(Impl::Name());
}

// Pending counts and iterations per repetition (each iteration times P
// operations).
struct Size {
  int64_t pending;
  int64_t iterations;
};
std::vector<Size> PendingSizes() {
  if (SmallSizes()) return {{1000, 2}};
  return {{100000, 5}, {1000000, 1}};
}

template <typename Impl>
void RegisterOrdered() {
  using Benchmark = void (*)(benchmark::State&, Order);
  const std::pair<const char*, Benchmark> kinds[] = {
      {"BM_Cancel", BM_Cancel<Impl>},
      {"BM_Move", BM_Move<Impl>},
      {"BM_ScheduleCancelPair", BM_ScheduleCancelPair<Impl>},
  };
  for (const auto& [kind, function] : kinds) {
    for (const Order order : {Order::kInsertion, Order::kRandom}) {
      const std::string name =
          std::string(kind) + "/" + Impl::Name() + "/" + OrderName(order);
      for (const Size& size : PendingSizes()) {
        benchmark::RegisterBenchmark(name.c_str(), function, order)
            ->Arg(size.pending)
            ->Iterations(size.iterations)
            ->UseManualTime();
      }
    }
  }
}

template <typename Impl>
void RegisterShutdown() {
  RegisterManualTime("BM_Shutdown/" + Impl::Name(), BM_Shutdown<Impl>,
                     SmallSizes() ? 1000 : 1000000, SmallSizes() ? 1 : 2);
}

}  // namespace

// Called by //benchmarks:bench_main's main().
void RegisterBenchmarks() {
  RegisterOrdered<Ours>();
  RegisterOrdered<OursTask>();
  RegisterOrdered<HeapBaseline>();
  RegisterOrdered<LazyHeapBaseline>();
  RegisterShutdown<Ours>();
  RegisterShutdown<HeapBaseline>();
  RegisterShutdown<LazyHeapBaseline>();
}

}  // namespace bench
}  // namespace timingwheel
