// Copyright 2026 The timingwheel Authors.

#include "durable/recurrence/recurrence_cron.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace timingwheel {
namespace {

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR",
                                       "MAY", "JUN", "JUL", "AUG",
                                       "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDayNames[] = {"SUN", "MON", "TUE", "WED",
                                     "THU", "FRI", "SAT"};

// What one field accepts. Day-of-week accepts 0-7 and folds 7 into 0; its
// set of values is 0-6.
struct FieldSpec {
  const char* name;
  int min;
  int max;                   // the largest value accepted in the text
  const char* const* names;  // names[i] is value first_name + i
  int name_count;
  int first_name;
  bool zero_ends_as_max;  // a range ending in 0 ends at max (`FRI-SUN`)
};

constexpr FieldSpec kSpecs[] = {
    {"second", 0, 59, nullptr, 0, 0, false},
    {"minute", 0, 59, nullptr, 0, 0, false},
    {"hour", 0, 23, nullptr, 0, 0, false},
    {"day-of-month", 1, 31, nullptr, 0, 0, false},
    {"month", 1, 12, kMonthNames, 12, 1, false},
    {"day-of-week", 0, 7, kDayNames, 7, 0, true},
};

struct Macro {
  const char* name;
  const char* expansion;
};
constexpr Macro kMacros[] = {
    {"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

absl::Status FieldError(const FieldSpec& spec, absl::string_view what,
                        absl::string_view element) {
  return absl::InvalidArgumentError(
      absl::StrCat(spec.name, " field: ", what, " in \"", element, "\""));
}

// 1 to 9 decimal digits (no sign, no white space; no overflow of int).
bool AllDigits(absl::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char ch : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(ch))) return false;
  }
  return true;
}

// ParseValue()
//
// A number or (where the field has names) a name, range-checked.
absl::Status ParseValue(const FieldSpec& spec, absl::string_view token,
                        absl::string_view element, int* value) {
  if (token.empty()) return FieldError(spec, "missing value", element);
  if (absl::ascii_isdigit(static_cast<unsigned char>(token[0]))) {
    int v = 0;
    if (!AllDigits(token) || !absl::SimpleAtoi(token, &v)) {
      return FieldError(spec, absl::StrCat("bad value \"", token, "\""),
                        element);
    }
    if (v < spec.min || v > spec.max) {
      return FieldError(
          spec, absl::StrCat(v, " is out of range ", spec.min, "-", spec.max),
          element);
    }
    *value = v;
    return absl::OkStatus();
  }
  for (int i = 0; i < spec.name_count; ++i) {
    if (absl::EqualsIgnoreCase(token, spec.names[i])) {
      *value = spec.first_name + i;
      return absl::OkStatus();
    }
  }
  return FieldError(spec, absl::StrCat("bad value \"", token, "\""), element);
}

// ParseField()
//
// One field's comma-separated list into a set of values (bit v for value
// v); `*star` says whether its first element starts with `*`.
absl::Status ParseField(const FieldSpec& spec, absl::string_view text,
                        uint64_t* values, bool* star) {
  *values = 0;
  *star = false;
  bool first = true;
  for (absl::string_view element : absl::StrSplit(text, ',')) {
    if (element.empty()) {
      return FieldError(spec, "empty list element", text);
    }
    absl::string_view range = element;
    int step = 1;
    bool has_step = false;
    const size_t slash = element.find('/');
    if (slash != absl::string_view::npos) {
      has_step = true;
      range = element.substr(0, slash);
      absl::string_view step_text = element.substr(slash + 1);
      if (!AllDigits(step_text) || !absl::SimpleAtoi(step_text, &step)) {
        return FieldError(spec, absl::StrCat("bad step \"", step_text, "\""),
                          element);
      }
      if (step < 1 || step > spec.max) {
        return FieldError(
            spec, absl::StrCat("step ", step, " is out of range 1-", spec.max),
            element);
      }
    }
    int low = 0;
    int high = 0;
    if (range == "*") {
      low = spec.min;
      high = spec.max;
      if (first) *star = true;
    } else {
      const size_t dash = range.find('-');
      if (dash == absl::string_view::npos) {
        absl::Status s = ParseValue(spec, range, element, &low);
        if (!s.ok()) return s;
        high = has_step ? spec.max : low;
      } else {
        absl::Status s = ParseValue(spec, range.substr(0, dash), element, &low);
        if (!s.ok()) return s;
        s = ParseValue(spec, range.substr(dash + 1), element, &high);
        if (!s.ok()) return s;
        if (spec.zero_ends_as_max && high == 0 && low > 0) high = spec.max;
        if (low > high) {
          return FieldError(
              spec, absl::StrCat("range ", low, "-", high, " goes backwards"),
              element);
        }
      }
    }
    for (int v = low; v <= high; v += step) {
      *values |= uint64_t{1} << v;
    }
    first = false;
  }
  return absl::OkStatus();
}

