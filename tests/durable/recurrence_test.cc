// Copyright 2026 The timingwheel Authors.
//
// Recurrence: next occurrences against hand-computed instants (UTC, leap
// years, day-31 months, the last second of a year), fixed intervals, the
// daylight-saving rules in America/New_York, Europe/London and
// Australia/Lord_Howe (a 30-minute shift) in 2026, and a seeded randomized
// cross-check of Next() and Last() against a scan of every second (every
// minute for five-field expressions).

#include "durable/recurrence/recurrence.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "durable/recurrence/recurrence_cron.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::TimeZone Zone(const char* name) {
  absl::TimeZone zone;
  EXPECT_TRUE(absl::LoadTimeZone(name, &zone))
      << "time zone " << name << " not found: install tzdata "
      << "(/usr/share/zoneinfo) or set TZDIR";
  return zone;
}

Recurrence CronIn(const char* expression, const char* zone) {
  absl::StatusOr<Recurrence> r = Recurrence::ParseCron(expression, zone);
  EXPECT_TRUE(r.ok()) << expression << ": " << r.status();
  return *r;
}

// An instant written in UTC.
absl::Time Utc(int y, int m, int d, int hh = 0, int mm = 0, int ss = 0) {
  return absl::FromCivil(absl::CivilSecond(y, m, d, hh, mm, ss),
                         absl::UTCTimeZone());
}

TEST(RecurrenceTest, TimeZoneDataIsAvailable) {
  for (const char* name :
       {"America/New_York", "Europe/London", "Australia/Lord_Howe"}) {
    absl::TimeZone zone;
    EXPECT_TRUE(absl::LoadTimeZone(name, &zone))
        << name << " not found: the recurrence calendar needs the system's "
        << "time zone data (Debian package tzdata, /usr/share/zoneinfo, or "
        << "TZDIR pointing at a copy)";
  }
}

TEST(RecurrenceTest, NextIsStrictlyAfter) {
  const Recurrence r = CronIn("0 12 * * *", "UTC");
  const absl::Time noon = Utc(2026, 6, 1, 12);
  EXPECT_EQ(r.Next(noon - absl::Nanoseconds(1)), noon);
  EXPECT_EQ(r.Next(noon), Utc(2026, 6, 2, 12));
  EXPECT_EQ(r.Next(noon + absl::Milliseconds(500)), Utc(2026, 6, 2, 12));
  EXPECT_EQ(r.Next(Utc(2026, 6, 1)), noon);
}

TEST(RecurrenceTest, LeapDay) {
  EXPECT_EQ(CronIn("0 0 29 2 *", "UTC").Next(Utc(2027, 1, 1)),
            Utc(2028, 2, 29));
  EXPECT_EQ(CronIn("0 0 29 2 *", "UTC").Next(Utc(2028, 2, 29)),
            Utc(2032, 2, 29));
  // 2100 is not a leap year.
  EXPECT_EQ(CronIn("0 0 29 2 *", "UTC").Next(Utc(2097, 1, 1)),
            Utc(2104, 2, 29));
  EXPECT_EQ(CronIn("0 12 29 * *", "UTC").Next(Utc(2026, 2, 1)),
            Utc(2026, 3, 29, 12));
}

