// Copyright 2026 The timingwheel Authors.

#include "durable/recurrence/schedule_plan.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_internal {
namespace {

int64_t ToUs(absl::Time t) {
  if (t == absl::InfiniteFuture()) return kNoOccurrenceUs;
  return absl::ToUnixMicros(t);
}

// The newest occurrence written is accounted for.
void AccountForWritten(AdvancePlan& plan) {
  if (!plan.write_us.empty()) {
    plan.last_us = std::max(plan.last_us, plan.write_us.back());
  }
}

}  // namespace

absl::Status CheckScheduleName(absl::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule name is empty (1 to ", kMaxScheduleNameBytes, " bytes)"));
  }
  if (name.size() > kMaxScheduleNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule name of ", name.size(),
                     " bytes exceeds the limit of ", kMaxScheduleNameBytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<Recurrence> RecurrenceOf(const RecurringSchedule& schedule,
                                        int64_t max_payload_bytes) {
  absl::Status name = CheckScheduleName(schedule.name);
  if (!name.ok()) return name;
  if (schedule.cron.size() > kMaxCronBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule cron of ", schedule.cron.size(),
                     " bytes exceeds the limit of ", kMaxCronBytes));
  }
  if (schedule.time_zone.size() > kMaxTimeZoneBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule time_zone of ", schedule.time_zone.size(),
                     " bytes exceeds the limit of ", kMaxTimeZoneBytes));
  }
  if (schedule.every > kMaxScheduleInterval) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule every ", absl::FormatDuration(schedule.every),
        " exceeds the limit of ", absl::FormatDuration(kMaxScheduleInterval)));
  }
  if (schedule.anchor > kMaxScheduleAnchor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule anchor ", absl::FormatTime(schedule.anchor),
        " is after the limit of ", absl::FormatTime(kMaxScheduleAnchor)));
  }
  if (schedule.payload.empty()) {
    return absl::InvalidArgumentError("schedule payload is empty");
  }
  if (static_cast<int64_t>(schedule.payload.size()) > max_payload_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule payload of ", schedule.payload.size(),
                     " bytes exceeds the limit of ", max_payload_bytes));
  }
  absl::Status policy = schedule.policy.Validate();
  if (!policy.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule policy: ", policy.message()));
  }
  const bool has_every = schedule.every != absl::ZeroDuration();
  const bool has_cron = !schedule.cron.empty();
  if (has_every == has_cron) {
    return absl::InvalidArgumentError(
        "schedule needs exactly one of `every` and `cron`");
  }
  absl::StatusOr<Recurrence> recurrence =
      has_every ? Recurrence::Every(schedule.every, schedule.anchor)
                : Recurrence::ParseCron(schedule.cron, schedule.time_zone);
  if (!recurrence.ok()) {
    // The field at fault: a zone the cron expression is read in is named
    // as `time_zone`, not as the expression.
    const absl::string_view message = recurrence.status().message();
    const char* field = has_every ? "schedule `every`: "
                        : absl::StartsWith(message, "unknown time zone")
                            ? "schedule `time_zone`: "
                            : "schedule `cron`: ";
    return absl::InvalidArgumentError(absl::StrCat(field, message));
  }
  if (has_every && (schedule.anchor < absl::UnixEpoch() ||
                    schedule.every < absl::Microseconds(1))) {
    return absl::InvalidArgumentError(
        "schedule `every`: the interval must be at least 1us and the anchor "
        "not before 1970");
  }
  return recurrence;
}

absl::StatusOr<AdvancePlan> PlanAdvance(const Recurrence& recurrence,
                                        const RecurrencePolicy& policy,
                                        int64_t last_us, int64_t now_us,
                                        const PriorOccurrence& prior,
                                        int max_ahead) {
  if (max_ahead < 2 || max_ahead > kMaxOccurrencesAhead) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_ahead ", max_ahead, " outside 2..", kMaxOccurrencesAhead));
  }
  AdvancePlan plan;
  plan.last_us = last_us;
  const absl::Time last = absl::FromUnixMicros(last_us);
  const absl::Time now = absl::FromUnixMicros(now_us);
  if (policy.overlap == Overlap::kSkipWhileRunning) {
    if (prior.exists && prior.unfinished) {
      plan.plan_us = ToUs(recurrence.Next(last));
      plan.next_us = last_us > now_us ? last_us : plan.plan_us;
      return plan;
    }
    absl::StatusOr<DuePlan> due = PlanDueRuns(recurrence, last, now, policy,
                                              /*previous_running=*/false);
    if (!due.ok()) return due.status();
    if (!due->run.empty()) {
      // One at a time: the oldest run (the skipped ones before it are
      // accounted for by it); the others are planned again once it has
      // finished.
      plan.write_us.push_back(ToUs(due->run.front()));
    } else {
      plan.last_us = std::max(last_us, ToUs(due->last));
      if (due->next != absl::InfiniteFuture()) {
        plan.write_us.push_back(ToUs(due->next));
      }
    }
    AccountForWritten(plan);
    plan.plan_us = ToUs(recurrence.Next(absl::FromUnixMicros(plan.last_us)));
    plan.next_us = plan.write_us.empty() ? plan.plan_us : plan.write_us.front();
    return plan;
  }
  // kRunAnyway: the catch-up policy's runs (all due already), then future
  // occurrences until `max_ahead` of them are written: those in
  // (now, last] were written by earlier advances.
  absl::StatusOr<DuePlan> due = PlanDueRuns(recurrence, last, now, policy,
                                            /*previous_running=*/false);
  if (!due.ok()) return due.status();
  plan.last_us = std::max(last_us, ToUs(due->last));
  for (absl::Time t : due->run) plan.write_us.push_back(ToUs(t));
  const size_t bound = static_cast<size_t>(max_ahead);
  const size_t ahead =
      last > now ? recurrence.Between(now, last, bound).size() : 0;
  if (ahead < bound) {
    for (absl::Time t : recurrence.Between(
             std::max(due->last, now), absl::InfiniteFuture(), bound - ahead)) {
      plan.write_us.push_back(ToUs(t));
    }
  }
  AccountForWritten(plan);
  // Advance again once only half of them wait: at the occurrence that
  // leaves (max_ahead + 1) / 2 after it (an older version's row may hold
  // more than max_ahead: the same rule). Fewer written (the recurrence
  // ends): at the first unwritten one, if any.
  const size_t keep = static_cast<size_t>(max_ahead + 1) / 2;
  absl::Time refill = absl::FromUnixMicros(plan.last_us);
  size_t after = 0;
  while (after < keep && refill > now) {
    refill = recurrence.Last(refill - absl::Microseconds(1));
    ++after;
  }
  if (after < keep || refill <= now) {
    plan.plan_us = ToUs(recurrence.Next(absl::FromUnixMicros(plan.last_us)));
  } else {
    plan.plan_us = ToUs(refill);
  }
  if (plan.plan_us != kNoOccurrenceUs) plan.plan_us += kRunAnywayPlanLeadUs;
  // The next run: the oldest catch-up run, or the first occurrence after
  // now (written ahead, or the next one to be written).
  plan.next_us = ToUs(recurrence.Next(now));
  if (!plan.write_us.empty()) {
    plan.next_us = std::min(plan.next_us, plan.write_us.front());
  }
  return plan;
}

}  // namespace durable_internal
}  // namespace timingwheel
