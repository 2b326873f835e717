// Copyright 2026 The timingwheel Authors.
//
// expiry_lateness: how late timers fire with the real clock. For each
// implementation in turn (its threads running), `--timers` timers (default
// 10^6) with delays uniform in [0, `--span`] (default 1 s) are scheduled
// from this thread as fast as it can; each callback records when it ran.
// Prints, per implementation, the median over `--runs` of the p99 lateness
// (with min-max), the mean and max, and how many fired early or never.
// `floor-cv` (and the other `floor-*` names) is no timer at all: one thread
// that sleeps to each due time in turn, the best any timer could do on this
// machine with this harness (see RunFloor).
//
//   bazel run -c opt //benchmarks:expiry_lateness -- --runs=5
//   bazel run -c opt //benchmarks:expiry_lateness -- --json

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
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
#include "timer/clock.h"

ABSL_FLAG(int, timers, 1000000, "Timers per run.");
ABSL_FLAG(absl::Duration, span, absl::Seconds(1),
          "Delays are uniform in [lead, lead + span].");
ABSL_FLAG(absl::Duration, lead, absl::Seconds(2),
          "Added to every delay, so that scheduling all the timers is over "
          "before the first is due (the run measures firing, not a producer "
          "competing with it).");
ABSL_FLAG(int, runs, 3, "Runs per implementation.");
ABSL_FLAG(std::string, impls,
          "timingwheel,heap,hier-tick-1ms,round-wheel-1ms,asio,floor-cv",
          "Comma-separated implementations (see make_timers.h), or a floor "
          "without any timer: floor-cv, floor-nanosleep, floor-cv-slack1, "
          "floor-nanosleep-slack1 (see RunFloor).");
ABSL_FLAG(bool, json, false, "Print a JSON array instead of a table.");