TEST(RecurrenceTest, ImpossibleDateIsInfiniteFuture) {
  const absl::Time start = absl::Now();
  EXPECT_EQ(CronIn("0 0 30 2 *", "UTC").Next(Utc(2027, 1, 1)),
            absl::InfiniteFuture());
  EXPECT_EQ(
      CronIn("0 0 31 4,6,9,11 *", "America/New_York").Next(Utc(2026, 1, 1)),
      absl::InfiniteFuture());
  // Bounded: two searches of 400 years take well under a second.
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(RecurrenceTest, Day31Months) {
  const Recurrence r = CronIn("0 0 31 * *", "UTC");
  EXPECT_EQ(r.Next(Utc(2026, 1, 31)), Utc(2026, 3, 31));
  EXPECT_EQ(r.Next(Utc(2026, 3, 31)), Utc(2026, 5, 31));
  EXPECT_EQ(r.Next(Utc(2026, 7, 31)), Utc(2026, 8, 31));
}

TEST(RecurrenceTest, LastSecondOfTheYear) {
  const Recurrence r = CronIn("59 59 23 31 12 *", "UTC");
  EXPECT_EQ(r.Next(Utc(2026, 6, 1)), Utc(2026, 12, 31, 23, 59, 59));
  EXPECT_EQ(r.Next(Utc(2026, 12, 31, 23, 59, 59)),
            Utc(2027, 12, 31, 23, 59, 59));
  EXPECT_EQ(CronIn("* * * * * *", "UTC").Next(Utc(2026, 12, 31, 23, 59, 59)),
            Utc(2027, 1, 1));
  EXPECT_EQ(CronIn("@yearly", "UTC").Next(Utc(2026, 12, 31, 23, 59, 59)),
            Utc(2027, 1, 1));
}

TEST(RecurrenceTest, FarFuture) {
  EXPECT_EQ(CronIn("@yearly", "UTC").Next(Utc(9999, 6, 1)), Utc(10000, 1, 1));
  // The zone's rule for years past its table: 2100-03-14 springs forward.
  EXPECT_EQ(CronIn("30 2 * * *", "America/New_York").Next(Utc(2100, 3, 13, 12)),
            Utc(2100, 3, 14, 7));
}

TEST(RecurrenceTest, InZone) {
  // 09:30 in New York is 14:30 UTC in winter (EST) and 13:30 in summer.
  const Recurrence r = CronIn("30 9 * * MON-FRI", "America/New_York");
  EXPECT_EQ(r.Next(Utc(2026, 1, 2, 15)), Utc(2026, 1, 5, 14, 30));
  EXPECT_EQ(r.Next(Utc(2026, 7, 1, 12)), Utc(2026, 7, 1, 13, 30));
}

TEST(RecurrenceTest, LastIsAtOrBefore) {
  const Recurrence r = CronIn("0 12 * * *", "UTC");
  const absl::Time noon = Utc(2026, 6, 1, 12);
  EXPECT_EQ(r.Last(noon), noon);
  EXPECT_EQ(r.Last(noon - absl::Nanoseconds(1)), Utc(2026, 5, 31, 12));
  EXPECT_EQ(r.Last(noon + absl::Hours(23)), noon);
  EXPECT_EQ(CronIn("0 0 29 2 *", "UTC").Last(Utc(2028, 2, 28)),
            Utc(2024, 2, 29));
  EXPECT_EQ(CronIn("0 0 30 2 *", "UTC").Last(Utc(2028, 2, 28)),
            absl::InfinitePast());
  EXPECT_EQ(r.Last(absl::InfiniteFuture()), absl::InfinitePast());
  EXPECT_EQ(r.Last(absl::InfinitePast()), absl::InfinitePast());

  const absl::Time anchor = Utc(2026, 3, 8, 6, 50);
  absl::StatusOr<Recurrence> every =
      Recurrence::Every(absl::Minutes(15), anchor);
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->Last(anchor - absl::Nanoseconds(1)), absl::InfinitePast());
  EXPECT_EQ(every->Last(anchor), anchor);
  EXPECT_EQ(every->Last(anchor + absl::Minutes(29)),
            anchor + absl::Minutes(15));
  EXPECT_EQ(every->Last(anchor + absl::Minutes(30)),
            anchor + absl::Minutes(30));
}

TEST(RecurrenceTest, NextOfInfiniteInstants) {
  const Recurrence r = CronIn("* * * * *", "UTC");
  EXPECT_EQ(r.Next(absl::InfiniteFuture()), absl::InfiniteFuture());
  EXPECT_EQ(r.Next(absl::InfinitePast()), absl::InfiniteFuture());
}