uint64_t RangeBits(int low, int high, int step) {
  uint64_t bits = 0;
  for (int v = low; v <= high; v += step) bits |= uint64_t{1} << v;
  return bits;
}

std::vector<int> Members(uint64_t values, int low, int high) {
  std::vector<int> out;
  for (int v = low; v <= high; ++v) {
    if ((values >> v) & 1) out.push_back(v);
  }
  return out;
}

// A plain list: runs of three or more as `a-b`.
std::string ListForm(const std::vector<int>& v) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (j - i >= 2) {
      parts.push_back(absl::StrCat(v[i], "-", v[j]));
    } else {
      for (size_t k = i; k <= j; ++k) parts.push_back(absl::StrCat(v[k]));
    }
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

// FieldForm()
//
// The canonical text of a field whose set is `values` over [low, high].
// `day_field` says the field's star-ness matters (the day rule), so `*`
// and `*/n` are printed exactly when `star` is set.
std::string FieldForm(uint64_t values, int low, int high, bool day_field,
                      bool star) {
  const uint64_t full = RangeBits(low, high, 1);
  if (day_field && star) {
    if (values == full) return "*";
    int n = 2;
    while (n <= high && (RangeBits(low, high, n) & ~values) != 0) ++n;
    const uint64_t stepped = RangeBits(low, high, n);
    std::string out = absl::StrCat("*/", n);
    if (values != stepped) {
      absl::StrAppend(&out, ",",
                      ListForm(Members(values & ~stepped, low, high)));
    }
    return out;
  }
  const std::vector<int> v = Members(values, low, high);
  if (!day_field) {
    if (values == full) return "*";
    for (int n = 2; v.size() >= 3 && n <= high; ++n) {
      if (values == RangeBits(low, high, n)) return absl::StrCat("*/", n);
    }
  }
  if (v.size() >= 3 && v[1] - v[0] >= 2) {
    const int n = v[1] - v[0];
    if (values == RangeBits(v.front(), v.back(), n)) {
      return absl::StrCat(v.front(), "-", v.back(), "/", n);
    }
  }
  return ListForm(v);
}

// Cron's day of the week: 0 is Sunday.
int CronWeekday(absl::CivilDay day) {
  switch (absl::GetWeekday(day)) {
    case absl::Weekday::sunday:
      return 0;
    case absl::Weekday::monday:
      return 1;
    case absl::Weekday::tuesday:
      return 2;
    case absl::Weekday::wednesday:
      return 3;
    case absl::Weekday::thursday:
      return 4;
    case absl::Weekday::friday:
      return 5;
    case absl::Weekday::saturday:
      return 6;
  }
  return 0;
}

int DaysInMonth(absl::civil_year_t year, int month) {
  return static_cast<int>(absl::CivilDay(absl::CivilMonth(year, month) + 1) -
                          absl::CivilDay(absl::CivilMonth(year, month)));
}

}  // namespace

