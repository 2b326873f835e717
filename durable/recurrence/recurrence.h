// Copyright 2026 The timingwheel Authors.
//
// recurrence.h
// -----------------------------------------------------------------------------
//
// The calendar of a recurring durable schedule: when its occurrences are.
// Pure computation (no database, no clock): the scheduler asks for the first
// occurrence after the last one it fired, and "exactly one run per
// occurrence, never early" rests on these answers being exact and
// monotone (recurring schedules: recurring.h, schedule_plan.h).
//
// This header defines:
//   Recurrence  a fixed interval from an anchor instant, or a cron
//               expression (durable/recurrence/recurrence_cron.h) in a time
//               zone.
//
// Time zones and daylight saving. A cron expression matches wall-clock
// (civil) times in its zone; each matching wall time is one occurrence, at
// one instant:
//   - a wall time that exists once runs at that instant;
//   - a wall time repeated by a fall-back transition runs once, at its first
//     instance (the earlier offset), never twice
//     (RecurrenceDstTest.FallBackRunsRepeatedWallTimeOnce);
//   - a wall time skipped by a spring-forward transition runs once at the
//     first valid instant after the gap (the transition instant), as cronie
//     does for fixed-time jobs; all the skipped wall times of one gap, and a
//     matching wall time right at its end, make that one run together
//     (RecurrenceDstTest.SpringForwardRunsSkippedWallTimeAtGapEnd).
// So an expression with `*` in the hour, e.g. `*/15 * * * *` in
// America/New_York: on the spring-forward night it runs at 01:45 EST and
// then at 03:00 EDT (02:00-02:45 do not exist and fold into 03:00), then
// every 15 minutes; on the fall-back night it runs at 01:00, 01:15, 01:30,
// 01:45 EDT, not during the repeated hour 01:00-01:59 EST, and next at
// 02:00 EST, 75 minutes later (RecurrenceDstTest.EveryQuarterHourAcrossGap,
// RecurrenceDstTest.EveryQuarterHourAcrossRepeatedHour). A schedule that
// must keep a steady rhythm through transitions should use Every().
//
// Time zone data comes from the system (/usr/share/zoneinfo, Debian package
// tzdata, or $TZDIR), read by absl::LoadTimeZone; Bazel's sandbox sees
// /usr/share/zoneinfo, so tests need no TZDIR
// (RecurrenceTest.TimeZoneDataIsAvailable says so when it is missing).

#ifndef TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_H_
#define TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "durable/recurrence/recurrence_cron.h"

namespace timingwheel {

// Recurrence
//
// When a recurring schedule's occurrences are: either every `interval` from
// an anchor instant (the anchor, anchor + interval, ...; no time zone
// involved), or the wall times a cron expression matches in a time zone
// (the rules above). An immutable value, cheap to copy. Thread-safe (all
// methods are const).
//
// Example:
//   absl::StatusOr<Recurrence> r =
//       Recurrence::ParseCron("30 2 * * MON-FRI", "Europe/London");
//   absl::Time next = r->Next(absl::Now());
class Recurrence {
 public:
  // Recurrence::Every()
  //
  // Occurrences at anchor + k * interval for k = 0, 1, 2, ... Returns
  // InvalidArgument unless `interval` is positive and finite and `anchor` is
  // finite (RecurrenceTest.EveryRejectsBadArguments).
  static absl::StatusOr<Recurrence> Every(absl::Duration interval,
                                          absl::Time anchor);

  // Recurrence::Cron()
  //
  // Occurrences at the wall times `expression` matches in `zone`.
  static Recurrence Cron(CronExpression expression, absl::TimeZone zone);

  // Recurrence::ParseCron()
  //
  // Cron() from text: parses `expression` (CronExpression::Parse) and loads
  // the zone named `zone_name` ("UTC", "America/New_York", ...). Returns the
  // parse error, or InvalidArgument naming the zone when the system's time
  // zone data does not know it (RecurrenceTest.ParseCronRejectsUnknownZone).
  static absl::StatusOr<Recurrence> ParseCron(absl::string_view expression,
                                              absl::string_view zone_name);

  // Recurrence::Next()
  //
  // The first occurrence strictly after `after`, or absl::InfiniteFuture()
  // when there is none: an expression no date matches (`0 0 30 2 *`) is
  // found out after a search bounded at 400 years, not a loop
  // (RecurrenceTest.ImpossibleDateIsInfiniteFuture). Next(InfiniteFuture())
  // is InfiniteFuture(); for a cron recurrence so is Next(InfinitePast())
  // (there is no first occurrence). Next is strictly increasing: calling it
  // on its own result walks every occurrence once, in order
  // (RecurrenceRandomTest.NextAgreesWithBruteForceScan). Cost: a few steps
  // per field (month, day, hour, minute, second), never a scan minute by
  // minute.
  absl::Time Next(absl::Time after) const;

  // Recurrence::Last()
  //
  // The last occurrence at or before `at`, or absl::InfinitePast() when
  // there is none (`at` before an Every() anchor, or no matching date in the
  // 400 years before `at`, or `at` infinite). The inverse of Next():
  // Last(t) == t for every occurrence t, and Next(Last(t)) > t
  // (RecurrenceTest.LastIsAtOrBefore, RecurrenceDstTest.LastAcrossTransitions,
  // RecurrenceRandomTest.NextAgreesWithBruteForceScan).
  absl::Time Last(absl::Time at) const;

  // Recurrence::Between()
  //
  // The occurrences t with from < t <= to, in order, at most `max` of them
  // (the first `max`): what a catch-up after downtime would run
  // (RecurrenceTest.BetweenListsMissedOccurrences).
  std::vector<absl::Time> Between(absl::Time from, absl::Time to,
                                  size_t max) const;

  // Recurrence::ToString()
  //
  // For logs and errors: `every 15m from 2026-03-08T00:00:00+00:00` or
  // `cron "*/15 * * * *" in America/New_York`.
  std::string ToString() const;

  bool is_cron() const { return is_cron_; }
  // The expression and zone of a cron recurrence.
  const CronExpression& expression() const { return expression_; }
  absl::TimeZone zone() const { return zone_; }
  // The interval and anchor of an Every() recurrence.
  absl::Duration interval() const { return interval_; }
  absl::Time anchor() const { return anchor_; }

 private:
  Recurrence(bool is_cron, CronExpression expression, absl::TimeZone zone,
             absl::Duration interval, absl::Time anchor)
      : is_cron_(is_cron),
        expression_(std::move(expression)),
        zone_(zone),
        interval_(interval),
        anchor_(anchor) {}

  absl::Time NextCron(absl::Time after) const;
  absl::Time NextEvery(absl::Time after) const;
  absl::Time LastCron(absl::Time at) const;
  absl::Time LastEvery(absl::Time at) const;

  bool is_cron_;
  CronExpression expression_;  // `* * * * *` for Every()
  absl::TimeZone zone_;        // UTC for Every()
  absl::Duration interval_;    // zero for Cron()
  absl::Time anchor_;          // the epoch for Cron()
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_H_