TEST(RecurrenceTest, Every) {
  const absl::Time anchor = Utc(2026, 3, 8, 6, 50);
  absl::StatusOr<Recurrence> r = Recurrence::Every(absl::Minutes(15), anchor);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->is_cron());
  EXPECT_EQ(r->Next(anchor - absl::Hours(5)), anchor);
  EXPECT_EQ(r->Next(anchor - absl::Nanoseconds(1)), anchor);
  EXPECT_EQ(r->Next(anchor), anchor + absl::Minutes(15));
  EXPECT_EQ(r->Next(anchor + absl::Minutes(7)), anchor + absl::Minutes(15));
  EXPECT_EQ(r->Next(anchor + absl::Minutes(15) - absl::Nanoseconds(1)),
            anchor + absl::Minutes(15));
  EXPECT_EQ(r->Next(anchor + absl::Hours(24 * 365)),
            anchor + absl::Hours(24 * 365) + absl::Minutes(15));
  EXPECT_EQ(r->Next(absl::InfiniteFuture()), absl::InfiniteFuture());
  EXPECT_EQ(r->Next(absl::InfinitePast()), anchor);
  EXPECT_EQ(r->ToString(), "every 15m from 2026-03-08T06:50:00+00:00");
}

TEST(RecurrenceTest, EveryRejectsBadArguments) {
  const absl::Time anchor = Utc(2026, 1, 1);
  for (absl::Duration d :
       {absl::ZeroDuration(), absl::Seconds(-1), absl::InfiniteDuration()}) {
    absl::StatusOr<Recurrence> r = Recurrence::Every(d, anchor);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << d;
    EXPECT_THAT(std::string(r.status().message()),
                HasSubstr("must be positive and finite"));
  }
  EXPECT_EQ(Recurrence::Every(absl::Seconds(1), absl::InfiniteFuture())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RecurrenceTest, ParseCronRejectsUnknownZone) {
  absl::StatusOr<Recurrence> r =
      Recurrence::ParseCron("0 0 * * *", "Mars/Olympus_Mons");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("unknown time zone \"Mars/Olympus_Mons\""));
  r = Recurrence::ParseCron("0 24 * * *", "UTC");
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("hour field"));
  EXPECT_EQ(CronIn("@hourly", "Europe/London").ToString(),
            "cron \"0 * * * *\" in Europe/London");
}

TEST(RecurrenceTest, BetweenListsMissedOccurrences) {
  const Recurrence r = CronIn("0 * * * *", "UTC");
  EXPECT_THAT(
      r.Between(Utc(2026, 5, 1, 0, 30), Utc(2026, 5, 1, 5), 10),
      ElementsAre(Utc(2026, 5, 1, 1), Utc(2026, 5, 1, 2), Utc(2026, 5, 1, 3),
                  Utc(2026, 5, 1, 4), Utc(2026, 5, 1, 5)));
  EXPECT_THAT(r.Between(Utc(2026, 5, 1, 0, 30), Utc(2026, 5, 1, 5), 2),
              ElementsAre(Utc(2026, 5, 1, 1), Utc(2026, 5, 1, 2)));
  EXPECT_TRUE(r.Between(Utc(2026, 5, 1, 1), Utc(2026, 5, 1, 1), 10).empty());
  EXPECT_TRUE(r.Between(Utc(2026, 5, 1), Utc(2026, 5, 2), 0).empty());
  EXPECT_TRUE(CronIn("0 0 30 2 *", "UTC")
                  .Between(Utc(2026, 1, 1), absl::InfiniteFuture(), 5)
                  .empty());
}

// --- Daylight saving, 2026 -------------------------------------------------
// America/New_York: 2026-03-08 02:00 EST -> 03:00 EDT (07:00 UTC);
//                   2026-11-01 02:00 EDT -> 01:00 EST (06:00 UTC).
// Europe/London:    2026-03-29 01:00 GMT -> 02:00 BST (01:00 UTC);
//                   2026-10-25 02:00 BST -> 01:00 GMT (01:00 UTC).
// Australia/Lord_Howe (+10:30 standard, +11 summer):
//                   2026-04-05 02:00 -> 01:30 (2026-04-04 15:00 UTC);
//                   2026-10-04 02:00 -> 02:30 (2026-10-03 15:30 UTC).

