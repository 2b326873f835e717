// Copyright 2026 The timingwheel Authors.
//
// timer_instructions: fixed workloads for callgrind's instruction counts,
// which do not depend on the machine's load. Each operation runs N times
// between CALLGRIND_START_INSTRUMENTATION and CALLGRIND_STOP_INSTRUMENTATION
// and is dumped under its own name (CALLGRIND_DUMP_STATS_AT), so the timer's
// creation, the tasks' preparation and the teardown are not counted. The
// timer runs on a step clock without a reaper, callbacks inline: no thread
// but the caller's runs, and every run counts the same.
//
//   bazel build -c opt //benchmarks:timer_instructions
//   valgrind --tool=callgrind --instr-atstart=no
//       bazel-bin/benchmarks/timer_instructions --n=100000
//
// One dump per operation (callgrind.out.PID.K, "desc: Trigger: Client
// Request: OP"); its "totals:" divided by N is the cost of one call.
// .ci/jobs.d/timer-instruction-budget runs it and compares with
// benchmarks/timer_instructions.budget. Operations (N each):
//   schedule          `Schedule(delay, callback)` (16-byte capture), keeping
//                     the handle; the inbox drain that places them is counted
//   schedule_cancel   N schedules, then N `TimerHandle::Cancel()` in order:
//                     the cost of one pair
//   reschedule        `TimerHandle::Reschedule()` of N pending timers
//   expiry            N timers due over 1 s, fired by 1,000 steps of 1 ms
//                     (`AdvanceClock(0)`), callbacks run inline, handles gone
//   task_add          `Add(TimerTask&, delay)` of N pre-made tasks
//   task_add_cancel   N adds, then N `Cancel(TimerTask&)` in order
// Delays of the schedules are uniform in [1 s, 30 min) (splitmix64, seed 42).
// Without valgrind's headers (or outside valgrind) it runs the same work.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define TW_HAVE_CALLGRIND 1
#endif
#endif
#ifndef TW_HAVE_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name) (void)(name)
#endif

#include "absl/time/time.h"
#include "benchmarks/step_clock.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace tw = timingwheel;

namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// N delays uniform in [lo, lo + span).
std::vector<absl::Duration> Delays(size_t n, absl::Duration lo,
                                   absl::Duration span, uint64_t seed) {
  std::vector<absl::Duration> delays;
  delays.reserve(n);
  const uint64_t span_ns =
      static_cast<uint64_t>(absl::ToInt64Nanoseconds(span));
  for (size_t i = 0; i < n; ++i) {
    delays.push_back(lo + absl::Nanoseconds(static_cast<int64_t>(
                              SplitMix64(seed) % span_ns)));
  }
  return delays;
}

struct Fired {
  int64_t count = 0;
  void Fire(size_t) { ++count; }
};

class FireTask final : public tw::TimerTask {
 public:
  FireTask(Fired* fired, size_t index) : fired_(fired), index_(index) {}
  void Run() override { fired_->Fire(index_); }

 private:
  Fired* const fired_;
  const size_t index_;
};

// A timer of its own per operation: step clock, no reaper, inline callbacks.
struct Fixture {
  tw::bench::StepClock clock;
  tw::bench::InlineExecutor executor;
  std::unique_ptr<tw::Timer> timer;
  Fired fired;

  Fixture() {
    tw::TimerOptions options;
    options.clock = &clock;
    options.executor = &executor;
    options.start_reaper = false;
    timer = tw::Timer::Create(options).value();
  }
};

void Begin() {
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_ZERO_STATS;
}

void End(const char* name) {
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT(name);
}

bool Check(const char* name, bool ok) {
  if (!ok) std::fprintf(stderr, "timer_instructions: %s: wrong result\n", name);
  return ok;
}

bool Schedule(size_t n, const std::vector<absl::Duration>& delays,
              const char* name = "schedule") {
  Fixture f;
  std::vector<tw::TimerHandle> handles;
  handles.reserve(n);
  Fired* fired = &f.fired;
  Begin();
  for (size_t i = 0; i < n; ++i) {
    handles.push_back(
        f.timer->Schedule(delays[i], [fired, i] { fired->Fire(i); }).value());
  }
  const int64_t pending = f.timer->NumPending();
  End(name);
  return Check(name, pending == static_cast<int64_t>(n));
}

