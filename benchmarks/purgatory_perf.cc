// Copyright 2026 The timingwheel Authors.
//
// purgatory_perf: Kafka's TestPurgatoryPerformance (the original Scala tool's
// semantics) against //purgatory.
//
//   * `--generators` threads (default 1) create requests with Poisson
//     arrivals at `--rate` per second in all, each at rate / generators
//     (exponential inter-arrival times, accumulated in nanoseconds; a
//     generator sleeps only when it is ahead of its schedule), and hand
//     each to `TryCompleteElseWatch()` under `--keys` keys drawn from
//     `--key_space` keys named "fakeKey<n>" (Kafka draws the keys once for
//     the whole run; `--fixed_keys` does that, the default draws them per
//     request).
//   * Each request's latency to completion is log-normal with the given
//     `--pct50` and `--pct75` and truncated to whole milliseconds, as Kafka
//     does; its `TryComplete()` succeeds once that time has come.
//   * Requests whose latency is below `--timeout` are handed to a completer
//     thread, which at each one's time calls `CheckAndComplete()` on its
//     first key (Kafka's tool called forceComplete() directly; the
//     purgatory's watcher path is what is measured here). The others expire
//     through the purgatory's timer at `--timeout` (Kafka's 2024 Java port
//     instead completes every request at its timeout).
//
// Prints the target and achieved arrival rates, process CPU time per
// request, completed vs expired counts, completion latency percentiles and
// the purgatory's reaper wake-ups; `--json` prints the same as one object.
//
//   bazel run -c opt //benchmarks:purgatory_perf
//   bazel run -c opt //benchmarks:purgatory_perf -- --rate=100000
//       --duration=5s --pct50=1 --pct75=10 --timeout=200 --json
//   bazel run -c opt //benchmarks:purgatory_perf -- --rate=1000000
//       --generators=2 --duration=4s

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "benchmarks/lateness.h"
#include "benchmarks/step_clock.h"
#include "purgatory/delayed_operation.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "timer/clock.h"
#include "timer/timer.h"

ABSL_FLAG(double, rate, 500000, "Target request arrival rate per second.");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(8),
          "Arrivals span this long at the target rate (sets --num when "
          "--num is 0).");
ABSL_FLAG(int64_t, num, 0, "Number of requests (0: rate * duration).");
ABSL_FLAG(int, key_space, 100, "Total number of possible keys.");
ABSL_FLAG(int, keys, 3, "Keys each request is watched under.");
ABSL_FLAG(bool, fixed_keys, false,
          "Draw the keys once for the whole run, as Kafka's tool does.");
ABSL_FLAG(double, pct50, 2, "50th percentile of completion latency, ms.");
ABSL_FLAG(double, pct75, 5, "75th percentile of completion latency, ms.");
ABSL_FLAG(int64_t, timeout, 200, "Request timeout, ms.");
ABSL_FLAG(int, shards, 32, "Watch-list shards of the purgatory.");
ABSL_FLAG(int, generators, 1,
          "Generator threads; each hands in its share of the requests at "
          "rate / generators.");
ABSL_FLAG(bool, replay, false,
          "Replay the same workload on one thread in simulated time (a step "
          "clock, expirations run inline): deterministic, for a profiler "
          "(valgrind --tool=callgrind); rates and latencies are simulated.");
ABSL_FLAG(bool, json, false, "Print one JSON object instead of a report.");

namespace timingwheel {
namespace bench {
namespace {

int64_t Now() { return Clock::Real()->NowNanos(); }

// What the requests report back.
struct Recorder {
  explicit Recorder(int64_t n, Clock* clock = Clock::Real())
      : latency(std::make_unique<std::atomic<int64_t>[]>(n)), clock(clock) {}
  std::unique_ptr<std::atomic<int64_t>[]> latency;  // Arrival to OnComplete.
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> expired{0};
  Clock* const clock;  // The requests' time (real, or --replay's step clock).
};

// FakeOperation: Kafka's, completable once its sampled latency has passed.
class FakeOperation final : public DelayedOperation {
 public:
  FakeOperation(absl::Duration timeout, int64_t id, int64_t arrived,
                int64_t completes_at, Recorder* recorder)
      : DelayedOperation(timeout),
        id_(id),
        arrived_(arrived),
        completes_at_(completes_at),
        recorder_(recorder) {}