TEST(RecurrenceDstTest, SpringForwardRunsSkippedWallTimeAtGapEnd) {
  const Recurrence ny = CronIn("30 2 * * *", "America/New_York");
  EXPECT_EQ(ny.Next(Utc(2026, 3, 7, 12)), Utc(2026, 3, 8, 7));  // 03:00 EDT
  EXPECT_EQ(ny.Next(Utc(2026, 3, 8, 7)), Utc(2026, 3, 9, 6, 30));
  EXPECT_EQ(ny.Next(Utc(2026, 3, 6, 12)), Utc(2026, 3, 7, 7, 30));  // EST

  const Recurrence london = CronIn("30 1 * * *", "Europe/London");
  EXPECT_EQ(london.Next(Utc(2026, 3, 28, 12)), Utc(2026, 3, 29, 1));
  EXPECT_EQ(london.Next(Utc(2026, 3, 29, 1)), Utc(2026, 3, 30, 0, 30));

  const Recurrence lord_howe = CronIn("10 2 * * *", "Australia/Lord_Howe");
  EXPECT_EQ(lord_howe.Next(Utc(2026, 10, 3, 12)), Utc(2026, 10, 3, 15, 30));
  // 2026-10-05 02:10 +11:00.
  EXPECT_EQ(lord_howe.Next(Utc(2026, 10, 3, 15, 30)), Utc(2026, 10, 4, 15, 10));
}

TEST(RecurrenceDstTest, FallBackRunsRepeatedWallTimeOnce) {
  const Recurrence ny = CronIn("30 1 * * *", "America/New_York");
  EXPECT_EQ(ny.Next(Utc(2026, 10, 31, 12)), Utc(2026, 11, 1, 5, 30));  // EDT
  // Not 06:30 UTC (01:30 EST, the second instance) but the next day.
  EXPECT_EQ(ny.Next(Utc(2026, 11, 1, 5, 30)), Utc(2026, 11, 2, 6, 30));
  // From inside the repeated hour (01:10 EST), also the next day.
  EXPECT_EQ(ny.Next(Utc(2026, 11, 1, 6, 10)), Utc(2026, 11, 2, 6, 30));

  const Recurrence london = CronIn("30 1 * * *", "Europe/London");
  EXPECT_EQ(london.Next(Utc(2026, 10, 24, 12)), Utc(2026, 10, 25, 0, 30));
  EXPECT_EQ(london.Next(Utc(2026, 10, 25, 0, 30)), Utc(2026, 10, 26, 1, 30));

  // Lord Howe repeats 01:30-01:59 (first at +11, then at +10:30).
  const Recurrence lord_howe = CronIn("45 1 * * *", "Australia/Lord_Howe");
  EXPECT_EQ(lord_howe.Next(Utc(2026, 4, 4, 12)), Utc(2026, 4, 4, 14, 45));
  EXPECT_EQ(lord_howe.Next(Utc(2026, 4, 4, 14, 45)), Utc(2026, 4, 5, 15, 15));
}

