// Copyright 2026 The timingwheel Authors.
//
// CronExpression: parsing (valid and invalid, with the error text), the
// canonical form, and matching civil times (the day-of-month/day-of-week
// rule).

#include "durable/recurrence/recurrence_cron.h"

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/civil_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace {

using ::testing::HasSubstr;

struct ValidCase {
  const char* text;
  const char* canonical;
};

constexpr ValidCase kValid[] = {
    {"* * * * *", "* * * * *"},
    {"0 0 * * *", "0 0 * * *"},
    {"  0   0\t* * *  ", "0 0 * * *"},
    {"*/15 * * * *", "*/15 * * * *"},
    {"0-59/15 * * * *", "*/15 * * * *"},
    {"0,15,30,45 * * * *", "*/15 * * * *"},
    {"5/15 * * * *", "5-50/15 * * * *"},
    {"10-20/5 * * * *", "10-20/5 * * * *"},
    {"1,2,3,4,10 * * * *", "1-4,10 * * * *"},
    {"2,1 * * * *", "1,2 * * * *"},
    {"0-59 * * * *", "* * * * *"},
    {"0 9-17 * * MON-FRI", "0 9-17 * * 1-5"},
    {"0 0 1 jan,Jul *", "0 0 1 1,7 *"},
    {"0 0 1 JAN-DEC/3 *", "0 0 1 */3 *"},
    {"0 0 1 FEB-DEC/3 *", "0 0 1 2-11/3 *"},
    {"0,30 * * * *", "0,30 * * * *"},
    {"0 0 * 1-12 *", "0 0 * * *"},
    {"0 0 * * 7", "0 0 * * 0"},
    {"0 0 * * sun", "0 0 * * 0"},
    {"0 0 * * Sat,SUN", "0 0 * * 0,6"},
    {"0 0 * * 5-7", "0 0 * * 0,5,6"},
    {"0 0 * * 0-7", "0 0 * * 0-6"},
    {"0 0 * * FRI-SUN", "0 0 * * 0,5,6"},
    {"0 0 * * MON-SUN", "0 0 * * 0-6"},
    {"0 0 * * 5-0", "0 0 * * 0,5,6"},
    {"0 0 * * */2", "0 0 * * */2"},
    {"0 0 */2 * *", "0 0 */2 * *"},
    {"0 0 */10,5 * *", "0 0 */10,5 * *"},
    {"0 0 1-31 * *", "0 0 1-31 * *"},
    {"0 0 1/2 * *", "0 0 1-31/2 * *"},
    {"0 0 13 * FRI", "0 0 13 * 5"},
    {"59 23 31 12 *", "59 23 31 12 *"},
    {"0 0 0 * * *", "0 0 * * *"},
    {"30 0 0 * * *", "30 0 0 * * *"},
    {"*/10 * * * * *", "*/10 * * * * *"},
    {"59 59 23 31 12 *", "59 59 23 31 12 *"},
    {"@yearly", "0 0 1 1 *"},
    {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},
    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
    {"@DAILY", "0 0 * * *"},
};

TEST(CronParseTest, Valid) {
  for (const ValidCase& c : kValid) {
    absl::StatusOr<CronExpression> e = CronExpression::Parse(c.text);
    ASSERT_TRUE(e.ok()) << c.text << ": " << e.status();
    EXPECT_EQ(e->ToString(), c.canonical) << c.text;
  }
}

TEST(CronParseTest, CanonicalFormRoundTrips) {
  for (const ValidCase& c : kValid) {
    absl::StatusOr<CronExpression> e = CronExpression::Parse(c.text);
    ASSERT_TRUE(e.ok()) << c.text;
    absl::StatusOr<CronExpression> again = CronExpression::Parse(e->ToString());
    ASSERT_TRUE(again.ok()) << e->ToString() << ": " << again.status();
    EXPECT_EQ(*again, *e) << c.text;
    EXPECT_EQ(again->ToString(), e->ToString());
  }
  // Equal sets print the same; a day field's star is part of its meaning.
  EXPECT_EQ(*CronExpression::Parse("0-59/15 * * * *"),
            *CronExpression::Parse("*/15 * * * *"));
  EXPECT_EQ(*CronExpression::Parse("0 0 * * 7"),
            *CronExpression::Parse("0 0 * * 0"));
  EXPECT_NE(*CronExpression::Parse("0 0 */2 * *"),
            *CronExpression::Parse("0 0 1-31/2 * *"));
  EXPECT_NE(*CronExpression::Parse("0 0 * * *"),
            *CronExpression::Parse("0 0 1-31 * *"));
}

struct InvalidCase {
  const char* text;
  const char* error;
};

constexpr InvalidCase kInvalid[] = {
    {"", "cron expression is empty"},
    {"   ", "cron expression is empty"},
    {"* * * *", "has 4 fields; expected 5"},
    {"* * * * * * *", "has 7 fields; expected 5"},
    {"60 * * * *", "minute field: 60 is out of range 0-59 in \"60\""},
    {"60 * * * * *", "second field: 60 is out of range 0-59 in \"60\""},
    {"* 24 * * *", "hour field: 24 is out of range 0-23 in \"24\""},
    {"* * 0 * *", "day-of-month field: 0 is out of range 1-31 in \"0\""},
    {"* * 32 * *", "day-of-month field: 32 is out of range 1-31 in \"32\""},
    {"* * * 0 *", "month field: 0 is out of range 1-12 in \"0\""},
    {"* * * 13 *", "month field: 13 is out of range 1-12 in \"13\""},
    {"* * * * 8", "day-of-week field: 8 is out of range 0-7 in \"8\""},
    {"1-70 * * * *", "minute field: 70 is out of range 0-59 in \"1-70\""},
    {"*/0 * * * *", "minute field: step 0 is out of range 1-59 in \"*/0\""},
    {"* */24 * * *", "hour field: step 24 is out of range 1-23 in \"*/24\""},
    {"*/ * * * *", "minute field: bad step \"\" in \"*/\""},
    {"*/x * * * *", "minute field: bad step \"x\" in \"*/x\""},
    {"*/+2 * * * *", "minute field: bad step \"+2\" in \"*/+2\""},
    {"*/2/3 * * * *", "minute field: bad step \"2/3\" in \"*/2/3\""},
    {"1,,2 * * * *", "minute field: empty list element in \"1,,2\""},
    {"1, * * * *", "minute field: empty list element in \"1,\""},
    {",1 * * * *", "minute field: empty list element in \",1\""},
    {"x * * * *", "minute field: bad value \"x\" in \"x\""},
    {"+5 * * * *", "minute field: bad value \"+5\" in \"+5\""},
    {"99999999999 * * * *", "minute field: bad value \"99999999999\""},
    {"1-2-3 * * * *", "minute field: bad value \"2-3\" in \"1-2-3\""},
    {"-1 * * * *", "minute field: missing value in \"-1\""},
    {"1-/2 * * * *", "minute field: missing value in \"1-/2\""},
    {"5-3 * * * *", "minute field: range 5-3 goes backwards in \"5-3\""},
    {"* * * FOO *", "month field: bad value \"FOO\" in \"FOO\""},
    {"* * * * JAN", "day-of-week field: bad value \"JAN\" in \"JAN\""},
    {"* * * * MON-FOO", "day-of-week field: bad value \"FOO\" in \"MON-FOO\""},
    {"* * * * FRI-MON", "day-of-week field: range 5-1 goes backwards"},
    {"* MON * * *", "hour field: bad value \"MON\" in \"MON\""},
    {"@reboot", "unknown cron macro \"@reboot\""},
    {"@daily 5", "unknown cron macro \"@daily 5\""},
};

TEST(CronParseTest, Invalid) {
  for (const InvalidCase& c : kInvalid) {
    absl::StatusOr<CronExpression> e = CronExpression::Parse(c.text);
    ASSERT_FALSE(e.ok()) << c.text << " parsed as " << e->ToString();
    EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(std::string(e.status().message()), HasSubstr(c.error))
        << c.text;
  }
}

CronExpression MustParse(const char* text) {
  absl::StatusOr<CronExpression> e = CronExpression::Parse(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status();
  return *e;
}

absl::CivilSecond Midnight(int y, int m, int d) {
  return absl::CivilSecond(y, m, d);
}

// 2026-02-13 and 2026-03-13 are Fridays; 2026-01-13 is a Tuesday and
// 2026-01-16 a Friday.
TEST(CronMatchTest, DayOfMonthOrDayOfWeek) {
  const CronExpression e = MustParse("0 0 13 * FRI");
  EXPECT_TRUE(e.Matches(Midnight(2026, 1, 13)));   // the 13th, a Tuesday
  EXPECT_TRUE(e.Matches(Midnight(2026, 1, 16)));   // a Friday, the 16th
  EXPECT_TRUE(e.Matches(Midnight(2026, 2, 13)));   // both
  EXPECT_FALSE(e.Matches(Midnight(2026, 1, 14)));  // neither
  EXPECT_FALSE(e.Matches(absl::CivilSecond(2026, 1, 13, 0, 1)));
}

TEST(CronMatchTest, StarredDayFieldMeansBoth) {
  // `*/2` starts with `*`: odd-numbered days that are Fridays.
  const CronExpression e = MustParse("0 0 */2 * FRI");
  EXPECT_FALSE(e.Matches(Midnight(2026, 1, 13)));  // odd, Tuesday
  EXPECT_FALSE(e.Matches(Midnight(2026, 2, 6)));   // Friday, even
  EXPECT_TRUE(e.Matches(Midnight(2026, 2, 13)));   // odd Friday
  // A restricted day-of-week with `*` day-of-month: Fridays only.
  const CronExpression fridays = MustParse("0 0 * * 5");
  EXPECT_TRUE(fridays.Matches(Midnight(2026, 1, 16)));
  EXPECT_FALSE(fridays.Matches(Midnight(2026, 1, 13)));
  // `1-31` does not start with `*`: with FRI, every day matches. Nor does
  // `FRI,*`, whose `*` is not its first element.
  const CronExpression every_day = MustParse("0 0 1-31 * FRI");
  EXPECT_TRUE(every_day.Matches(Midnight(2026, 1, 13)));
  EXPECT_TRUE(MustParse("0 0 13 * FRI,*").Matches(Midnight(2026, 1, 14)));
  EXPECT_FALSE(MustParse("0 0 13 * *,FRI").Matches(Midnight(2026, 1, 14)));
}

TEST(CronMatchTest, SundayIsZeroAndSeven) {
  // 2026-03-08 is a Sunday.
  EXPECT_TRUE(MustParse("0 0 * * 0").Matches(Midnight(2026, 3, 8)));
  EXPECT_TRUE(MustParse("0 0 * * 7").Matches(Midnight(2026, 3, 8)));
  EXPECT_TRUE(MustParse("0 0 * * 6-7").Matches(Midnight(2026, 3, 8)));
  EXPECT_FALSE(MustParse("0 0 * * 1-6").Matches(Midnight(2026, 3, 8)));
}

TEST(CronMatchTest, NextMatchAdvancesByField) {
  const CronExpression e = MustParse("30 9 * * MON-FRI");
  // Saturday 2026-03-07 10:00 -> Monday 2026-03-09 09:30.
  EXPECT_EQ(e.NextMatch(absl::CivilSecond(2026, 3, 7, 10)),
            absl::CivilSecond(2026, 3, 9, 9, 30));
  // At a match: that match.
  EXPECT_EQ(e.NextMatch(absl::CivilSecond(2026, 3, 9, 9, 30)),
            absl::CivilSecond(2026, 3, 9, 9, 30));
  EXPECT_EQ(MustParse("0 0 31 * *").NextMatch(Midnight(2026, 4, 1)),
            Midnight(2026, 5, 31));
  EXPECT_EQ(MustParse("0 0 29 2 *").NextMatch(Midnight(2027, 1, 1)),
            Midnight(2028, 2, 29));
  EXPECT_EQ(MustParse("0 0 30 2 *").NextMatch(Midnight(2027, 1, 1)),
            absl::nullopt);
  // `*/28` is the 1st and the 29th, and (starting with `*`) both day
  // fields must match: February 1sts and 29ths that are Tuesdays, such as
  // 2028-02-01 and 2028-02-29. Without the `*`, any Tuesday in February.
  EXPECT_EQ(MustParse("0 0 */28 2 TUE").NextMatch(Midnight(2026, 3, 1)),
            Midnight(2028, 2, 1));
  EXPECT_EQ(MustParse("0 0 */28 2 TUE").NextMatch(Midnight(2028, 2, 2)),
            Midnight(2028, 2, 29));
  EXPECT_EQ(MustParse("0 0 29 2 TUE").NextMatch(Midnight(2026, 3, 1)),
            Midnight(2027, 2, 2));
}

TEST(CronMatchTest, PrevMatchAdvancesByField) {
  const CronExpression e = MustParse("30 9 * * MON-FRI");
  // Monday 2026-03-09 09:00 -> Friday 2026-03-06 09:30.
  EXPECT_EQ(e.PrevMatch(absl::CivilSecond(2026, 3, 9, 9)),
            absl::CivilSecond(2026, 3, 6, 9, 30));
  EXPECT_EQ(e.PrevMatch(absl::CivilSecond(2026, 3, 9, 9, 30)),
            absl::CivilSecond(2026, 3, 9, 9, 30));
  EXPECT_EQ(MustParse("0 0 31 * *").PrevMatch(Midnight(2026, 5, 30)),
            Midnight(2026, 3, 31));
  EXPECT_EQ(MustParse("0 0 29 2 *").PrevMatch(Midnight(2028, 2, 28)),
            Midnight(2024, 2, 29));
  EXPECT_EQ(MustParse("0 0 30 2 *").PrevMatch(Midnight(2027, 1, 1)),
            absl::nullopt);
  EXPECT_EQ(MustParse("59 59 23 31 12 *").PrevMatch(Midnight(2027, 1, 1)),
            absl::CivilSecond(2026, 12, 31, 23, 59, 59));
  EXPECT_EQ(MustParse("*/20 * * * * *")
                .PrevMatch(absl::CivilSecond(2026, 1, 1, 0, 0, 19)),
            absl::CivilSecond(2026, 1, 1, 0, 0, 0));
  EXPECT_EQ(MustParse("0 0 */28 2 TUE").PrevMatch(Midnight(2028, 2, 28)),
            Midnight(2028, 2, 1));
}

// --- Randomized: against an oracle built with the expression ---------------

// One field drawn at random: its text and, computed independently of the
// parser, the values it means and whether it starts with `*`.
struct OracleField {
  std::string text;
  std::set<int> values;
  bool star = false;
};

OracleField RandomOracleField(std::mt19937_64& rng, int min, int max,
                              const char* const* names, int name_count,
                              int first_name, int star_percent) {
  auto uniform = [&rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  // A number, or half the time its name (upper or lower case) if it has one.
  auto value_text = [&](int v) -> std::string {
    const int i = v - first_name;
    if (names == nullptr || i >= name_count || uniform(0, 1) == 0) {
      return absl::StrCat(v);
    }
    std::string name = names[i];
    if (uniform(0, 1) == 0) absl::AsciiStrToLower(&name);
    return name;
  };
  OracleField f;
  std::vector<std::string> elements;
  const int count = uniform(1, 3);
  for (int i = 0; i < count; ++i) {
    int low = min;
    int high = max;
    int step = 1;
    std::string text;
    // `*` or `*/n`: first with star_percent, later now and then.
    const int kind =
        uniform(0, 99) < (i == 0 ? star_percent : 5) ? 0 : uniform(1, 5);
    switch (kind) {
      case 0:  // * or */n
        step = uniform(1, 3) == 1 ? uniform(2, max) : 1;
        text = step == 1 ? "*" : absl::StrCat("*/", step);
        if (i == 0) f.star = true;
        break;
      case 1:  // a
        low = high = uniform(min, max);
        text = value_text(low);
        break;
      case 2:  // a-b
        low = uniform(min, max);
        high = uniform(low, max);
        text = absl::StrCat(value_text(low), "-", value_text(high));
        break;
      case 3:  // a-b/n
        low = uniform(min, max);
        high = uniform(low, max);
        step = uniform(1, max);
        text = absl::StrCat(value_text(low), "-", value_text(high), "/", step);
        break;
      default:  // a/n
        low = uniform(min, max);
        step = uniform(1, max);
        text = absl::StrCat(value_text(low), "/", step);
        break;
    }
    for (int v = low; v <= high; v += step) f.values.insert(v);
    elements.push_back(text);
  }
  f.text = absl::StrJoin(elements, ",");
  return f;
}

constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDays[] = {"SUN", "MON", "TUE", "WED",
                                 "THU", "FRI", "SAT"};

struct Oracle {
  OracleField second, minute, hour, dom, month, dow;

  bool DayMatches(absl::CivilDay d) const {
    const int weekday = (static_cast<int>(absl::GetWeekday(d)) + 1) % 7;
    const bool by_dow = dow.values.count(weekday) > 0 ||
                        (weekday == 0 && dow.values.count(7) > 0);
    const bool by_dom = dom.values.count(d.day()) > 0;
    if (month.values.count(d.month()) == 0) return false;
    return dom.star || dow.star ? by_dom && by_dow : by_dom || by_dow;
  }
  bool Matches(absl::CivilSecond c) const {
    return second.values.count(c.second()) && minute.values.count(c.minute()) &&
           hour.values.count(c.hour()) && DayMatches(absl::CivilDay(c));
  }
  // The first match at or after `from` within `days` days.
  absl::optional<absl::CivilSecond> Next(absl::CivilSecond from,
                                         int days) const {
    const absl::CivilDay first(from);
    for (absl::CivilDay d = first; d < first + days; ++d) {
      if (!DayMatches(d)) continue;
      for (int h : hour.values) {
        for (int m : minute.values) {
          for (int s : second.values) {
            const absl::CivilSecond c(d.year(), d.month(), d.day(), h, m, s);
            if (c >= from) return c;
          }
        }
      }
    }
    return absl::nullopt;
  }
  // The last match at or before `from` within `days` days.
  absl::optional<absl::CivilSecond> Prev(absl::CivilSecond from,
                                         int days) const {
    const absl::CivilDay last(from);
    for (absl::CivilDay d = last; d > last - days; --d) {
      if (!DayMatches(d)) continue;
      for (auto h = hour.values.rbegin(); h != hour.values.rend(); ++h) {
        for (auto m = minute.values.rbegin(); m != minute.values.rend(); ++m) {
          for (auto s = second.values.rbegin(); s != second.values.rend();
               ++s) {
            const absl::CivilSecond c(d.year(), d.month(), d.day(), *h, *m, *s);
            if (c <= from) return c;
          }
        }
      }
    }
    return absl::nullopt;
  }
};

// Random expressions of every form (names in either case, steps, ranges,
// day-of-week 7, both day rules), parsed, and matched from random civil
// times between 1900 and 2400: NextMatch() and PrevMatch() agree with an
// oracle computed from how each expression was drawn. Seeded.
TEST(CronMatchTest, NextAndPrevMatchAgreeWithOracle) {
  std::mt19937_64 rng(1202);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  constexpr int kWindowDays = 3 * 366;
  int found = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Oracle o;
    o.second = RandomOracleField(rng, 0, 59, nullptr, 0, 0, 40);
    o.minute = RandomOracleField(rng, 0, 59, nullptr, 0, 0, 30);
    o.hour = RandomOracleField(rng, 0, 23, nullptr, 0, 0, 30);
    o.dom = RandomOracleField(rng, 1, 31, nullptr, 0, 0, 50);
    o.month = RandomOracleField(rng, 1, 12, kMonths, 12, 1, 50);
    o.dow = RandomOracleField(rng, 0, 7, kDays, 7, 0, 50);
    const std::string text =
        absl::StrJoin({o.second.text, o.minute.text, o.hour.text, o.dom.text,
                       o.month.text, o.dow.text},
                      " ");
    absl::StatusOr<CronExpression> e = CronExpression::Parse(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status();
    for (int probe = 0; probe < 5; ++probe) {
      const absl::CivilSecond from = absl::CivilSecond(1900, 1, 1) +
                                     uniform(0, int64_t{500} * 365 * 86400);
      const absl::optional<absl::CivilSecond> next = e->NextMatch(from);
      const absl::optional<absl::CivilSecond> want = o.Next(from, kWindowDays);
      if (want.has_value()) {
        ++found;
        ASSERT_EQ(next, want) << text << " from " << from;
      } else if (next.has_value()) {
        ASSERT_TRUE(o.Matches(*next)) << text << " from " << from;
        ASSERT_GE(absl::CivilDay(*next), absl::CivilDay(from) + kWindowDays)
            << text << " from " << from;
      }
      const absl::optional<absl::CivilSecond> prev = e->PrevMatch(from);
      const absl::optional<absl::CivilSecond> want_prev =
          o.Prev(from, kWindowDays);
      if (want_prev.has_value()) {
        ASSERT_EQ(prev, want_prev) << text << " from " << from;
      } else if (prev.has_value()) {
        ASSERT_TRUE(o.Matches(*prev)) << text << " from " << from;
        ASSERT_LE(absl::CivilDay(*prev), absl::CivilDay(from) - kWindowDays)
            << text << " from " << from;
      }
    }
  }
  EXPECT_GT(found, 500);  // most draws match within the window
}

}  // namespace
}  // namespace timingwheel
