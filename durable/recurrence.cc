// Copyright 2026 The timingwheel Authors.

#include "durable/recurrence.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"

namespace timingwheel {

absl::StatusOr<Recurrence> Recurrence::Every(absl::Duration interval,
                                             absl::Time anchor) {
  if (interval <= absl::ZeroDuration() ||
      interval == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("recurrence interval must be positive and finite, got ",
                     absl::FormatDuration(interval)));
  }
  if (anchor == absl::InfinitePast() || anchor == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError("recurrence anchor must be finite");
  }
  absl::StatusOr<CronExpression> unused = CronExpression::Parse("* * * * *");
  return Recurrence(/*is_cron=*/false, *std::move(unused), absl::UTCTimeZone(),
                    interval, anchor);
}

Recurrence Recurrence::Cron(CronExpression expression, absl::TimeZone zone) {
  return Recurrence(/*is_cron=*/true, std::move(expression), zone,
                    absl::ZeroDuration(), absl::UnixEpoch());
}

absl::StatusOr<Recurrence> Recurrence::ParseCron(absl::string_view expression,
                                                 absl::string_view zone_name) {
  absl::StatusOr<CronExpression> parsed = CronExpression::Parse(expression);
  if (!parsed.ok()) return parsed.status();
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(std::string(zone_name), &zone)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown time zone \"", zone_name,
        "\" (time zone data is read from $TZDIR or /usr/share/zoneinfo, "
        "Debian package tzdata)"));
  }
  return Cron(*std::move(parsed), zone);
}

absl::Time Recurrence::Next(absl::Time after) const {
  return is_cron_ ? NextCron(after) : NextEvery(after);
}

absl::Time Recurrence::NextEvery(absl::Time after) const {
  if (after < anchor_) return anchor_;
  if (after == absl::InfiniteFuture()) return absl::InfiniteFuture();
  absl::Duration remainder;
  const int64_t k = absl::IDivDuration(after - anchor_, interval_, &remainder);
  if (k == std::numeric_limits<int64_t>::max()) return absl::InfiniteFuture();
  // Saturates to InfiniteFuture() past the end of absl::Time.
  return anchor_ + interval_ * (k + 1);
}

// Each matching civil time c is one occurrence, at f(c): the instant itself
// when c is unique, the first instance when c is repeated, and the
// transition instant when c is skipped. f never decreases as c grows (a
// gap's wall times all map to its end; a repeated wall time's first
// instance comes before every later wall time's instant), so the first
// occurrence after `after` is f of the first matching c with f(c) > after.
// Every c at or before civil(after) has f(c) <= after, so the search starts
// one second later; only a repeated wall time already past (when `after`
// is in the second instance of a repeated hour) has f(c) <= after there,
// and the search then jumps to the end of the repeated span.
absl::Time Recurrence::NextCron(absl::Time after) const {
  if (after == absl::InfiniteFuture() || after == absl::InfinitePast()) {
    return absl::InfiniteFuture();
  }
  absl::CivilSecond from = zone_.At(after).cs + 1;
  for (;;) {
    const absl::optional<absl::CivilSecond> c = expression_.NextMatch(from);
    if (!c.has_value()) return absl::InfiniteFuture();
    const absl::TimeZone::TimeInfo info = zone_.At(*c);
    absl::Time t = info.pre;  // UNIQUE: all three agree; REPEATED: first
    if (info.kind == absl::TimeZone::TimeInfo::SKIPPED) t = info.trans;
    if (t > after) return t;
    from = *c + 1;
    if (info.kind == absl::TimeZone::TimeInfo::REPEATED) {
      const absl::CivilSecond end =
          zone_.At(info.trans - absl::Seconds(1)).cs + 1;
      if (end > from) from = end;
    }
  }
}

std::vector<absl::Time> Recurrence::Between(absl::Time from, absl::Time to,
                                            size_t max) const {
  std::vector<absl::Time> out;
  for (absl::Time t = Next(from);
       out.size() < max && t <= to && t != absl::InfiniteFuture();
       t = Next(t)) {
    out.push_back(t);
  }
  return out;
}

std::string Recurrence::ToString() const {
  if (is_cron_) {
    return absl::StrCat("cron \"", expression_.ToString(), "\" in ",
                        zone_.name());
  }
  return absl::StrCat(
      "every ", absl::FormatDuration(interval_), " from ",
      absl::FormatTime(absl::RFC3339_full, anchor_, absl::UTCTimeZone()));
}

}  // namespace timingwheel