TEST(RecurrenceDstTest, EveryQuarterHourAcrossGap) {
  // 01:15, 01:30, 01:45 EST; 02:00-02:45 do not exist and fold into
  // 03:00 EDT; then every 15 minutes.
  EXPECT_THAT(CronIn("*/15 * * * *", "America/New_York")
                  .Between(Utc(2026, 3, 8, 6), Utc(2026, 3, 8, 8), 100),
              ElementsAre(Utc(2026, 3, 8, 6, 15), Utc(2026, 3, 8, 6, 30),
                          Utc(2026, 3, 8, 6, 45), Utc(2026, 3, 8, 7),
                          Utc(2026, 3, 8, 7, 15), Utc(2026, 3, 8, 7, 30),
                          Utc(2026, 3, 8, 7, 45), Utc(2026, 3, 8, 8)));
  // Hourly: 02:00 is skipped and makes one run with 03:00.
  EXPECT_THAT(
      CronIn("0 * * * *", "America/New_York")
          .Between(Utc(2026, 3, 8, 5, 30), Utc(2026, 3, 8, 8, 30), 100),
      ElementsAre(Utc(2026, 3, 8, 6), Utc(2026, 3, 8, 7), Utc(2026, 3, 8, 8)));
  // Lord Howe skips 02:00-02:29: 02:00 and 02:15 fold into 02:30.
  EXPECT_THAT(CronIn("*/15 * * * *", "Australia/Lord_Howe")
                  .Between(Utc(2026, 10, 3, 15), Utc(2026, 10, 3, 16), 100),
              ElementsAre(Utc(2026, 10, 3, 15, 15), Utc(2026, 10, 3, 15, 30),
                          Utc(2026, 10, 3, 15, 45), Utc(2026, 10, 3, 16)));
  // Minute 10 of every hour: 02:10 is skipped, so 02:30 runs, then 03:10.
  EXPECT_THAT(CronIn("10 * * * *", "Australia/Lord_Howe")
                  .Between(Utc(2026, 10, 3, 14), Utc(2026, 10, 3, 17), 100),
              ElementsAre(Utc(2026, 10, 3, 14, 40), Utc(2026, 10, 3, 15, 30),
                          Utc(2026, 10, 3, 16, 10)));
}

TEST(RecurrenceDstTest, EveryQuarterHourAcrossRepeatedHour) {
  // 01:00-01:45 EDT run; the repeated 01:00-01:59 EST does not; then
  // 02:00 EST, 75 minutes after 01:45 EDT.
  EXPECT_THAT(
      CronIn("*/15 * * * *", "America/New_York")
          .Between(Utc(2026, 11, 1, 4, 50), Utc(2026, 11, 1, 7, 20), 100),
      ElementsAre(Utc(2026, 11, 1, 5), Utc(2026, 11, 1, 5, 15),
                  Utc(2026, 11, 1, 5, 30), Utc(2026, 11, 1, 5, 45),
                  Utc(2026, 11, 1, 7), Utc(2026, 11, 1, 7, 15)));
  // From inside the repeated hour: 02:00 EST next.
  EXPECT_EQ(
      CronIn("*/15 * * * *", "America/New_York").Next(Utc(2026, 11, 1, 6, 20)),
      Utc(2026, 11, 1, 7));
  // Lord Howe: 01:30 and 01:45 at +11 run, not again at +10:30.
  EXPECT_THAT(CronIn("*/15 * * * *", "Australia/Lord_Howe")
                  .Between(Utc(2026, 4, 4, 14), Utc(2026, 4, 4, 15, 30), 100),
              ElementsAre(Utc(2026, 4, 4, 14, 15), Utc(2026, 4, 4, 14, 30),
                          Utc(2026, 4, 4, 14, 45), Utc(2026, 4, 4, 15, 30)));
}

TEST(RecurrenceDstTest, LastAcrossTransitions) {
  const Recurrence gap = CronIn("30 2 * * *", "America/New_York");
  EXPECT_EQ(gap.Last(Utc(2026, 3, 8, 7)), Utc(2026, 3, 8, 7));
  EXPECT_EQ(gap.Last(Utc(2026, 3, 8, 6, 59, 59)), Utc(2026, 3, 7, 7, 30));
  const Recurrence repeated = CronIn("30 1 * * *", "America/New_York");
  // 01:10 and 01:40 EST (second instances): the 01:30 EDT run.
  EXPECT_EQ(repeated.Last(Utc(2026, 11, 1, 6, 10)), Utc(2026, 11, 1, 5, 30));
  EXPECT_EQ(repeated.Last(Utc(2026, 11, 1, 6, 40)), Utc(2026, 11, 1, 5, 30));
  EXPECT_EQ(repeated.Last(Utc(2026, 11, 1, 5, 29)), Utc(2026, 10, 31, 5, 30));
  const Recurrence quarter = CronIn("*/15 * * * *", "Australia/Lord_Howe");
  // 01:50 at +10:30, the second pass: the last run was 01:45 at +11.
  EXPECT_EQ(quarter.Last(Utc(2026, 4, 4, 15, 20)), Utc(2026, 4, 4, 14, 45));
}

