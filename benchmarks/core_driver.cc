// Copyright 2026 The timingwheel Authors.
//
// core_driver: fixed-count loops over the timer core's hot paths, for
// callgrind instruction counts (repeatable on a loaded machine) and quick
// wall-clock figures. Each mode prints ns per operation; under
//   valgrind --tool=callgrind --instr-atstart=no
//   bazel-bin/benchmarks/core_driver MODE ...
// only the measured loop is instrumented (divide Ir by the count printed).
//
//   pair IMPL P N [random] [sparse]
//                           N schedule+cancel pairs with P timers pending
//                           (IMPL: ours, coarse (ours with
//                           TimerOptions::coarse_clock) or heap, real clock,
//                           threads running), delays in [1 h, 2 h) (sparse: [1
//                           s, 60 s)). In order: cancel the timer just
//                           scheduled; random: cancel a random pending one
//                           (fixed seed) and schedule its replacement.
//   expiry IMPL N           N timers due uniformly over 1 s, driven on a
//                           step clock 1 ms at a time (BM_Expiry's loop).
//   shutdown N              Shutdown() of a timer with N pending (1-2 h),
//                           then dropping the returned tasks.

#include <time.h>
#include <valgrind/callgrind.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "benchmarks/bench_impls.h"
#include "benchmarks/manual_impls.h"
#include "timer/timer.h"

namespace timingwheel {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of the calling thread, in seconds: less sensitive than wall time
// to other processes on a loaded machine.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Delays uniform in [1 h, 2 h), or with `sparse` in [1 s, 60 s) (about a
// hundred level-1 buckets: a few pending timers leave most of them empty,
// so a cancel often empties its bucket).
std::vector<absl::Duration> LongDelays(size_t n, bool sparse = false) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> dist(
      0, (sparse ? 59LL : 3600LL) * 1000000000 - 1);
  const absl::Duration base = sparse ? absl::Seconds(1) : absl::Hours(1);
  std::vector<absl::Duration> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(base + absl::Nanoseconds(dist(rng)));
  }
  return out;
}

// Ours with TimerOptions::coarse_clock.
class OursCoarse {
 public:
  using Handle = TimerHandle;
  static std::string Name() { return "timingwheel-coarse"; }

  OursCoarse() {
    TimerOptions options;
    options.coarse_clock = true;
    timer_ = Timer::Create(options).value();
  }
  void Fire(absl::Duration delay) {
    (void)timer_->Schedule(delay, [] {});
  }
  Handle Schedule(absl::Duration delay) {
    return *timer_->Schedule(delay, [] {});
  }
  bool Cancel(Handle& handle) { return handle.Cancel(); }

 private:
  std::unique_ptr<Timer> timer_;
};

template <typename Impl>
void Pair(int64_t pending, int64_t n, bool random, bool sparse) {
  const std::vector<absl::Duration> delays = LongDelays(1 << 20, sparse);
  const size_t mask = delays.size() - 1;
  Impl impl;
  std::vector<typename Impl::Handle> handles;
  handles.reserve(static_cast<size_t>(pending));
  for (int64_t i = 0; i < pending; ++i) {
    if (random) {
      handles.push_back(impl.Schedule(delays[i & mask]));
    } else {
      impl.Fire(delays[i & mask]);
    }
  }
  std::vector<uint32_t> picks;
  if (random) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> dist(
        0, static_cast<uint32_t>(pending - 1));
    for (int64_t i = 0; i < n; ++i) picks.push_back(dist(rng));
  }
  size_t i = static_cast<size_t>(pending);
  CALLGRIND_START_INSTRUMENTATION;
  const auto start = Clock::now();
  if (random) {
    for (int64_t k = 0; k < n; ++k) {
      auto& handle = handles[picks[static_cast<size_t>(k)]];
      if (!impl.Cancel(handle)) std::abort();
      handle = impl.Schedule(delays[i++ & mask]);
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      auto handle = impl.Schedule(delays[i++ & mask]);
      if (!impl.Cancel(handle)) std::abort();
    }
  }
  const double seconds = Seconds(start);
  CALLGRIND_STOP_INSTRUMENTATION;
  std::printf("pair %s pending=%lld n=%lld %s%s: %.1f ns/pair\n",
              Impl::Name().c_str(), static_cast<long long>(pending),
              static_cast<long long>(n), random ? "random" : "in-order",
              sparse ? " sparse" : "", seconds * 1e9 / static_cast<double>(n));
}

