// Copyright 2026 The timingwheel Authors.
//
// A measurement, not a test: schedules N tasks in batches for one instant
// a few seconds ahead, and reports the insert rate, the end-to-end rate
// (first to last handler call) and the lateness of the handler calls
// against their due times. Runs against $TIMINGWHEEL_PG (a database of its
// own), e.g.:
//
//   bash .ci/with-postgres bazel run -c opt
//       //tests/durable:durable_throughput -- 50000   (one command line)

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  auto db = timingwheel::durable_testing::TestDatabase::Create();
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  std::mutex mu;
  std::vector<absl::Duration> lateness;
  lateness.reserve(n);
  absl::Time first = absl::InfiniteFuture(), last = absl::InfinitePast();
  timingwheel::DurableOptions options;
  options.conninfo = (*db)->conninfo();
  options.max_in_flight = 1000;
  options.handler = [&](const timingwheel::DurableTask& task) {
    absl::Time now = absl::Now();
    std::lock_guard<std::mutex> lock(mu);
    lateness.push_back(now - task.due);
    first = std::min(first, now);
    last = std::max(last, now);
    return absl::OkStatus();
  };
  auto scheduler = timingwheel::DurableScheduler::Create(options);
  if (!scheduler.ok()) {
    std::fprintf(stderr, "%s\n", scheduler.status().ToString().c_str());
    return 1;
  }
  const absl::Time due = absl::Now() + absl::Seconds(3) +
                         absl::Microseconds(n * 20);  // After the inserts.
  const absl::Time start = absl::Now();
  std::vector<timingwheel::ScheduleRequest> batch;
  for (int i = 0; i < n; ++i) {
    timingwheel::ScheduleRequest r;
    r.id = absl::StrCat("task-", i);
    r.payload = std::string(32, 'p');
    r.due = due;
    batch.push_back(std::move(r));
    if (batch.size() == 1000 || i == n - 1) {
      absl::Status s = (*scheduler)->ScheduleBatch(batch);
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        return 1;
      }
      batch.clear();
    }
  }
  const absl::Duration insert_time = absl::Now() - start;
  const absl::Time deadline = due + absl::Seconds(120);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (static_cast<int>(lateness.size()) >= n) break;
    }
    if (absl::Now() > deadline) {
      std::fprintf(stderr, "timed out\n");
      return 1;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  (*scheduler)->Shutdown();
  std::sort(lateness.begin(), lateness.end());
  auto pct = [&](double p) {
    return absl::FormatDuration(lateness[static_cast<size_t>(p * (n - 1))]);
  };
  std::printf(
      "tasks %d\ninsert: %.0f tasks/s (batches of 1000)\n"
      "fire -> SUCCESS: %.0f tasks/s end to end (first to last handler "
      "call)\nlateness vs due: min %s p50 %s p99 %s max %s\n",
      n, n / absl::ToDoubleSeconds(insert_time),
      n / std::max(1e-9, absl::ToDoubleSeconds(last - first)),
      absl::FormatDuration(lateness.front()).c_str(), pct(0.5).c_str(),
      pct(0.99).c_str(), absl::FormatDuration(lateness.back()).c_str());
  return 0;
}