TEST(RecurrenceDstTest, EveryIgnoresTransitions) {
  absl::StatusOr<Recurrence> r =
      Recurrence::Every(absl::Minutes(15), Utc(2026, 11, 1));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(
      r->Between(Utc(2026, 11, 1, 5, 50), Utc(2026, 11, 1, 6, 50), 100).size(),
      4u);
}

// --- Randomized cross-check ------------------------------------------------

// BruteForce()
//
// The occurrences in (from, to], found by looking at every `step` from three
// hours before `from` (so a repeated hour's first instance has been seen)
// with the rules stated in recurrence.h, independently of NextMatch():
// instant t is an occurrence when its wall time matches and has not been
// seen at an earlier instant, or when t ends a gap some matching wall time
// fell into. A step of a minute finds every occurrence of a five-field
// expression in these zones, whose offsets and 2026 transitions are whole
// minutes.
std::vector<absl::Time> BruteForce(const CronExpression& e, absl::TimeZone zone,
                                   absl::Time from, absl::Time to,
                                   absl::Duration step) {
  const int64_t step_s = absl::ToInt64Seconds(step);
  std::vector<absl::Time> out;
  absl::Time t = absl::FromUnixSeconds(
      absl::ToUnixSeconds(from - absl::Hours(3)) / step_s * step_s);
  absl::CivilSecond prev = zone.At(t - step).cs;
  absl::CivilSecond max_seen = prev;
  for (; t <= to; t += step) {
    const absl::CivilSecond c = zone.At(t).cs;
    bool occurs = c > max_seen && e.Matches(c);
    // Wall times no instant had: after the last one scanned, before c.
    for (absl::CivilSecond s = prev + step_s; !occurs && s < c; ++s) {
      occurs = e.Matches(s);
    }
    if (occurs && t > from) out.push_back(t);
    if (c > max_seen) max_seen = c;
    prev = c;
  }
  return out;
}

