// Copyright 2026 The timingwheel Authors.

#include "durable/recurrence/recurrence.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"

namespace timingwheel {
namespace {

// InstantOf()
//
// When a matching wall time runs, given what its zone says of it (the rules
// in recurrence.h): UNIQUE, its instant (pre, trans and post agree);
// REPEATED, its first instance (pre); SKIPPED, the end of the gap (trans).
absl::Time InstantOf(const absl::TimeZone::TimeInfo& info) {
  return info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.trans : info.pre;
}

}  // namespace

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
    const absl::Time t = InstantOf(info);
    if (t > after) return t;
    from = *c + 1;
    if (info.kind == absl::TimeZone::TimeInfo::REPEATED) {
      const absl::CivilSecond end =
          zone_.At(info.trans - absl::Seconds(1)).cs + 1;
      if (end > from) from = end;
    }
  }
}

absl::Time Recurrence::Last(absl::Time at) const {
  if (at == absl::InfiniteFuture() || at == absl::InfinitePast()) {
    return absl::InfinitePast();
  }
  return is_cron_ ? LastCron(at) : LastEvery(at);
}

absl::Time Recurrence::LastEvery(absl::Time at) const {
  if (at < anchor_) return absl::InfinitePast();
  absl::Duration remainder;
  const int64_t k = absl::IDivDuration(at - anchor_, interval_, &remainder);
  return anchor_ + interval_ * k;
}

// Mirrors NextCron(): every c at or before civil(at) has f(c) <= at, and
// every later c has f(c) > at, except when `at` is in the second instance
// of a repeated span: the span's wall times all ran at their first
// instances, before `at`, so the search starts at the span's last second.
absl::Time Recurrence::LastCron(absl::Time at) const {
  absl::CivilSecond to = zone_.At(at).cs;
  const absl::TimeZone::TimeInfo here = zone_.At(to);
  if (here.kind == absl::TimeZone::TimeInfo::REPEATED && at >= here.trans) {
    to = zone_.At(here.trans - absl::Seconds(1)).cs;
  }
  for (;;) {
    const absl::optional<absl::CivilSecond> c = expression_.PrevMatch(to);
    if (!c.has_value()) return absl::InfinitePast();
    const absl::Time t = InstantOf(zone_.At(*c));
    if (t <= at) return t;
    to = *c - 1;  // not reached, by the argument above; kept as a guard
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
