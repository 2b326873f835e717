// Copyright 2026 The timingwheel Authors.
//
// schedule_instructions: a fixed workload for instruction counts, which do
// not depend on the machine's load. Creates a default timer (real clock,
// reaper running) and schedules N timers with delays uniform in [1 h, 2 h)
// through `Timer::Schedule()`, then destroys the timer. Run it under
// callgrind at two sizes; the difference of the totals divided by the
// difference of the sizes is the cost of one schedule (setup cancels out):
//
//   bazel build -c opt //benchmarks:schedule_instructions
//   valgrind --tool=callgrind
//       bazel-bin/benchmarks/schedule_instructions --schedules=100000
//
// Options: --schedules=N (default 100000); --sizes=small (the CI smoke run)
// schedules 1000; --reserve makes room for them at Create()
// (`TimerOptions::expected_pending`); --cancel cancels each through its
// handle right after scheduling it (the schedule+cancel path; none stays
// pending).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "timer/timer.h"

int main(int argc, char** argv) {
  int64_t schedules = 100000;
  bool reserve = false;
  bool cancel = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--schedules=", 12) == 0) {
      schedules = std::atoll(argv[i] + 12);
    } else if (std::strcmp(argv[i], "--sizes=small") == 0) {
      schedules = 1000;
    } else if (std::strcmp(argv[i], "--reserve") == 0) {
      reserve = true;
    } else if (std::strcmp(argv[i], "--cancel") == 0) {
      cancel = true;
    } else {
      std::fprintf(stderr, "usage: %s [--schedules=N] [--reserve] [--cancel]\n",
                   argv[0]);
      return 2;
    }
  }
  std::vector<absl::Duration> delays;
  delays.reserve(static_cast<size_t>(schedules));
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> dist(0, 3600LL * 1000000000 - 1);
  for (int64_t i = 0; i < schedules; ++i) {
    delays.push_back(absl::Hours(1) + absl::Nanoseconds(dist(rng)));
  }
  timingwheel::TimerOptions options;
  if (reserve) options.expected_pending = schedules;
  auto timer = timingwheel::Timer::Create(options).value();
  for (int64_t i = 0; i < schedules; ++i) {
    auto handle = timer->Schedule(delays[static_cast<size_t>(i)], [] {});
    if (cancel && handle.ok()) handle->Cancel();
  }
  const int64_t pending = timer->NumPending();
  const int64_t expected = cancel ? 0 : schedules;
  timer.reset();
  std::printf("scheduled %lld, pending %lld\n",
              static_cast<long long>(schedules),
              static_cast<long long>(pending));
  return pending == expected ? 0 : 1;
}
