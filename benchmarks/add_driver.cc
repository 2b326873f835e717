// Copyright 2026 The timingwheel Authors.
//
// add_driver: fixed-count loops over the add path, for callgrind instruction
// counts before and after a change (it uses only the public Timer API, so the
// same file builds against older trees). Under
//   valgrind --tool=callgrind --instr-atstart=no
//   bazel-bin/benchmarks/add_driver MODE N
// only the measured loop is instrumented (divide Ir by N).
//
//   premade N   Timer::Add() of N tasks made beforehand (untimed) into a
//               default timer, delays in [1 h, 2 h): BM_AddPremade's loop.
//   pair P N    N Schedule()+Cancel() pairs in insertion order (cancel the
//               timer just scheduled) on a default timer with P pending
//               (delays in [1 h, 2 h)): pending_benchmark's in-order pair.
//   --sizes=small   both, tiny (the CI smoke run).

#include <valgrind/callgrind.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "timer/timer.h"

namespace {

using Clock = std::chrono::steady_clock;

class Noop final : public timingwheel::TimerTask {
 public:
  void Run() override {}
};

std::vector<absl::Duration> Delays(size_t n) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> dist(0, 3600LL * 1000000000 - 1);
  std::vector<absl::Duration> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(absl::Hours(1) + absl::Nanoseconds(dist(rng)));
  }
  return out;
}

void Premade(int64_t n) {
  const std::vector<absl::Duration> delays = Delays(static_cast<size_t>(n));
  std::unique_ptr<timingwheel::Timer> timer =
      timingwheel::Timer::Create().value();
  std::vector<timingwheel::TaskPtr<timingwheel::TimerTask>> tasks;
  tasks.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    tasks.push_back(timingwheel::MakeTask<Noop>());
  CALLGRIND_START_INSTRUMENTATION;
  const auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    if (!timer
             ->Add(tasks[static_cast<size_t>(i)],
                   delays[static_cast<size_t>(i)])
             .ok()) {
      std::abort();
    }
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  CALLGRIND_STOP_INSTRUMENTATION;
  std::printf("premade n=%lld: %.1f ns/add\n", static_cast<long long>(n),
              seconds * 1e9 / static_cast<double>(n));
}

void Pair(int64_t pending, int64_t n) {
  const std::vector<absl::Duration> delays = Delays(1 << 20);
  std::unique_ptr<timingwheel::Timer> timer =
      timingwheel::Timer::Create().value();
  for (int64_t i = 0; i < pending; ++i) {
    (void)timer->Schedule(delays[static_cast<size_t>(i) & 0xfffff], [] {});
  }
  CALLGRIND_START_INSTRUMENTATION;
  const auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    timingwheel::TimerHandle handle =
        timer
            ->Schedule(delays[static_cast<size_t>(pending + i) & 0xfffff],
                       [] {})
            .value();
    if (!handle.Cancel()) std::abort();
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  CALLGRIND_STOP_INSTRUMENTATION;
  std::printf("pair pending=%lld n=%lld: %.1f ns/pair\n",
              static_cast<long long>(pending), static_cast<long long>(n),
              seconds * 1e9 / static_cast<double>(n));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--sizes=small") == 0) {
    // The CI smoke run (.ci/jobs.d/benchmark-smoke): both modes, tiny.
    Premade(1000);
    Pair(1000, 1000);
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "premade") == 0) {
    Premade(std::atoll(argv[2]));
    return 0;
  }
  if (argc == 4 && std::strcmp(argv[1], "pair") == 0) {
    Pair(std::atoll(argv[2]), std::atoll(argv[3]));
    return 0;
  }
  std::fprintf(stderr, "usage: add_driver premade N | pair P N\n");
  return 2;
}