absl::StatusOr<CronExpression> CronExpression::Parse(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) {
    return absl::InvalidArgumentError("cron expression is empty");
  }
  if (text[0] == '@') {
    for (const Macro& m : kMacros) {
      if (absl::EqualsIgnoreCase(text, m.name)) return Parse(m.expansion);
    }
    return absl::InvalidArgumentError(
        absl::StrCat("unknown cron macro \"", text,
                     "\" (known: @yearly @annually @monthly @weekly @daily "
                     "@midnight @hourly)"));
  }
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (parts.size() != 5 && parts.size() != 6) {
    return absl::InvalidArgumentError(
        absl::StrCat("cron expression \"", text, "\" has ", parts.size(),
                     " fields; expected 5 (minute hour day-of-month month "
                     "day-of-week) or 6 (a leading second)"));
  }
  if (parts.size() == 5) parts.insert(parts.begin(), "0");
  CronExpression e;
  for (int f = 0; f < kFieldCount; ++f) {
    bool star = false;
    absl::Status s =
        ParseField(kSpecs[f], parts[f], &e.fields_[f].values, &star);
    if (!s.ok()) return s;
    e.fields_[f].star = star;
  }
  uint64_t& dow = e.fields_[kDayOfWeek].values;
  if ((dow >> 7) & 1) dow = (dow & ~(uint64_t{1} << 7)) | 1;
  return e;
}

std::string CronExpression::ToString() const {
  std::vector<std::string> parts;
  for (int f = 0; f < kFieldCount; ++f) {
    const FieldSpec& spec = kSpecs[f];
    const bool day_field = f == kDayOfMonth || f == kDayOfWeek;
    const int high = f == kDayOfWeek ? 6 : spec.max;
    parts.push_back(FieldForm(fields_[f].values, spec.min, high, day_field,
                              fields_[f].star));
  }
  if (fields_[kSecond].values == 1) parts.erase(parts.begin());
  return absl::StrJoin(parts, " ");
}

bool operator==(const CronExpression& a, const CronExpression& b) {
  for (int f = 0; f < CronExpression::kFieldCount; ++f) {
    if (a.fields_[f].values != b.fields_[f].values) return false;
  }
  return a.fields_[CronExpression::kDayOfMonth].star ==
             b.fields_[CronExpression::kDayOfMonth].star &&
         a.fields_[CronExpression::kDayOfWeek].star ==
             b.fields_[CronExpression::kDayOfWeek].star;
}

bool CronExpression::AndDays() const {
  return fields_[kDayOfMonth].star || fields_[kDayOfWeek].star;
}

bool CronExpression::DayMatches(absl::CivilDay day) const {
  const bool dom = Has(kDayOfMonth, day.day());
  const bool dow = Has(kDayOfWeek, CronWeekday(day));
  return AndDays() ? (dom && dow) : (dom || dow);
}

bool CronExpression::Matches(absl::CivilSecond c) const {
  return Has(kSecond, c.second()) && Has(kMinute, c.minute()) &&
         Has(kHour, c.hour()) && Has(kMonth, c.month()) &&
         DayMatches(absl::CivilDay(c));
}

int CronExpression::NextValue(FieldIndex f, int from, int max) const {
  for (int v = from; v <= max; ++v) {
    if (Has(f, v)) return v;
  }
  return -1;
}