  bool TryComplete() override {
    return recorder_->clock->NowNanos() >= completes_at_ && ForceComplete();
  }
  void OnComplete() override {
    recorder_->latency[id_].store(recorder_->clock->NowNanos() - arrived_,
                                  std::memory_order_relaxed);
    recorder_->done.fetch_add(1, std::memory_order_release);
  }
  void OnExpiration() override {
    recorder_->expired.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  const int64_t id_;
  const int64_t arrived_;
  const int64_t completes_at_;
  Recorder* const recorder_;
};

// The calling thread's CPU time in seconds.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double CpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

using Purgatory = DelayedOperationPurgatory<std::string>;

// One request for the completer: when, and which key to check.
struct Due {
  int64_t at;
  int key;
  bool operator>(const Due& other) const { return at > other.at; }
};

// Completer: at each request's time, CheckAndComplete() on its first key.
// Requests due in the same wake-up share one call per key.
class Completer {
 public:
  Completer(Purgatory* purgatory, const std::vector<std::string>* key_names)
      : purgatory_(purgatory), key_names_(key_names) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Completer() { Stop(); }

  // Completes what is left, then stops the thread. Idempotent.
  void Stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

  void Add(std::vector<Due>& batch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      inbox_.insert(inbox_.end(), batch.begin(), batch.end());
    }
    batch.clear();
  }

  int64_t calls() const { return calls_.load(std::memory_order_relaxed); }
  // CPU seconds the completer thread used (valid once it stopped).
  double cpu_seconds() const { return cpu_seconds_; }

 private:
  void Loop() {
    std::priority_queue<Due, std::vector<Due>, std::greater<Due>> heap;
    std::vector<Due> taken;
    std::vector<int> keys;
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_ || !inbox_.empty() || !heap.empty()) {
      taken.swap(inbox_);
      lock.unlock();
      for (const Due& due : taken) heap.push(due);
      taken.clear();
      const int64_t now = Now();
      keys.clear();
      while (!heap.empty() && heap.top().at <= now) {
        keys.push_back(heap.top().key);
        heap.pop();
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      for (int key : keys) purgatory_->CheckAndComplete((*key_names_)[key]);
      calls_.fetch_add(static_cast<int64_t>(keys.size()),
                       std::memory_order_relaxed);
      lock.lock();
      if (stop_ && heap.empty() && inbox_.empty()) break;
      // Kafka's completion times are whole milliseconds: wake at the next
      // one, or within a millisecond for requests still arriving.
      const int64_t next =
          heap.empty() ? now + 1000000 : std::min(heap.top().at, now + 1000000);
      const int64_t wait = next - Now();
      if (wait > 0 && inbox_.empty()) {
        cv_.wait_for(lock, std::chrono::nanoseconds(wait));
      }
    }
    cpu_seconds_ = ThreadCpuSeconds();
  }

  Purgatory* const purgatory_;
  const std::vector<std::string>* const key_names_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Due> inbox_;  // Guarded by mu_.
  bool stop_ = false;       // Guarded by mu_.
  std::atomic<int64_t> calls_{0};
  double cpu_seconds_ = 0;  // Written by the thread before it ends.
  std::thread thread_;
};

// Kafka's LatencySamples: log-normal from the 50th and 75th percentiles,
// truncated to whole milliseconds.
class LatencySampler {
 public:
  LatencySampler(double pct50_ms, double pct75_ms)
      : mu_(std::log(pct50_ms)),
        // 0.674490 is the 75th percentile point of N(0, 1).
        sigma_((std::log(pct75_ms) - std::log(pct50_ms)) / 0.674490) {}

  int64_t NextMs(std::mt19937_64& rng) {
    return static_cast<int64_t>(std::exp(normal_(rng) * sigma_ + mu_));
  }