namespace timingwheel {
namespace bench {
namespace {

int64_t Now() { return Clock::Real()->NowNanos(); }

struct Summary {
  std::vector<double> p99_ms, mean_ms, max_ms, wakeups;
  int64_t early = 0, missed = 0;
};

// Runs one implementation once; sets `wakeups` to its timer thread's.
Lateness RunOnce(const std::string& name, int n, absl::Duration lead,
                 absl::Duration span, uint64_t seed, int64_t& wakeups) {
  std::unique_ptr<TimerUnderTest> timer = MakeTimer(name).value();
  timer->Start();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0,
                                              absl::ToInt64Nanoseconds(span));
  std::vector<int64_t> due(static_cast<size_t>(n));
  auto fired = std::make_unique<std::atomic<int64_t>[]>(n);
  std::atomic<int> count{0};
  for (int i = 0; i < n; ++i) fired[i].store(kNotFired);
  for (int i = 0; i < n; ++i) {
    const int64_t delay = absl::ToInt64Nanoseconds(lead) + dist(rng);
    due[i] = Now() + delay;
    timer->Post(absl::Nanoseconds(delay), [&fired, &count, i] {
      fired[i].store(Now(), std::memory_order_relaxed);
      count.fetch_add(1, std::memory_order_release);
    });
  }
  const int64_t give_up =
      Now() + absl::ToInt64Nanoseconds(lead + span) + 10000000000;
  while (count.load(std::memory_order_acquire) < n && Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  wakeups = timer->wakeups();
  timer->Stop();
  std::vector<int64_t> fired_at(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) fired_at[i] = fired[i].load();
  return SummarizeLateness(due, fired_at);
}

// The floor: no timer at all. One thread walks the due times in order and
// sleeps until each one still in the future (`floor-cv`: a condition
// variable's wait_until, as the reaper; `floor-nanosleep`:
// clock_nanosleep(TIMER_ABSTIME); a `-slack1` suffix first sets the
// thread's timer slack to 1 ns), then records the time as the firing of
// every timer due by then. What is left is the kernel's wake-up latency and
// the harness's own cost per timer: no implementation can do better.
bool IsFloor(const std::string& name) { return name.rfind("floor-", 0) == 0; }

Lateness RunFloor(const std::string& name, int n, absl::Duration lead,
                  absl::Duration span, uint64_t seed, int64_t& wakeups) {
  const bool nanosleep = name.rfind("floor-nanosleep", 0) == 0;
  const bool slack1 =
      name.size() > 7 && name.compare(name.size() - 7, 7, "-slack1") == 0;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0,
                                              absl::ToInt64Nanoseconds(span));
  std::vector<int64_t> due(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    due[i] = Now() + absl::ToInt64Nanoseconds(lead) + dist(rng);
  }
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&due](int a, int b) { return due[a] < due[b]; });
  std::vector<int64_t> fired_at(static_cast<size_t>(n), kNotFired);
  int64_t sleeps = 0;
  std::thread thread([&] {
    if (slack1) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    std::mutex mu;
    std::condition_variable cv;
    std::unique_lock<std::mutex> lock(mu);
    int64_t now = Now();
    for (const int i : order) {
      while (now < due[i]) {
        ++sleeps;
        if (nanosleep) {
          timespec ts;
          ts.tv_sec = static_cast<time_t>(due[i] / 1000000000);
          ts.tv_nsec = static_cast<long>(due[i] % 1000000000);
          clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        } else {
          cv.wait_until(lock, std::chrono::steady_clock::time_point(
                                  std::chrono::nanoseconds(due[i])));
        }
        now = Now();
      }
      // Read again per timer, as each timer's callback does.
      now = Now();
      fired_at[i] = now;
    }
  });
  thread.join();
  wakeups = sleeps;
  return SummarizeLateness(due, fired_at);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

int Main() {
  const std::vector<std::string> names =
      absl::StrSplit(absl::GetFlag(FLAGS_impls), ',', absl::SkipEmpty());
  const int n = absl::GetFlag(FLAGS_timers);
  const absl::Duration span = absl::GetFlag(FLAGS_span);
  const absl::Duration lead = absl::GetFlag(FLAGS_lead);
  const int runs = std::max(1, absl::GetFlag(FLAGS_runs));
  for (const std::string& name : names) {
    if (!IsFloor(name) && !MakeTimer(name).ok()) {
      std::fprintf(stderr, "%s\n", MakeTimer(name).status().ToString().c_str());
      return 2;
    }
  }
  std::vector<Summary> summaries(names.size());
  // Runs interleave the implementations, so that a noisy minute on a shared
  // machine hits all of them.
  for (int r = 0; r < runs; ++r) {
    for (size_t k = 0; k < names.size(); ++k) {
      int64_t wakeups = 0;
      const Lateness late =
          IsFloor(names[k])
              ? RunFloor(names[k], n, lead, span, 1000 + r, wakeups)
              : RunOnce(names[k], n, lead, span, 1000 + r, wakeups);
      Summary& s = summaries[k];
      s.p99_ms.push_back(late.p99_ms);
      s.mean_ms.push_back(late.mean_ms);
      s.max_ms.push_back(late.max_ms);
      s.wakeups.push_back(static_cast<double>(wakeups));
      s.early += late.early;
      s.missed += late.missed;
      std::fprintf(stderr, "  run %d/%d %-18s p99 %.3f ms\n", r + 1, runs,
                   names[k].c_str(), late.p99_ms);
    }
  }
  const bool json = absl::GetFlag(FLAGS_json);
  if (json) {
    absl::PrintF("[\n");
  } else {
    absl::PrintF("\n%d timers, delays uniform in [%s, %s], %d runs each\n", n,
                 absl::FormatDuration(lead), absl::FormatDuration(lead + span),
                 runs);
    absl::PrintF("%-18s %10s %17s %10s %10s %8s %8s %9s\n", "impl", "p99_ms",
                 "(min-max)", "mean_ms", "max_ms", "early", "missed",
                 "wakeups");
  }
  for (size_t k = 0; k < names.size(); ++k) {
    const Summary& s = summaries[k];
    const auto [lo, hi] = std::minmax_element(s.p99_ms.begin(), s.p99_ms.end());
    if (json) {
      absl::PrintF(
          "  {\"impl\": \"%s\", \"late_p99_ms\": %.3f, \"late_p99_min_ms\": "
          "%.3f, \"late_p99_max_ms\": %.3f, \"late_mean_ms\": %.3f, "
          "\"late_max_ms\": %.3f, \"early\": %d, \"missed\": %d, "
          "\"wakeups\": %.0f}%s\n",
          names[k], Median(s.p99_ms), *lo, *hi, Median(s.mean_ms),
          Median(s.max_ms), s.early, s.missed, k + 1 < names.size() ? "," : "");
    } else {
      absl::PrintF("%-18s %10.3f %8.3f-%-8.3f %10.3f %10.3f %8d %8d %9.0f\n",
                   names[k], Median(s.p99_ms), *lo, *hi, Median(s.mean_ms),
                   Median(s.max_ms), s.early, s.missed, Median(s.wakeups));
    }
  }
  if (json) absl::PrintF("]\n");
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return timingwheel::bench::Main();
}
