// Copyright 2026 The timingwheel Authors.
//
// PlanAdvance(): which occurrences a schedule writes, simulated over time
// without a database: every occurrence written exactly once and in order,
// across the daylight-saving nights of America/New_York and an outage.

#include "durable/recurrence/schedule_plan.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "durable/recurrence/recurrence.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

absl::Time NewYork(int y, int mo, int d, int h, int mi, absl::TimeZone zone) {
  return absl::FromCivil(absl::CivilMinute(y, mo, d, h, mi), zone);
}

// Simulates kSkipWhileRunning: each written occurrence runs at its instant
// and finishes a second later, when the schedule advances again.
std::vector<int64_t> RunSkipWhileRunning(const Recurrence& r, absl::Time from,
                                         absl::Time to) {
  RecurrencePolicy policy;
  policy.overlap = Overlap::kSkipWhileRunning;
  policy.catch_up = CatchUp::kRunOnce;
  std::vector<int64_t> written;
  int64_t last = absl::ToUnixMicros(from);
  int64_t now = last;
  PriorOccurrence prior;
  while (now < absl::ToUnixMicros(to)) {
    absl::StatusOr<AdvancePlan> plan = PlanAdvance(r, policy, last, now, prior);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (!plan.ok() || plan->write_us.size() != 1) {
      ADD_FAILURE() << "one occurrence at a time";
      break;
    }
    // While it is unfinished, nothing more is written.
    PriorOccurrence unfinished{true, true};
    absl::StatusOr<AdvancePlan> waiting =
        PlanAdvance(r, policy, plan->last_us, now, unfinished);
    EXPECT_TRUE(waiting.ok() && waiting->write_us.empty());
    const int64_t at = plan->write_us[0];
    EXPECT_GT(at, last);
    if (at < absl::ToUnixMicros(to)) written.push_back(at);
    last = plan->last_us;
    now = std::max(now, at) + 1000000;
    prior = PriorOccurrence{true, false};
  }
  return written;
}

std::vector<int64_t> Expected(const Recurrence& r, absl::Time from,
                              absl::Time to) {
  std::vector<int64_t> out;
  for (absl::Time t : r.Between(from, to - absl::Microseconds(1), 10000)) {
    out.push_back(absl::ToUnixMicros(t));
  }
  return out;
}

TEST(SchedulePlanTest, CronAcrossNewYorkDstNights) {
  absl::TimeZone zone;
  ASSERT_TRUE(absl::LoadTimeZone("America/New_York", &zone));
  absl::StatusOr<Recurrence> r =
      Recurrence::ParseCron("*/30 * * * *", "America/New_York");
  ASSERT_TRUE(r.ok()) << r.status();
  // Spring forward on 2026-03-08 (02:00 EST -> 03:00 EDT), fall back on
  // 2026-11-01 (02:00 EDT -> 01:00 EST).
  for (int month : {3, 11}) {
    SCOPED_TRACE(month);
    const int day = month == 3 ? 8 : 1;
    const absl::Time from = NewYork(2026, month, day - 1, 12, 0, zone);
    const absl::Time to = NewYork(2026, month, day + 1, 12, 0, zone);
    std::vector<int64_t> written = RunSkipWhileRunning(*r, from, to);
    EXPECT_EQ(written, Expected(*r, from, to)) << "lost or ran twice";
    std::set<int64_t> distinct(written.begin(), written.end());
    EXPECT_EQ(distinct.size(), written.size());
    // The night itself: 23 h with 02:00 and 02:30 folded into 03:00 (46
    // runs), or 25 h with the repeated hour run once (48 runs).
    const int64_t night_from =
        absl::ToUnixMicros(NewYork(2026, month, day, 0, 0, zone));
    const int64_t night_to =
        absl::ToUnixMicros(NewYork(2026, month, day + 1, 0, 0, zone));
    int runs = 0;
    for (int64_t t : written) runs += t >= night_from && t < night_to;
    EXPECT_EQ(runs, month == 3 ? 46 : 48);
  }
  // The gap: 01:30 EST (06:30 UTC), then 03:00 EDT (07:00 UTC), once.
  const absl::Time before_gap = absl::FromCivil(
      absl::CivilSecond(2026, 3, 8, 6, 30, 0), absl::UTCTimeZone());
  EXPECT_EQ(r->Next(before_gap),
            absl::FromCivil(absl::CivilSecond(2026, 3, 8, 7, 0, 0),
                            absl::UTCTimeZone()));
  // The repeated hour: 01:30 EDT (05:30 UTC), then 02:00 EST (07:00 UTC).
  const absl::Time before_repeat = absl::FromCivil(
      absl::CivilSecond(2026, 11, 1, 5, 30, 0), absl::UTCTimeZone());
  EXPECT_EQ(r->Next(before_repeat),
            absl::FromCivil(absl::CivilSecond(2026, 11, 1, 7, 0, 0),
                            absl::UTCTimeZone()));
}