 private:
  const double mu_;
  const double sigma_;
  std::normal_distribution<double> normal_;
};

// One generator thread's share of the requests and what it saw.
struct Generator {
  int64_t first = 0;   // Its first request id.
  int64_t stride = 1;  // Then every stride-th.
  double rate = 0;     // Its arrival rate per second.
  std::mt19937_64 rng;
  double arrival = 0;  // Its last scheduled arrival (ns).
  int64_t end = 0;     // When it handed in its last request (ns).
  int64_t handed_to_completer = 0;
  int64_t errors = 0;
  double cpu_seconds = 0;  // The generator thread's CPU time.
};

// Hands in generator `gen`'s requests at its Poisson arrival times.
void RunGenerator(Generator& gen, bool report, int64_t num, int64_t start,
                  int64_t timeout_ms, absl::Duration timeout,
                  int keys_per_request, const std::vector<int>& fixed,
                  bool fixed_keys, int key_space,
                  const std::vector<std::string>& key_names,
                  const LatencySampler& latency_sampler, Purgatory& purgatory,
                  Completer& completer, Recorder& recorder) {
  LatencySampler latency = latency_sampler;
  std::exponential_distribution<double> interval_ns(gen.rate / 1e9);
  std::uniform_int_distribution<int> key_dist(0, key_space - 1);
  std::mt19937_64& rng = gen.rng;
  std::vector<Due> batch;
  std::vector<std::string> keys(static_cast<size_t>(keys_per_request));
  int64_t next_progress = start + 1000000000;
  gen.arrival = static_cast<double>(start);
  for (int64_t i = gen.first; i < num; i += gen.stride) {
    gen.arrival += interval_ns(rng);
    const int64_t now = Now();
    if (static_cast<int64_t>(gen.arrival) > now + 50000) {
      completer.Add(batch);  // Hand over before sleeping.
      absl::SleepFor(
          absl::Nanoseconds(static_cast<int64_t>(gen.arrival) - now));
    }
    const int64_t latency_ms = latency.NextMs(rng);
    const int64_t arrived = Now();
    const int64_t completes_at = arrived + latency_ms * 1000000;
    int first_key = 0;
    for (int k = 0; k < keys_per_request; ++k) {
      const int key = fixed_keys ? fixed[k] : key_dist(rng);
      if (k == 0) first_key = key;
      keys[k] = key_names[key];
    }
    if (latency_ms < timeout_ms) {
      batch.push_back(Due{completes_at, first_key});
      ++gen.handed_to_completer;
    }
    auto op =
        MakeTask<FakeOperation>(timeout, i, arrived, completes_at, &recorder);
    if (!purgatory.TryCompleteElseWatch(op, absl::MakeConstSpan(keys)).ok()) {
      ++gen.errors;
    }
    if (batch.size() >= 256) completer.Add(batch);
    if (report && arrived >= next_progress) {
      next_progress += 1000000000;
      std::fprintf(stderr,
                   "  %5.1fs  %lld/%lld requests, %lld done, %lld waiting\n",
                   static_cast<double>(arrived - start) / 1e9,
                   static_cast<long long>(i + 1), static_cast<long long>(num),
                   static_cast<long long>(recorder.done.load()),
                   static_cast<long long>(purgatory.NumDelayed()));
    }
  }
  gen.end = Now();
  completer.Add(batch);
  gen.cpu_seconds = ThreadCpuSeconds();
}

// Replay(): the workload on one thread in simulated time, for profilers
// (identical instruction counts from run to run). Arrivals, latencies and
// keys are drawn as in the real run; the completer wakes at each whole
// simulated millisecond with a request due (one CheckAndComplete() per key
// due since its last wake-up), and the timer's expirations run at their
// simulated times, in order, on this thread.
int Replay(int64_t num, double rate, int keys_per_request, int key_space,
           bool fixed_keys, const std::vector<int>& fixed, int64_t timeout_ms,
           LatencySampler latency, std::mt19937_64& rng,
           const std::vector<std::string>& key_names) {
  StepClock clock;
  InlineExecutor executor;
  TimerOptions timer_options;
  timer_options.clock = &clock;
  timer_options.executor = &executor;
  timer_options.start_reaper = false;
  std::unique_ptr<Timer> timer = Timer::Create(timer_options).value();
  PurgatoryOptions options;
  options.shards = absl::GetFlag(FLAGS_shards);
  options.shared_timer = timer.get();
  std::unique_ptr<Purgatory> purgatory = Purgatory::Create(options).value();
  Recorder recorder(num, &clock);
  std::exponential_distribution<double> interval_ns(rate / 1e9);
  std::uniform_int_distribution<int> key_dist(0, key_space - 1);
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> heap;
  std::vector<int> due_keys;
  int64_t check_calls = 0;
  int64_t errors = 0;
  // Runs every completer call and expiry due at or before `until`.
  auto run_until = [&](int64_t until) {
    while (!heap.empty() && heap.top().at <= until) {
      // The completer's next wake-up: the next whole millisecond.
      const int64_t at = (heap.top().at / 1000000 + 1) * 1000000;
      if (at > until) break;
      clock.Set(at);
      timer->AdvanceClock(absl::ZeroDuration());
      due_keys.clear();
      while (!heap.empty() && heap.top().at <= at) {
        due_keys.push_back(heap.top().key);
        heap.pop();
      }
      std::sort(due_keys.begin(), due_keys.end());
      due_keys.erase(std::unique(due_keys.begin(), due_keys.end()),
                     due_keys.end());
      for (int key : due_keys) purgatory->CheckAndComplete(key_names[key]);
      check_calls += static_cast<int64_t>(due_keys.size());
    }
    clock.Set(until);
    timer->AdvanceClock(absl::ZeroDuration());
  };
  std::vector<std::string> keys(static_cast<size_t>(keys_per_request));
  double arrival = 0;
  const double cpu_start = CpuSeconds();
  for (int64_t i = 0; i < num; ++i) {
    arrival += interval_ns(rng);
    const int64_t arrived = static_cast<int64_t>(arrival);
    run_until(arrived);
    const int64_t latency_ms = latency.NextMs(rng);
    const int64_t completes_at = arrived + latency_ms * 1000000;
    int first_key = 0;
    for (int k = 0; k < keys_per_request; ++k) {
      const int key = fixed_keys ? fixed[k] : key_dist(rng);
      if (k == 0) first_key = key;
      keys[k] = key_names[key];
    }
    if (latency_ms < timeout_ms) heap.push(Due{completes_at, first_key});
    auto op = MakeTask<FakeOperation>(absl::Milliseconds(timeout_ms), i,
                                      arrived, completes_at, &recorder);
    if (!purgatory->TryCompleteElseWatch(op, absl::MakeConstSpan(keys)).ok()) {
      ++errors;
    }
  }
  run_until(static_cast<int64_t>(arrival) + (timeout_ms + 1) * 1000000);
  const double cpu_seconds = CpuSeconds() - cpu_start;
  purgatory->Shutdown();
  const int64_t expired = recorder.expired.load();
  absl::PrintF(
      "{\"replay\": true, \"requests\": %d, \"cpu_us_per_request\": %.3f, "
      "\"completed\": %d, \"expired\": %d, \"unfinished\": %d, \"errors\": "
      "%d, \"check_and_complete_calls\": %d}\n",
      num, cpu_seconds * 1e6 / static_cast<double>(num),
      recorder.done.load() - expired, expired, num - recorder.done.load(),
      errors, check_calls);
  return 0;
}

int Main() {
  const double rate = absl::GetFlag(FLAGS_rate);
  int64_t num = absl::GetFlag(FLAGS_num);
  if (num <= 0) {
    num = static_cast<int64_t>(
        rate * absl::ToDoubleSeconds(absl::GetFlag(FLAGS_duration)));
  }
  num = std::max<int64_t>(1, num);
  const int key_space = std::max(1, absl::GetFlag(FLAGS_key_space));
  const int keys_per_request = std::max(1, absl::GetFlag(FLAGS_keys));
  const int64_t timeout_ms = absl::GetFlag(FLAGS_timeout);
  const absl::Duration timeout = absl::Milliseconds(timeout_ms);

  std::vector<std::string> key_names;
  for (int k = 0; k < key_space; ++k) {
    key_names.push_back(absl::StrCat("fakeKey", k));
  }
  std::mt19937_64 rng(20150101);
  LatencySampler latency(absl::GetFlag(FLAGS_pct50),
                         absl::GetFlag(FLAGS_pct75));
  std::uniform_int_distribution<int> key_dist(0, key_space - 1);
  std::vector<int> fixed;
  for (int k = 0; k < keys_per_request; ++k) fixed.push_back(key_dist(rng));
  const bool fixed_keys = absl::GetFlag(FLAGS_fixed_keys);
  if (absl::GetFlag(FLAGS_replay)) {
    return Replay(num, rate, keys_per_request, key_space, fixed_keys, fixed,
                  timeout_ms, latency, rng, key_names);
  }
  PurgatoryOptions options;
  options.shards = absl::GetFlag(FLAGS_shards);
  std::unique_ptr<Purgatory> purgatory = Purgatory::Create(options).value();
  Recorder recorder(num);
  for (int64_t i = 0; i < num; ++i) recorder.latency[i].store(kNotFired);

  std::fprintf(stderr,
               "purgatory_perf: %lld requests at %.0f/s, %d of %d keys each, "
               "latency p50 %.1f ms p75 %.1f ms, timeout %lld ms, "
               "%d generator thread(s)\n",
               static_cast<long long>(num), rate, keys_per_request, key_space,
               absl::GetFlag(FLAGS_pct50), absl::GetFlag(FLAGS_pct75),
               static_cast<long long>(timeout_ms),
               std::max(1, absl::GetFlag(FLAGS_generators)));

  const int generators = std::max(1, absl::GetFlag(FLAGS_generators));
  const double cpu_start = CpuSeconds();
  int64_t handed_to_completer = 0;
  int64_t check_calls = 0;
  int64_t errors = 0;
  double generator_cpu = 0;
  double completer_cpu = 0;
  const int64_t start = Now();
  double arrival = static_cast<double>(start);
  int64_t end = start;
  {
    Completer completer(purgatory.get(), &key_names);
    std::vector<Generator> gens(static_cast<size_t>(generators));
    std::vector<std::thread> threads;
    for (int g = 0; g < generators; ++g) {
      Generator& gen = gens[static_cast<size_t>(g)];
      // Generator g makes requests g, g + G, g + 2G, ... at rate / G: the
      // merged arrivals are a Poisson process at `rate`.
      gen.first = g;
      gen.stride = generators;
      gen.rng.seed(20150101 + static_cast<uint64_t>(g));
      gen.rate = rate / generators;
      threads.emplace_back([&, g] {
        RunGenerator(gens[static_cast<size_t>(g)], /*report=*/g == 0, num,
                     start, timeout_ms, timeout, keys_per_request, fixed,
                     fixed_keys, key_space, key_names, latency, *purgatory,
                     completer, recorder);
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const Generator& gen : gens) {
      arrival = std::max(arrival, gen.arrival);
      end = std::max(end, gen.end);
      handed_to_completer += gen.handed_to_completer;
      errors += gen.errors;
      generator_cpu += gen.cpu_seconds;
    }
    // Kafka's latch: wait until every request completed or expired.
    const int64_t give_up = end + (timeout_ms + 10000) * 1000000;
    while (recorder.done.load(std::memory_order_acquire) < num &&
           Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    check_calls = completer.calls();
    completer.Stop();
    completer_cpu = completer.cpu_seconds();
  }
  const int64_t done_at = Now();
  const double cpu_seconds = CpuSeconds() - cpu_start;
  const PurgatoryMetrics metrics = purgatory->Metrics();
  purgatory->Shutdown();

  const double target_rate =
      static_cast<double>(num) * 1e9 / (arrival - static_cast<double>(start));
  const double actual_rate =
      static_cast<double>(num) * 1e9 / static_cast<double>(end - start);
  std::vector<double> latencies_ms;
  latencies_ms.reserve(static_cast<size_t>(num));
  for (int64_t i = 0; i < num; ++i) {
    const int64_t value = recorder.latency[i].load();
    if (value != kNotFired) latencies_ms.push_back(value / 1e6);
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const int64_t expired = recorder.expired.load();
  const int64_t completed = recorder.done.load() - expired;
  const double cpu_us_per_request = cpu_seconds * 1e6 / num;
  const double p50 = Percentile(latencies_ms, 50);
  const double p75 = Percentile(latencies_ms, 75);
  const double p99 = Percentile(latencies_ms, 99);
  const double p999 = Percentile(latencies_ms, 99.9);
  const double max = latencies_ms.empty() ? 0 : latencies_ms.back();
  const double elapsed = static_cast<double>(done_at - start) / 1e9;

  if (absl::GetFlag(FLAGS_json)) {
    absl::PrintF(
        "{\"requests\": %d, \"target_rate\": %.0f, \"actual_rate\": %.0f, "
        "\"rate_ratio\": %.4f, \"cpu_us_per_request\": %.3f, \"completed\": "
        "%d, \"expired\": %d, \"unfinished\": %d, \"errors\": %d, "
        "\"latency_p50_ms\": %.3f, \"latency_p75_ms\": %.3f, "
        "\"latency_p99_ms\": %.3f, \"latency_p999_ms\": %.3f, "
        "\"latency_max_ms\": %.3f, \"reaper_wakeups\": %d, "
        "\"completer_requests\": %d, \"check_and_complete_calls\": %d, "
        "\"generators\": %d, \"generator_cpu_s\": %.3f, "
        "\"completer_cpu_s\": %.3f, \"other_cpu_s\": %.3f, "
        "\"elapsed_s\": %.3f}\n",
        num, target_rate, actual_rate, actual_rate / target_rate,
        cpu_us_per_request, completed, expired, num - recorder.done.load(),
        errors, p50, p75, p99, p999, max, metrics.reaper_wakeups,
        handed_to_completer, check_calls, generators, generator_cpu,
        completer_cpu, cpu_seconds - generator_cpu - completer_cpu, elapsed);
    return 0;
  }
  absl::PrintF("# requests %d, %d keys of %d, timeout %d ms, elapsed %.2f s\n",
               num, keys_per_request, key_space, timeout_ms, elapsed);
  absl::PrintF("target rate      %12.0f /s\n", target_rate);
  absl::PrintF("achieved rate    %12.0f /s  (%.2f%% of target)\n", actual_rate,
               100.0 * actual_rate / target_rate);
  absl::PrintF("process CPU      %12.3f us per request (%.2f s)\n",
               cpu_us_per_request, cpu_seconds);
  absl::PrintF(
      "  by thread      generators %.2f s (%d), completer %.2f s, timer "
      "and main %.2f s\n",
      generator_cpu, generators, completer_cpu,
      cpu_seconds - generator_cpu - completer_cpu);
  absl::PrintF("completed        %12d  (by CheckAndComplete or at once)\n",
               completed);
  absl::PrintF("expired          %12d  (by the timer)\n", expired);
  if (num - recorder.done.load() > 0 || errors > 0) {
    absl::PrintF("unfinished       %12d  errors %d\n",
                 num - recorder.done.load(), errors);
  }
  absl::PrintF(
      "latency ms       p50 %.3f  p75 %.3f  p99 %.3f  p99.9 %.3f  max %.3f "
      "(requested p50 %.1f p75 %.1f)\n",
      p50, p75, p99, p999, max, absl::GetFlag(FLAGS_pct50),
      absl::GetFlag(FLAGS_pct75));
  absl::PrintF("reaper wake-ups  %12d\n", metrics.reaper_wakeups);
  absl::PrintF("completer        %12d requests, %d CheckAndComplete calls\n",
               handed_to_completer, check_calls);
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return timingwheel::bench::Main();
}
