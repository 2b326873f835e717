// Copyright 2026 The timingwheel Authors.
//
// PlanDueRuns(): the catch-up policies, the overlap policy, the edges
// (nothing due, a clock stepped back, bad arguments), and a seeded random
// walk of wake-ups that checks the header's four promises.

#include "durable/recurrence/recurrence_policy.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/recurrence/recurrence.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

absl::Time At(int hh, int mm = 0, int ss = 0) {
  return absl::FromCivil(absl::CivilSecond(2026, 5, 1, hh, mm, ss),
                         absl::UTCTimeZone());
}

Recurrence Hourly() {
  absl::StatusOr<Recurrence> r = Recurrence::ParseCron("0 * * * *", "UTC");
  EXPECT_TRUE(r.ok());
  return *r;
}

RecurrencePolicy Policy(CatchUp catch_up, int max_runs = 1) {
  RecurrencePolicy p;
  p.catch_up = catch_up;
  p.max_runs = max_runs;
  return p;
}

DuePlan Plan(absl::Time last, absl::Time now, const RecurrencePolicy& policy,
             bool running = false) {
  absl::StatusOr<DuePlan> plan =
      PlanDueRuns(Hourly(), last, now, policy, running);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

TEST(RecurrencePolicyTest, OnTimeRunsUnderEveryPolicy) {
  for (CatchUp c :
       {CatchUp::kSkipMissed, CatchUp::kRunOnce, CatchUp::kRunEachMissed}) {
    const DuePlan plan = Plan(At(10), At(11, 0, 2), Policy(c));
    EXPECT_THAT(plan.run, ElementsAre(At(11)));
    EXPECT_FALSE(plan.has_skipped());
    EXPECT_EQ(plan.last, At(11));
    EXPECT_EQ(plan.next, At(12));
  }
}

TEST(RecurrencePolicyTest, NothingDue) {
  const DuePlan plan = Plan(At(10), At(10, 30), Policy(CatchUp::kRunOnce));
  EXPECT_THAT(plan.run, IsEmpty());
  EXPECT_FALSE(plan.has_skipped());
  EXPECT_EQ(plan.last, At(10));
  EXPECT_EQ(plan.next, At(11));
}

TEST(RecurrencePolicyTest, ClockSteppedBackRunsNothingTwice) {
  const DuePlan plan = Plan(At(10), At(9, 30), Policy(CatchUp::kRunOnce));
  EXPECT_THAT(plan.run, IsEmpty());
  EXPECT_EQ(plan.last, At(10));
  EXPECT_EQ(plan.next, At(11));  // not 10:00 again
}

TEST(RecurrencePolicyTest, SkipMissed) {
  // Down from 10:00 to 15:30: 11:00-15:00 are all more than a minute late.
  DuePlan plan = Plan(At(10), At(15, 30), Policy(CatchUp::kSkipMissed));
  EXPECT_THAT(plan.run, IsEmpty());
  EXPECT_EQ(plan.skipped_first, At(11));
  EXPECT_EQ(plan.skipped_last, At(15));
  EXPECT_EQ(plan.last, At(15));
  EXPECT_EQ(plan.next, At(16));
  // Back at 15:00:30: 15:00 is within the grace period and runs.
  plan = Plan(At(10), At(15, 0, 30), Policy(CatchUp::kSkipMissed));
  EXPECT_THAT(plan.run, ElementsAre(At(15)));
  EXPECT_EQ(plan.skipped_first, At(11));
  EXPECT_EQ(plan.skipped_last, At(14));
  // A grace of three hours and room for five: 13:00-15:00 run.
  RecurrencePolicy wide = Policy(CatchUp::kSkipMissed, 5);
  wide.grace = absl::Hours(3);
  plan = Plan(At(10), At(16, 0), wide);
  EXPECT_THAT(plan.run, ElementsAre(At(13), At(14), At(15), At(16)));
  EXPECT_EQ(plan.skipped_first, At(11));
  EXPECT_EQ(plan.skipped_last, At(12));
}

TEST(RecurrencePolicyTest, RunOnce) {
  const DuePlan plan = Plan(At(10), At(15, 30), Policy(CatchUp::kRunOnce, 7));
  EXPECT_THAT(plan.run, ElementsAre(At(15)));
  EXPECT_EQ(plan.skipped_first, At(11));
  EXPECT_EQ(plan.skipped_last, At(14));
  EXPECT_EQ(plan.last, At(15));
  EXPECT_EQ(plan.next, At(16));
}

TEST(RecurrencePolicyTest, RunEachMissed) {
  DuePlan plan = Plan(At(10), At(15, 30), Policy(CatchUp::kRunEachMissed, 3));
  EXPECT_THAT(plan.run, ElementsAre(At(13), At(14), At(15)));
  EXPECT_EQ(plan.skipped_first, At(11));
  EXPECT_EQ(plan.skipped_last, At(12));
  plan = Plan(At(10), At(15, 30), Policy(CatchUp::kRunEachMissed, 10));
  EXPECT_THAT(plan.run, ElementsAre(At(11), At(12), At(13), At(14), At(15)));
  EXPECT_FALSE(plan.has_skipped());
  EXPECT_EQ(plan.last, At(15));
}

TEST(RecurrencePolicyTest, Overlap) {
  RecurrencePolicy skip = Policy(CatchUp::kRunEachMissed, 10);
  skip.overlap = Overlap::kSkipWhileRunning;
  DuePlan plan = Plan(At(10), At(12, 0, 5), skip, /*running=*/true);
  EXPECT_THAT(plan.run, IsEmpty());
  EXPECT_EQ(plan.skipped_first, At(11));
  EXPECT_EQ(plan.skipped_last, At(12));
  EXPECT_EQ(plan.last, At(12));
  EXPECT_EQ(plan.next, At(13));
  // Not running: the same plan runs both.
  plan = Plan(At(10), At(12, 0, 5), skip, /*running=*/false);
  EXPECT_THAT(plan.run, ElementsAre(At(11), At(12)));

  RecurrencePolicy anyway = skip;
  anyway.overlap = Overlap::kRunAnyway;
  plan = Plan(At(10), At(12, 0, 5), anyway, /*running=*/true);
  EXPECT_THAT(plan.run, ElementsAre(At(11), At(12)));
  EXPECT_FALSE(plan.has_skipped());
}

TEST(RecurrencePolicyTest, RejectsBadArguments) {
  RecurrencePolicy p;
  p.max_runs = 0;
  EXPECT_EQ(p.Validate().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.Validate().message()),
              ::testing::HasSubstr("max_runs"));
  p.max_runs = RecurrencePolicy::kMaxRunsLimit + 1;
  EXPECT_EQ(p.Validate().code(), absl::StatusCode::kInvalidArgument);
  p.max_runs = RecurrencePolicy::kMaxRunsLimit;
  EXPECT_TRUE(p.Validate().ok());
  p.grace = absl::Seconds(-1);
  EXPECT_THAT(std::string(p.Validate().message()),
              ::testing::HasSubstr("grace"));
  p.grace = absl::InfiniteDuration();
  EXPECT_EQ(p.Validate().code(), absl::StatusCode::kInvalidArgument);
  p.grace = absl::ZeroDuration();
  EXPECT_TRUE(p.Validate().ok());

  EXPECT_EQ(PlanDueRuns(Hourly(), At(10), At(11), p, false).status().code(),
            absl::StatusCode::kOk);
  p.max_runs = 0;
  EXPECT_EQ(PlanDueRuns(Hourly(), At(10), At(11), p, false).status().code(),
            absl::StatusCode::kInvalidArgument);
  p.max_runs = 1;
  EXPECT_EQ(PlanDueRuns(Hourly(), absl::InfinitePast(), At(11), p, false)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanDueRuns(Hourly(), At(10), absl::InfiniteFuture(), p, false)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// A schedule woken at random times (on time, a little late, after long
// gaps, sometimes with the previous run still going, sometimes with the
// clock stepped back) under random policies: over the whole walk, every
// occurrence is run or skipped exactly once, runs never come early, and
// `next` is always after `now` and `last`.
TEST(RecurrencePolicyTest, RandomWakeupsAccountForEveryOccurrenceOnce) {
  const std::vector<std::string> crons = {"*/7 * * * *", "0 */3 * * *",
                                          "30 1 * * *", "0,20 9-17 * * MON-FRI",
                                          "*/15 * * * *"};
  const std::vector<const char*> zones = {"UTC", "America/New_York",
                                          "Australia/Lord_Howe"};
  std::mt19937_64 rng(7);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const absl::Time start = absl::FromCivil(absl::CivilSecond(2026, 10, 30),
                                           absl::UTCTimeZone());  // fall-back
  int64_t runs = 0;
  int64_t skipped = 0;
  for (int trial = 0; trial < 60; ++trial) {
    absl::StatusOr<Recurrence> r =
        trial % 6 == 5
            ? Recurrence::Every(absl::Seconds(uniform(60, 5000)), start)
            : Recurrence::ParseCron(crons[uniform(0, crons.size() - 1)],
                                    zones[uniform(0, zones.size() - 1)]);
    ASSERT_TRUE(r.ok()) << r.status();
    RecurrencePolicy policy;
    policy.catch_up = static_cast<CatchUp>(uniform(0, 2));
    policy.overlap = static_cast<Overlap>(uniform(0, 1));
    policy.max_runs = static_cast<int>(uniform(1, 4));
    policy.grace = absl::Seconds(uniform(0, 600));
    const std::string where = absl::StrCat(
        r->ToString(), " policy ", static_cast<int>(policy.catch_up), "/",
        static_cast<int>(policy.overlap), " max ", policy.max_runs);

    std::vector<absl::Time> accounted;  // runs and skipped, in order
    absl::Time last = start;
    absl::Time now = start;
    for (int wake = 0; wake < 80; ++wake) {
      switch (uniform(0, 3)) {
        case 0:  // at `next`, slightly late
          now = std::max(now, r->Next(last)) + absl::Seconds(uniform(0, 5));
          break;
        case 1:  // a while later
          now += absl::Seconds(uniform(1, 3 * 3600));
          break;
        case 2:  // after a long outage
          now += absl::Hours(uniform(3, 30));
          break;
        default:  // the clock stepped back
          now -= absl::Seconds(uniform(1, 1800));
      }
      const bool running = uniform(0, 4) == 0;
      absl::StatusOr<DuePlan> plan =
          PlanDueRuns(*r, last, now, policy, running);
      ASSERT_TRUE(plan.ok()) << plan.status();
      ASSERT_GT(plan->next, now) << where;
      ASSERT_GT(plan->next, plan->last) << where;
      ASSERT_GE(plan->last, last) << where;
      ASSERT_LE(plan->last, std::max(now, last)) << where;
      // Everything newly accounted for, oldest first.
      std::vector<absl::Time> fresh;
      if (plan->has_skipped()) {
        fresh = r->Between(plan->skipped_first - absl::Nanoseconds(1),
                           plan->skipped_last, 100000);
        ASSERT_FALSE(fresh.empty()) << where;
        ASSERT_EQ(fresh.front(), plan->skipped_first) << where;
        ASSERT_EQ(fresh.back(), plan->skipped_last) << where;
      }
      skipped += fresh.size();
      runs += plan->run.size();
      for (absl::Time t : plan->run) {
        ASSERT_LE(t, now) << where << ": early";
        ASSERT_TRUE(fresh.empty() || t > fresh.back()) << where;
        fresh.push_back(t);
      }
      if (!plan->run.empty() && running &&
          policy.overlap == Overlap::kSkipWhileRunning) {
        FAIL() << where << ": ran while the previous run was running";
      }
      // Exactly the occurrences in (last, plan.last].
      ASSERT_EQ(fresh, r->Between(last, plan->last, 100000)) << where;
      accounted.insert(accounted.end(), fresh.begin(), fresh.end());
      last = plan->last;
    }
    // Nothing twice, nothing lost, from start to the last plan.
    ASSERT_EQ(accounted, r->Between(start, last, 1000000)) << where;
  }
  // The walk is not vacuous.
  EXPECT_GT(runs, 1000);
  EXPECT_GT(skipped, 1000);
}

}  // namespace
}  // namespace timingwheel