bool ScheduleCancel(size_t n, const std::vector<absl::Duration>& delays) {
  Fixture f;
  std::vector<tw::TimerHandle> handles;
  handles.reserve(n);
  Fired* fired = &f.fired;
  size_t cancelled = 0;
  Begin();
  for (size_t i = 0; i < n; ++i) {
    handles.push_back(
        f.timer->Schedule(delays[i], [fired, i] { fired->Fire(i); }).value());
  }
  for (auto& handle : handles) cancelled += handle.Cancel() ? 1 : 0;
  const int64_t pending = f.timer->NumPending();
  End("schedule_cancel");
  return Check("schedule_cancel", pending == 0 && cancelled == n);
}

bool Reschedule(size_t n, const std::vector<absl::Duration>& delays) {
  Fixture f;
  std::vector<tw::TimerHandle> handles;
  handles.reserve(n);
  Fired* fired = &f.fired;
  for (size_t i = 0; i < n; ++i) {
    handles.push_back(
        f.timer->Schedule(delays[i], [fired, i] { fired->Fire(i); }).value());
  }
  f.timer->NumPending();  // Places them all.
  size_t moved = 0;
  Begin();
  for (size_t i = 0; i < n; ++i) {
    moved +=
        handles[i].Reschedule(delays[n - 1 - i]) == tw::RescheduleResult::kMoved
            ? 1
            : 0;
  }
  const int64_t pending = f.timer->NumPending();
  End("reschedule");
  return Check("reschedule", moved == n && pending == static_cast<int64_t>(n));
}

bool Expiry(size_t n) {
  Fixture f;
  const auto delays = Delays(n, absl::ZeroDuration(), absl::Seconds(1), 7);
  Fired* fired = &f.fired;
  for (size_t i = 0; i < n; ++i) {
    f.timer->Schedule(delays[i], [fired, i] { fired->Fire(i); }).IgnoreError();
  }
  f.timer->NumPending();
  Begin();
  for (int64_t ms = 1; ms <= 1001; ++ms) {
    f.clock.Set(ms * 1000000);
    f.timer->AdvanceClock(absl::ZeroDuration());
  }
  End("expiry");
  return Check("expiry", f.fired.count == static_cast<int64_t>(n));
}

std::vector<tw::TaskPtr<FireTask>> MakeTasks(size_t n, Fired* fired) {
  std::vector<tw::TaskPtr<FireTask>> tasks;
  tasks.reserve(n);
  for (size_t i = 0; i < n; ++i)
    tasks.push_back(tw::MakeTask<FireTask>(fired, i));
  return tasks;
}

bool TaskAdd(size_t n, const std::vector<absl::Duration>& delays) {
  Fixture f;
  auto tasks = MakeTasks(n, &f.fired);
  size_t added = 0;
  Begin();
  for (size_t i = 0; i < n; ++i) {
    added += f.timer->Add(*tasks[i], delays[i]).ok() ? 1 : 0;
  }
  const int64_t pending = f.timer->NumPending();
  End("task_add");
  return Check("task_add", added == n && pending == static_cast<int64_t>(n));
}

bool TaskAddCancel(size_t n, const std::vector<absl::Duration>& delays) {
  Fixture f;
  auto tasks = MakeTasks(n, &f.fired);
  size_t cancelled = 0;
  Begin();
  for (size_t i = 0; i < n; ++i)
    f.timer->Add(*tasks[i], delays[i]).IgnoreError();
  for (auto& task : tasks) cancelled += f.timer->Cancel(*task) ? 1 : 0;
  const int64_t pending = f.timer->NumPending();
  End("task_add_cancel");
  return Check("task_add_cancel", cancelled == n && pending == 0);
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 100000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--n=", 4) == 0) {
      n = static_cast<size_t>(std::atoll(argv[i] + 4));
    } else if (std::strcmp(argv[i], "--sizes=small") == 0) {
      n = 1000;
    } else {
      std::fprintf(stderr, "usage: %s [--n=N | --sizes=small]\n", argv[0]);
      return 2;
    }
  }
  if (n == 0) n = 1;
  const auto delays =
      Delays(n, absl::Seconds(1), absl::Minutes(30) - absl::Seconds(1), 42);
  // Warm-up outside the counts: the task pool, the thread's inbox.
  {
    const auto warm = Delays(1000, absl::Seconds(1), absl::Seconds(1), 1);
    Schedule(warm.size(), warm, "warmup");
  }
  bool ok = Schedule(n, delays);
  ok = ScheduleCancel(n, delays) && ok;
  ok = Reschedule(n, delays) && ok;
  ok = Expiry(n) && ok;
  ok = TaskAdd(n, delays) && ok;
  ok = TaskAddCancel(n, delays) && ok;
  std::printf("timer_instructions: n=%zu %s\n", n, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