TEST(SchedulePlanTest, RunAnywayWritesAheadEachOccurrenceOnceThroughOutages) {
  absl::TimeZone zone;
  ASSERT_TRUE(absl::LoadTimeZone("America/New_York", &zone));
  absl::StatusOr<Recurrence> r =
      Recurrence::ParseCron("*/15 * * * *", "America/New_York");
  ASSERT_TRUE(r.ok());
  RecurrencePolicy policy;
  policy.overlap = Overlap::kRunAnyway;
  policy.catch_up = CatchUp::kRunEachMissed;
  policy.max_runs = RecurrencePolicy::kMaxRunsLimit;
  const absl::Time from = NewYork(2026, 10, 31, 20, 0, zone);
  const absl::Time to = NewYork(2026, 11, 1, 6, 0, zone);
  std::set<int64_t> written;
  int64_t last = absl::ToUnixMicros(from);
  // Duty rounds every 30 minutes, with a 3-hour outage over the night.
  for (absl::Time now = from; now < to;
       now += (now >= NewYork(2026, 10, 31, 23, 0, zone) &&
               now < NewYork(2026, 11, 1, 0, 0, zone))
                  ? absl::Hours(3)
                  : absl::Minutes(30)) {
    absl::StatusOr<AdvancePlan> plan =
        PlanAdvance(*r, policy, last, absl::ToUnixMicros(now), {});
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (int64_t t : plan->write_us) {
      EXPECT_GT(t, last);
      EXPECT_TRUE(written.insert(t).second) << "written twice: " << t;
    }
    last = plan->last_us;
  }
  std::vector<int64_t> expected = Expected(*r, from, to);
  std::vector<int64_t> got;
  for (int64_t t : written) {
    if (t < absl::ToUnixMicros(to)) got.push_back(t);
  }
  EXPECT_EQ(got, expected);
}