template <typename Impl>
void Expiry(int64_t n) {
  constexpr int64_t kSpan = 1000000000;
  constexpr int64_t kStep = 1000000;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(0, kSpan);
  Impl impl;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    impl.Fire(absl::Nanoseconds(dist(rng)), [&count] { ++count; });
  }
  CALLGRIND_START_INSTRUMENTATION;
  const auto start = Clock::now();
  const double cpu_start = ThreadCpuSeconds();
  for (int64_t t = kStep; t <= kSpan + kStep; t += kStep) impl.AdvanceTo(t);
  const double cpu = ThreadCpuSeconds() - cpu_start;
  const double seconds = Seconds(start);
  CALLGRIND_STOP_INSTRUMENTATION;
  if (count != n) std::abort();
  std::printf("expiry %s n=%lld: %.1f ns/expired (thread CPU %.1f ns)\n",
              Impl::Name().c_str(), static_cast<long long>(n),
              seconds * 1e9 / static_cast<double>(n),
              cpu * 1e9 / static_cast<double>(n));
}

void Shutdown(int64_t n) {
  const std::vector<absl::Duration> delays = LongDelays(1 << 20);
  const size_t mask = delays.size() - 1;
  std::unique_ptr<Timer> timer = Timer::Create().value();
  for (int64_t i = 0; i < n; ++i) {
    (void)timer->Schedule(delays[static_cast<size_t>(i) & mask], [] {});
  }
  CALLGRIND_START_INSTRUMENTATION;
  auto start = Clock::now();
  std::vector<TaskPtr<TimerTask>> cancelled = timer->Shutdown();
  const double sweep = Seconds(start);
  start = Clock::now();
  cancelled.clear();
  const double drop = Seconds(start);
  CALLGRIND_STOP_INSTRUMENTATION;
  std::printf(
      "shutdown n=%lld: Shutdown() %.1f ms, dropping the tasks %.1f ms\n",
      static_cast<long long>(n), sweep * 1e3, drop * 1e3);
}

int Usage() {
  std::fprintf(
      stderr,
      "usage: core_driver pair ours|coarse|heap P N [random] [sparse] | "
      "expiry "
      "ours|heap N | shutdown N | --sizes=small (every mode, tiny)\n");
  return 2;
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) {
  using namespace timingwheel::bench;  // NOLINT(build/namespaces)
  if (argc == 2 && std::strcmp(argv[1], "--sizes=small") == 0) {
    // The CI smoke run (.ci/jobs.d/benchmark-smoke): every mode, tiny.
    Pair<Ours>(1000, 1000, /*random=*/true, /*sparse=*/false);
    Pair<OursCoarse>(1000, 1000, /*random=*/false, /*sparse=*/true);
    Pair<HeapBaseline>(1000, 1000, /*random=*/true, /*sparse=*/false);
    Expiry<ManualOurs>(1000);
    Expiry<ManualHeap>(1000);
    Shutdown(1000);
    return 0;
  }
  if (argc < 3) return Usage();
  const bool ours = std::strcmp(argv[2], "ours") == 0;
  if (std::strcmp(argv[1], "pair") == 0 && argc >= 5) {
    const int64_t pending = std::atoll(argv[3]);
    const int64_t n = std::atoll(argv[4]);
    bool random = false, sparse = false;
    for (int i = 5; i < argc; ++i) {
      random = random || std::strcmp(argv[i], "random") == 0;
      sparse = sparse || std::strcmp(argv[i], "sparse") == 0;
    }
    if (random && pending == 0) return Usage();
    if (std::strcmp(argv[2], "coarse") == 0) {
      Pair<OursCoarse>(pending, n, random, sparse);
    } else if (ours) {
      Pair<Ours>(pending, n, random, sparse);
    } else {
      Pair<HeapBaseline>(pending, n, random, sparse);
    }
    return 0;
  }
  if (std::strcmp(argv[1], "expiry") == 0 && argc >= 4) {
    const int64_t n = std::atoll(argv[3]);
    if (ours) {
      Expiry<ManualOurs>(n);
    } else {
      Expiry<ManualHeap>(n);
    }
    return 0;
  }
  if (std::strcmp(argv[1], "shutdown") == 0) {
    Shutdown(std::atoll(argv[2]));
    return 0;
  }
  return Usage();
}
