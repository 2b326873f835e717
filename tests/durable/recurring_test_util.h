// Copyright 2026 The timingwheel Authors.
//
// Helpers for the recurring-schedule tests (recurring_test.cc on
// PostgreSQL, recurring_logic_test.cc on both stores): a schedule every
// 200 ms, and checks on the occurrences a `Recorder` saw run.

#ifndef TIMINGWHEEL_TESTS_DURABLE_RECURRING_TEST_UTIL_H_
#define TIMINGWHEEL_TESTS_DURABLE_RECURRING_TEST_UTIL_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/recurring.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {

inline constexpr absl::Duration kEvery = absl::Milliseconds(200);

// A schedule `name` every kEvery with payload "tick", a 50 ms grace and at
// most 100 catch-up runs.
inline RecurringSchedule Every(const std::string& name, Overlap overlap,
                               CatchUp catch_up) {
  RecurringSchedule s;
  s.name = name;
  s.every = kEvery;
  s.payload = "tick";
  s.policy.overlap = overlap;
  s.policy.catch_up = catch_up;
  s.policy.grace = absl::Milliseconds(50);
  s.policy.max_runs = 100;
  return s;
}

// The occurrences the handler ran, in call order.
inline std::vector<absl::Time> Occurrences(Recorder& recorder) {
  std::vector<absl::Time> out;
  for (const Recorder::Call& c : recorder.calls()) {
    out.push_back(c.task.occurrence);
  }
  return out;
}

// Every call is an occurrence of `name`, on its grid, never early, and no
// occurrence ran twice.
inline void ExpectEachOnceOnTime(Recorder& recorder, const std::string& name) {
  std::map<absl::Time, int> runs;
  for (const Recorder::Call& c : recorder.calls()) {
    EXPECT_EQ(c.task.schedule, name);
    EXPECT_EQ(c.task.payload, "tick");
    EXPECT_EQ(c.task.id, durable_internal::OccurrenceId(
                             name, absl::ToUnixMicros(c.task.occurrence)));
    EXPECT_EQ(absl::ToUnixMicros(c.task.occurrence) %
                  absl::ToInt64Microseconds(kEvery),
              0);
    EXPECT_GE(c.task.due, c.task.occurrence);
    EXPECT_GE(c.at, c.task.occurrence) << "ran early";
    ++runs[c.task.occurrence];
  }
  for (const auto& [at, n] : runs) {
    EXPECT_EQ(n, 1) << "occurrence " << at << " ran " << n << " times";
  }
}

// No occurrence between the first and last run is missing.
inline void ExpectContiguous(Recorder& recorder) {
  std::vector<absl::Time> seen = Occurrences(recorder);
  std::sort(seen.begin(), seen.end());
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i] - seen[i - 1], kEvery) << "lost after " << seen[i - 1];
  }
}

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_RECURRING_TEST_UTIL_H_
