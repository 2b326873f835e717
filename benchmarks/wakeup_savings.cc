// Copyright 2026 The timingwheel Authors.
//
// wakeup_savings: the main benchmark. Runs every timer implementation at the
// same time, each on its own thread(s), on the same sparse schedule with the
// real clock: `--timers` timers due evenly over `--spread` (the i-th at
// (i + 0.5) * spread / timers), then `--idle` with nothing due. Prints what
// each one cost: wake-ups of its timer thread (counted inside it, split into
// the busy and the idle phase, cross-checked with the thread's voluntary
// context switches from /proc), the voluntary context switches of all its
// threads (the process's wake-ups, whichever thread runs the callbacks;
// also split), CPU time of its threads, lateness
// mean / p99 / max and how many fired early. `--json` prints one object per
// implementation instead, with exactly the keys impl, wakeups, cpu_ms,
// late_mean_ms, late_p99_ms, late_max_ms, early.
//
//   bazel run -c opt //benchmarks:wakeup_savings
//   bazel run -c opt //benchmarks:wakeup_savings -- --timers=20
//       --spread=5s --idle=5s --impls=timingwheel,heap --json

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmarks/baselines/make_timers.h"
#include "benchmarks/lateness.h"
#include "benchmarks/svg_chart.h"
#include "benchmarks/thread_stats.h"
#include "timer/clock.h"

ABSL_FLAG(int, timers, 10, "Timers in the schedule.");
ABSL_FLAG(absl::Duration, spread, absl::Seconds(10),
          "The timers are due evenly over this long.");
ABSL_FLAG(absl::Duration, idle, absl::Seconds(10),
          "Then nothing is due for this long.");
ABSL_FLAG(std::string, impls, "all",
          "Comma-separated implementations (see make_timers.h), or 'all'.");
ABSL_FLAG(bool, json, false, "Print a JSON array instead of a table.");
ABSL_FLAG(std::string, svg, "",
          "Also write a log-scale bar chart of the wake-ups to this file.");
ABSL_FLAG(absl::Duration, progress_every, absl::Seconds(2),
          "How often to print progress to stderr.");

namespace timingwheel {
namespace bench {
namespace {

int64_t Now() { return Clock::Real()->NowNanos(); }

// One implementation's run and everything measured about it.
struct Run {
  std::unique_ptr<TimerUnderTest> timer;
  std::vector<pid_t> tids;  // Its threads.
  pid_t timer_tid = 0;      // The one that waits for timers.
  std::vector<int64_t> due;
  std::unique_ptr<std::atomic<int64_t>[]> fired;
  std::atomic<int> fired_count{0};

  int64_t wakeups_start = 0, wakeups_mid = 0, wakeups_end = 0;
  int64_t switches_start = 0, switches_mid = 0, switches_end = 0;
  int64_t all_start = 0, all_mid = 0, all_end = 0;  // All its threads.
  int64_t cpu_start = 0, cpu_end = 0;
};

int64_t SumCpu(const Run& run) {
  int64_t sum = 0;
  for (pid_t tid : run.tids) sum += CpuNanos(tid);
  return sum;
}

// Voluntary context switches of all the run's threads; a thread that has
// exited counts nothing from then on.
int64_t SumSwitches(const Run& run) {
  int64_t sum = 0;
  for (pid_t tid : run.tids)
    sum += std::max<int64_t>(0, VoluntarySwitches(tid));
  return sum;
}

void Snapshot(Run& run, int64_t& wakeups, int64_t& switches, int64_t& all) {
  wakeups = run.timer->wakeups();
  switches = run.timer_tid != 0 ? VoluntarySwitches(run.timer_tid) : -1;
  all = SumSwitches(run);
}

void SleepUntil(int64_t deadline) {
  const int64_t now = Now();
  if (deadline > now) absl::SleepFor(absl::Nanoseconds(deadline - now));
}

int Main() {
  const int timers = std::max(0, absl::GetFlag(FLAGS_timers));
  const absl::Duration spread = absl::GetFlag(FLAGS_spread);
  const absl::Duration idle = absl::GetFlag(FLAGS_idle);
  std::vector<std::string> names = AllTimerNames();
  if (absl::GetFlag(FLAGS_impls) != "all") {
    names = absl::StrSplit(absl::GetFlag(FLAGS_impls), ',', absl::SkipEmpty());
  }

  std::vector<std::unique_ptr<Run>> runs;
  for (const std::string& name : names) {
    auto run = std::make_unique<Run>();
    const std::vector<pid_t> before = ListThreads();
    absl::StatusOr<std::unique_ptr<TimerUnderTest>> timer = MakeTimer(name);
    if (!timer.ok()) {
      std::fprintf(stderr, "%s\n", timer.status().ToString().c_str());
      return 2;
    }
    run->timer = *std::move(timer);
    run->timer->Start();
    run->tids = NewThreads(before, ListThreads());
    run->timer_tid = FindThread(run->tids, run->timer->timer_thread_name());
    if (run->timer_tid == 0) {
      std::fprintf(stderr, "warning: %s: no thread named %s\n", name.c_str(),
                   run->timer->timer_thread_name().c_str());
    }
    run->due.resize(static_cast<size_t>(timers));
    run->fired = std::make_unique<std::atomic<int64_t>[]>(timers);
    for (int i = 0; i < timers; ++i) run->fired[i].store(kNotFired);
    runs.push_back(std::move(run));
  }
  std::fprintf(stderr,
               "wakeup_savings: %zu implementations at once, %d timers over "
               "%s, then %s idle (%s in all)\n",
               runs.size(), timers, absl::FormatDuration(spread).c_str(),
               absl::FormatDuration(idle).c_str(),
               absl::FormatDuration(spread + idle).c_str());

  for (auto& run : runs) {
    Snapshot(*run, run->wakeups_start, run->switches_start, run->all_start);
    run->cpu_start = SumCpu(*run);
  }
  const int64_t start = Now();
  // Round-robin, so that no implementation gets its timers first.
  for (int i = 0; i < timers; ++i) {
    const absl::Duration delay = spread * (i + 0.5) / timers;
    for (auto& run : runs) {
      Run* r = run.get();
      r->due[i] = Now() + absl::ToInt64Nanoseconds(delay);
      r->timer->Post(delay, [r, i] {
        r->fired[i].store(Now(), std::memory_order_relaxed);
        r->fired_count.fetch_add(1, std::memory_order_relaxed);
      });
    }
  }

  const int64_t mid = start + absl::ToInt64Nanoseconds(spread);
  const int64_t end = mid + absl::ToInt64Nanoseconds(idle);
  const int64_t step = std::max<int64_t>(
      1000000, absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_progress_every)));
  bool mid_taken = false;
  for (int64_t next = start + step;; next += step) {
    if (!mid_taken && next >= mid) {
      SleepUntil(mid);
      for (auto& run : runs) {
        Snapshot(*run, run->wakeups_mid, run->switches_mid, run->all_mid);
      }
      mid_taken = true;
    }
    if (next >= end) break;
    SleepUntil(next);
    int fired_min = timers, fired_max = 0;
    for (auto& run : runs) {
      fired_min = std::min(fired_min, run->fired_count.load());
      fired_max = std::max(fired_max, run->fired_count.load());
    }
    std::fprintf(stderr, "  %5.1fs / %.1fs  %s phase, fired %d..%d of %d\n",
                 static_cast<double>(Now() - start) / 1e9,
                 static_cast<double>(end - start) / 1e9,
                 mid_taken ? "idle" : "busy", fired_min, fired_max, timers);
  }
  SleepUntil(end);
  for (auto& run : runs) {
    Snapshot(*run, run->wakeups_end, run->switches_end, run->all_end);
    run->cpu_end = SumCpu(*run);
  }
  for (auto& run : runs) run->timer->Stop();