absl::optional<absl::CivilSecond> CronExpression::NextMatch(
    absl::CivilSecond from) const {
  // The Gregorian calendar repeats every 400 years (146097 days, a whole
  // number of weeks), so a wall time that matches none of the 400 years
  // after `from` matches none ever.
  const absl::civil_year_t last_year = from.year() + 400;
  absl::CivilSecond c = from;
  while (c.year() <= last_year) {
    if (!Has(kMonth, c.month())) {
      const int m = NextValue(kMonth, c.month() + 1, 12);
      c = m < 0 ? absl::CivilSecond(absl::CivilYear(c) + 1)
                : absl::CivilSecond(c.year(), m, 1);
      continue;
    }
    const absl::CivilDay day(c);
    if (!DayMatches(day)) {
      if (AndDays() && !Has(kDayOfMonth, day.day())) {
        // Both fields must match: go straight to the next day-of-month.
        const int d = NextValue(kDayOfMonth, day.day() + 1,
                                DaysInMonth(c.year(), c.month()));
        c = d < 0 ? absl::CivilSecond(absl::CivilMonth(c) + 1)
                  : absl::CivilSecond(c.year(), c.month(), d);
      } else {
        c = absl::CivilSecond(day + 1);
      }
      continue;
    }
    if (!Has(kHour, c.hour())) {
      const int h = NextValue(kHour, c.hour() + 1, 23);
      c = h < 0 ? absl::CivilSecond(day + 1)
                : absl::CivilSecond(c.year(), c.month(), c.day(), h);
      continue;
    }
    if (!Has(kMinute, c.minute())) {
      const int m = NextValue(kMinute, c.minute() + 1, 59);
      c = m < 0 ? absl::CivilSecond(absl::CivilHour(c) + 1)
                : absl::CivilSecond(c.year(), c.month(), c.day(), c.hour(), m);
      continue;
    }
    if (!Has(kSecond, c.second())) {
      const int s = NextValue(kSecond, c.second() + 1, 59);
      c = s < 0 ? absl::CivilSecond(absl::CivilMinute(c) + 1)
                : absl::CivilSecond(c.year(), c.month(), c.day(), c.hour(),
                                    c.minute(), s);
      continue;
    }
    return c;
  }
  return absl::nullopt;
}

int CronExpression::PrevValue(FieldIndex f, int from, int min) const {
  for (int v = from; v >= min; --v) {
    if (Has(f, v)) return v;
  }
  return -1;
}

absl::optional<absl::CivilSecond> CronExpression::PrevMatch(
    absl::CivilSecond from) const {
  // Each step moves to the last second of an earlier month, day, hour or
  // minute; see NextMatch() for the 400-year bound.
  const absl::civil_year_t first_year = from.year() - 400;
  auto end_of = [](auto unit) { return absl::CivilSecond(unit + 1) - 1; };
  absl::CivilSecond c = from;
  while (c.year() >= first_year) {
    if (!Has(kMonth, c.month())) {
      const int m = PrevValue(kMonth, c.month() - 1, 1);
      c = m < 0 ? absl::CivilSecond(absl::CivilYear(c)) - 1
                : end_of(absl::CivilMonth(c.year(), m));
      continue;
    }
    const absl::CivilDay day(c);
    if (!DayMatches(day)) {
      if (AndDays() && !Has(kDayOfMonth, day.day())) {
        const int d = PrevValue(kDayOfMonth, day.day() - 1, 1);
        c = d < 0 ? absl::CivilSecond(absl::CivilMonth(c)) - 1
                  : end_of(absl::CivilDay(c.year(), c.month(), d));
      } else {
        c = absl::CivilSecond(day) - 1;
      }
      continue;
    }
    if (!Has(kHour, c.hour())) {
      const int h = PrevValue(kHour, c.hour() - 1, 0);
      c = h < 0 ? absl::CivilSecond(day) - 1
                : end_of(absl::CivilHour(c.year(), c.month(), c.day(), h));
      continue;
    }
    if (!Has(kMinute, c.minute())) {
      const int m = PrevValue(kMinute, c.minute() - 1, 0);
      c = m < 0 ? absl::CivilSecond(absl::CivilHour(c)) - 1
                : end_of(absl::CivilMinute(c.year(), c.month(), c.day(),
                                           c.hour(), m));
      continue;
    }
    if (!Has(kSecond, c.second())) {
      const int s = PrevValue(kSecond, c.second() - 1, 0);
      c = s < 0 ? absl::CivilSecond(absl::CivilMinute(c)) - 1
                : absl::CivilSecond(c.year(), c.month(), c.day(), c.hour(),
                                    c.minute(), s);
      continue;
    }
    return c;
  }
  return absl::nullopt;
}

}  // namespace timingwheel
