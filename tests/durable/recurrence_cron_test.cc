// Copyright 2026 The timingwheel Authors.
//
// CronExpression: parsing (valid and invalid, with the error text), the
// canonical form, and matching civil times (the day-of-month/day-of-week
// rule).

#include "durable/recurrence_cron.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
  // `1-31` does not start with `*`: with FRI, every day matches.
  const CronExpression every_day = MustParse("0 0 1-31 * FRI");
  EXPECT_TRUE(every_day.Matches(Midnight(2026, 1, 13)));
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

}  // namespace
}  // namespace timingwheel