  const bool json = absl::GetFlag(FLAGS_json);
  if (json) {
    absl::PrintF("[\n");
  } else {
    absl::PrintF("\n%-18s %8s %8s %8s %8s %8s %9s %8s %8s %8s %6s %6s\n",
                 "impl", "wakeups", "(idle)", "ctxsw", "all_cs", "(idle)",
                 "cpu_ms", "late_avg", "late_p99", "late_max", "early",
                 "fired");
  }
  std::vector<std::pair<std::string, double>> bars;
  for (size_t k = 0; k < runs.size(); ++k) {
    Run& run = *runs[k];
    std::vector<int64_t> fired(run.due.size());
    for (size_t i = 0; i < fired.size(); ++i) fired[i] = run.fired[i].load();
    const Lateness late = SummarizeLateness(run.due, fired);
    const int64_t wakeups = run.wakeups_end - run.wakeups_start;
    const int64_t idle_wakeups = run.wakeups_end - run.wakeups_mid;
    const int64_t switches = run.switches_end - run.switches_start;
    const int64_t all_switches = run.all_end - run.all_start;
    const int64_t idle_all_switches = run.all_end - run.all_mid;
    const double cpu_ms =
        static_cast<double>(run.cpu_end - run.cpu_start) / 1e6;
    bars.emplace_back(run.timer->name(), static_cast<double>(wakeups));
    if (json) {
      absl::PrintF(
          "  {\"impl\": \"%s\", \"wakeups\": %d, \"cpu_ms\": %.3f, "
          "\"late_mean_ms\": %.3f, \"late_p99_ms\": %.3f, \"late_max_ms\": "
          "%.3f, \"early\": %d}%s\n",
          run.timer->name(), wakeups, cpu_ms, late.mean_ms, late.p99_ms,
          late.max_ms, late.early, k + 1 < runs.size() ? "," : "");
    } else {
      absl::PrintF(
          "%-18s %8d %8d %8d %8d %8d %9.2f %8.3f %8.3f %8.3f %6d %3d/%d\n",
          run.timer->name(), wakeups, idle_wakeups, switches, all_switches,
          idle_all_switches, cpu_ms, late.mean_ms, late.p99_ms, late.max_ms,
          late.early, run.fired_count.load(), timers);
    }
  }
  const std::string svg = absl::GetFlag(FLAGS_svg);
  if (!svg.empty() &&
      !WriteBarChartSvg(
          svg,
          absl::StrFormat("Timer-thread wake-ups: %d timers over %s, then %s "
                          "idle (log scale)",
                          timers, absl::FormatDuration(spread),
                          absl::FormatDuration(idle)),
          bars)) {
    std::fprintf(stderr, "could not write %s\n", svg.c_str());
  }
  if (json) {
    absl::PrintF("]\n");
  } else {
    absl::PrintF(
        "\nwakeups: returns from the timer thread's wait, counted inside each "
        "implementation (asio: handlers run); (idle): of those, during the "
        "idle phase; ctxsw: the timer thread's voluntary context switches "
        "(/proc), the cross-check; all_cs: voluntary context switches of all "
        "its threads (the wake-ups the process pays, callbacks' threads "
        "included), (idle): of those, during the idle phase; cpu_ms: CPU "
        "time of all its threads; late "
        "in ms after the due time; early: fired before it.\n");
  }
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return timingwheel::bench::Main();
}