// A schedule every 3 s, advanced by the owner's duty at each plan instant
// (up to half an interval late) and at random completions in between: at
// most kMaxOccurrencesAhead occurrences written and not yet due at any
// time, each written once, in order, and several intervals before it is
// due (never late for want of being written).
TEST(SchedulePlanTest, RunAnywayWritesAtMostTheBoundAhead) {
  const int64_t every_us = 3000000;
  absl::StatusOr<Recurrence> r =
      Recurrence::Every(absl::Microseconds(every_us), absl::UnixEpoch());
  ASSERT_TRUE(r.ok());
  RecurrencePolicy policy;
  policy.overlap = Overlap::kRunAnyway;
  policy.catch_up = CatchUp::kSkipMissed;
  policy.grace = absl::ZeroDuration();
  const int64_t start = absl::ToUnixMicros(absl::FromUnixSeconds(1800000000));
  const int64_t end = start + 3600 * int64_t{1000000};
  std::map<int64_t, int64_t> written_at;  // Occurrence -> instant written.
  std::mt19937_64 rng(7);
  int64_t last = start;
  int64_t now = start;
  int advances = 0;
  while (now < end) {
    absl::StatusOr<AdvancePlan> plan =
        PlanAdvance(*r, policy, last, now, PriorOccurrence{});
    ASSERT_TRUE(plan.ok()) << plan.status();
    ++advances;
    for (int64_t t : plan->write_us) {
      EXPECT_GT(t, last);
      EXPECT_TRUE(written_at.emplace(t, now).second) << "written twice";
    }
    last = plan->last_us;
    const int64_t ahead =
        std::distance(written_at.upper_bound(now), written_at.end());
    ASSERT_LE(ahead, kMaxOccurrencesAhead) << "more than the bound ahead";
    ASSERT_GE(ahead, kMaxOccurrencesAhead / 2);
    // NEXT RUN: the first occurrence after now, written.
    EXPECT_EQ(plan->next_us, written_at.upper_bound(now)->first);
    ASSERT_NE(plan->plan_us, kNoOccurrenceUs);
    const int64_t duty_at = plan->plan_us - kRunAnywayPlanLeadUs;
    EXPECT_GT(duty_at, now);
    // The duty comes up to half an interval late; a completion may advance
    // it earlier.
    int64_t next = duty_at + static_cast<int64_t>(rng() % (every_us / 2));
    if (rng() % 3 == 0) {
      next = now + 1 + static_cast<int64_t>(rng() % (duty_at - now));
    }
    now = next;
  }
  // Every occurrence once, none skipped, each written at least 4 intervals
  // before it was due (but the first ones, written at the creation).
  int64_t expected = start + every_us;
  for (const auto& [t, at] : written_at) {
    EXPECT_EQ(t, expected) << "lost";
    expected = t + every_us;
    if (at != start) {
      EXPECT_LE(at, t - 4 * every_us) << "written late";
    }
  }
  EXPECT_GE(written_at.rbegin()->first, end);
  // A few advances per 8 occurrences (about 1,200 in the hour), not one
  // per occurrence.
  EXPECT_LT(advances, 1200);
}

// A row an older version wrote a whole horizon ahead: nothing more is
// written until only half the bound waits.
TEST(SchedulePlanTest, RunAnywayOverTheBoundWritesNothingUntilItRunsLow) {
  absl::StatusOr<Recurrence> r =
      Recurrence::Every(absl::Seconds(3), absl::UnixEpoch());
  ASSERT_TRUE(r.ok());
  RecurrencePolicy policy;
  policy.overlap = Overlap::kRunAnyway;
  const int64_t now = 1800000000LL * 1000000;
  const int64_t last = now + 3600LL * 1000000;  // 1,200 ahead.
  absl::StatusOr<AdvancePlan> plan =
      PlanAdvance(*r, policy, last, now, PriorOccurrence{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->write_us.empty());
  EXPECT_EQ(plan->last_us, last);
  EXPECT_EQ(plan->plan_us - kRunAnywayPlanLeadUs,
            last - (kMaxOccurrencesAhead + 1) / 2 * 3000000);
  EXPECT_EQ(plan->next_us, now + 3000000);
  for (int bad : {0, 1, kMaxOccurrencesAhead + 1}) {
    EXPECT_TRUE(absl::IsInvalidArgument(
        PlanAdvance(*r, policy, last, now, PriorOccurrence{}, bad).status()));
  }
}

TEST(SchedulePlanTest, RecurrenceOfNamesTheBadField) {
  RecurringSchedule s;
  s.name = "n";
  s.payload = "p";
  s.cron = "* * 32 * *";
  absl::StatusOr<Recurrence> r = RecurrenceOf(s, 100);
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  EXPECT_NE(r.status().message().find("cron"), std::string::npos);
  s.cron = "* * * * *";
  s.payload = std::string(101, 'x');
  EXPECT_NE(RecurrenceOf(s, 100).status().message().find("payload"),
            std::string::npos);
  s.payload = "p";
  s.policy.grace = -absl::Seconds(1);
  EXPECT_NE(RecurrenceOf(s, 100).status().message().find("grace"),
            std::string::npos);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
