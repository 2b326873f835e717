// Copyright 2026 The timingwheel Authors.
//
// recurrence_cron.h
// -----------------------------------------------------------------------------
//
// Cron expressions, parsed and matched against civil (wall-clock) times. The
// time-zone half, which turns the matching wall times into instants, is
// Recurrence in durable/recurrence/recurrence.h.
//
// This header defines:
//   CronExpression  a parsed cron expression: which civil seconds match, and
//                   the first matching civil second at or after a given one.
//
// Syntax (durable/README.md, "Recurrence expressions", says the same):
//
//   [second] minute hour day-of-month month day-of-week
//
//   field          values   names
//   second         0-59     (only in the six-field form; five fields mean 0)
//   minute         0-59
//   hour           0-23
//   day-of-month   1-31
//   month          1-12     JAN-DEC
//   day-of-week    0-7      SUN-SAT (0 and 7 are both Sunday; a range may
//                           end on Sunday as 0: `FRI-SUN`)
//
// Each field is a comma-separated list of elements; an element is `*`, a
// value `a`, a range `a-b` (a <= b), or a step `*/n`, `a-b/n` or `a/n`
// (`a/n` is `a-max/n`); n is 1 to the field's largest value. Names are
// case-insensitive and may appear wherever a value may. The macros
// @yearly (= @annually) `0 0 1 1 *`, @monthly `0 0 1 * *`, @weekly
// `0 0 * * 0`, @daily (= @midnight) `0 0 * * *` and @hourly `0 * * * *`
// stand for the whole expression.
//
// Days follow Vixie cron: when both day fields are restricted, a day matches
// if it matches either of them; when either day field starts with `*` (`*` or
// `*/n`), a day must match both. So `0 0 13 * FRI` runs on every 13th and
// every Friday, while `0 0 */2 * FRI` runs on the odd-numbered days that are
// Fridays. Tested by CronMatchTest.DayOfMonthOrDayOfWeek and
// CronMatchTest.StarredDayFieldMeansBoth.
//
// Parse errors are InvalidArgument and name the field and the bad token,
// e.g. `hour field: 24 is out of range 0-23 in "24"` (CronParseTest.Invalid).

#ifndef TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_CRON_H_
#define TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_CRON_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/types/optional.h"

namespace timingwheel {

// CronExpression
//
// A parsed cron expression: an immutable value, cheap to copy. Knows nothing
// of time zones; it matches civil seconds. Thread-safe (all methods are
// const).
class CronExpression {
 public:
  // CronExpression::Parse()
  //
  // Parses five fields (minute hour day-of-month month day-of-week), six
  // fields (a leading second), or a macro; fields are separated by spaces or
  // tabs, and leading and trailing white space is ignored. Returns
  // InvalidArgument naming the field and the token on an out-of-range value,
  // an empty field or list element, a step of 0, a range whose start is after
  // its end, an unknown name or macro, or the wrong number of fields.
  // Tested by CronParseTest.Valid and CronParseTest.Invalid.
  static absl::StatusOr<CronExpression> Parse(absl::string_view text);

  // CronExpression::ToString()
  //
  // The canonical form, a function of what the expression matches: five
  // fields when the second field is just 0, else six; numbers only (no
  // names, no macros; Sunday is 0). A field is `*` when it holds every
  // value, `*/n` when it is three or more values min, min+n, ..., `a-b/n`
  // for another progression of three or more, else a list in order with
  // runs of three or more as `a-b`. Day fields keep their star (it decides
  // the day rule): a starred one is `*`, or `*/n` followed by the values the
  // step does not cover; an unstarred one is never `*` (`1-31`).
  // Parse(e.ToString()) equals e, and equal expressions print the same
  // (CronParseTest.CanonicalFormRoundTrips).
  std::string ToString() const;

  // CronExpression::Matches()
  //
  // Whether the civil second `c` matches every field (with the day rule
  // above).
  bool Matches(absl::CivilSecond c) const;

  // CronExpression::NextMatch()
  //
  // The first civil second at or after `from` that matches, or nullopt when
  // none does. Advances field by field (month, day, hour, minute, second),
  // never second by second, and gives up after 400 years (one full cycle of
  // the Gregorian calendar, so a match that does not come within it never
  // comes), e.g. for `0 0 30 2 *`. Tested by CronMatchTest.* and
  // RecurrenceTest.ImpossibleDateIsInfiniteFuture.
  absl::optional<absl::CivilSecond> NextMatch(absl::CivilSecond from) const;

  // CronExpression::PrevMatch()
  //
  // The last civil second at or before `from` that matches, or nullopt when
  // none does within 400 years before it: NextMatch() backwards, field by
  // field (CronMatchTest.PrevMatchAdvancesByField,
  // RecurrenceRandomTest.NextAgreesWithBruteForceScan).
  absl::optional<absl::CivilSecond> PrevMatch(absl::CivilSecond from) const;

  friend bool operator==(const CronExpression& a, const CronExpression& b);
  friend bool operator!=(const CronExpression& a, const CronExpression& b) {
    return !(a == b);
  }

 private:
  // One field: the set of values (bit v set for value v; day-of-week 7 is
  // stored as 0), and whether its first element starts with `*`.
  struct Field {
    uint64_t values = 0;
    bool star = false;
  };
  enum FieldIndex {
    kSecond = 0,
    kMinute,
    kHour,
    kDayOfMonth,
    kMonth,
    kDayOfWeek,
    kFieldCount
  };

  CronExpression() = default;

  bool Has(FieldIndex f, int value) const {
    return (fields_[f].values >> value) & 1;
  }
  // The smallest value in [from, max] that field `f` holds, or -1.
  int NextValue(FieldIndex f, int from, int max) const;
  // The largest value in [min, from] that field `f` holds, or -1.
  int PrevValue(FieldIndex f, int from, int min) const;
  // Whether a day must match both day fields (either starts with `*`).
  bool AndDays() const;
  bool DayMatches(absl::CivilDay day) const;

  std::array<Field, kFieldCount> fields_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_CRON_H_