// A random field; with `low_values`, values start in min..min+3 half of
// the time (the hours where the 2026 transitions are).
std::string RandomField(std::mt19937_64& rng, int min, int max,
                        int star_percent, bool low_values = false) {
  auto uniform = [&rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const int roll = uniform(0, 99);
  if (roll < star_percent) return "*";
  if (roll < star_percent + 15) return absl::StrCat("*/", uniform(2, max / 2));
  const int a = uniform(min, low_values && uniform(0, 1) ? min + 3 : max);
  const int b = uniform(a, max);
  switch (uniform(0, 3)) {
    case 0:
      return absl::StrCat(a);
    case 1:
      return absl::StrCat(a, "-", b);
    case 2:
      return absl::StrCat(a, "-", b, "/", uniform(1, 5));
    default:
      return absl::StrCat(a, ",", uniform(min, max), ",", b);
  }
}

// Random expressions, zones and three-day windows, half of them around a
// 2026 transition: the chain of Next() from the window's start, the chain of
// Last() from its end, and Next() and Last() from random instants inside it,
// agree with BruteForce(). Seeded,
// so every run checks the same cases.
TEST(RecurrenceRandomTest, NextAgreesWithBruteForceScan) {
  struct ZoneCase {
    const char* name;
    std::vector<absl::Time> transitions;
  };
  const std::vector<ZoneCase> zones = {
      {"UTC", {}},
      {"America/New_York", {Utc(2026, 3, 8, 7), Utc(2026, 11, 1, 6)}},
      {"Europe/London", {Utc(2026, 3, 29, 1), Utc(2026, 10, 25, 1)}},
      {"Australia/Lord_Howe", {Utc(2026, 4, 4, 15), Utc(2026, 10, 3, 15, 30)}},
  };
  std::mt19937_64 rng(20261202);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  constexpr int kTrials = 160;
  int occurrences = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    // Zones in turn; three windows in four of a zone with transitions
    // contain one, alternately spring-forward and fall-back.
    const ZoneCase& z = zones[trial % zones.size()];
    const int round = trial / static_cast<int>(zones.size());
    const absl::TimeZone zone = Zone(z.name);
    absl::Time from;
    if (!z.transitions.empty() && round % 4 != 3) {
      from = z.transitions[round % 2] - absl::Seconds(uniform(0, 20 * 3600));
    } else {
      from = Utc(2026, 1, 1) + absl::Seconds(uniform(0, 4 * 365 * 86400));
    }
    const bool seconds = uniform(0, 4) == 0;
    // Six-field expressions are scanned second by second: a shorter window.
    const absl::Time to = from + absl::Hours(seconds ? 24 : 72);
    const std::string text = absl::StrCat(
        seconds ? RandomField(rng, 0, 59, 20) + " " : "",
        RandomField(rng, 0, 59, 25), " ", RandomField(rng, 0, 23, 40, true),
        " ", RandomField(rng, 1, 31, 70), " ", uniform(0, 5) == 0 ? "1-6" : "*",
        " ", RandomField(rng, 0, 7, 60));
    absl::StatusOr<CronExpression> e = CronExpression::Parse(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status();
    const Recurrence r = Recurrence::Cron(*e, zone);
    const std::vector<absl::Time> expected =
        BruteForce(*e, zone, from, to, absl::Seconds(seconds ? 1 : 60));
    occurrences += expected.size();
    const std::string where = absl::StrCat(
        "cron \"", text, "\" in ", z.name, " from ",
        absl::FormatTime(absl::RFC3339_full, from, absl::UTCTimeZone()));

    // The first and the last (up to) kChain occurrences, walked with Next()
    // from the start and with Last() from the end.
    constexpr size_t kChain = 3000;
    const size_t n = std::min(expected.size(), kChain);
    // One more than expected when all are expected, to catch an extra one.
    const size_t limit = expected.size() > kChain ? n : n + 1;
    std::vector<absl::Time> chain;
    for (absl::Time t = r.Next(from); t <= to && chain.size() < limit;
         t = r.Next(t)) {
      chain.push_back(t);
    }
    ASSERT_EQ(chain,
              std::vector<absl::Time>(expected.begin(), expected.begin() + n))
        << where;
    std::vector<absl::Time> back;
    for (absl::Time t = r.Last(to); t > from && back.size() < limit;
         t = r.Last(t - absl::Nanoseconds(1))) {
      back.push_back(t);
    }
    std::reverse(back.begin(), back.end());
    ASSERT_EQ(back, std::vector<absl::Time>(expected.end() - n, expected.end()))
        << where << " (Last, backwards)";

    for (int probe = 0; probe < 40; ++probe) {
      const absl::Time after =
          from +
          absl::Nanoseconds(uniform(0, absl::ToInt64Nanoseconds(to - from)));
      const auto it = std::upper_bound(expected.begin(), expected.end(), after);
      const absl::Time next = r.Next(after);
      if (it != expected.end()) {
        ASSERT_EQ(next, *it) << where << " after " << after;
      } else {
        ASSERT_GT(next, to) << where << " after " << after;
      }
      const absl::Time last = r.Last(after);
      if (it != expected.begin()) {
        ASSERT_EQ(last, *(it - 1)) << where << " Last(" << after << ")";
      } else {
        ASSERT_LE(last, from) << where << " Last(" << after << ")";
      }
    }
  }
  // The cases are not vacuous.
  EXPECT_GT(occurrences, kTrials * 10);
}

}  // namespace
}  // namespace timingwheel
