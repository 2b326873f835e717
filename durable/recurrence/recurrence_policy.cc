// Copyright 2026 The timingwheel Authors.

#include "durable/recurrence/recurrence_policy.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace {

// The resolution of absl::Time: Last(t - kTick) is the occurrence before t.
const absl::Duration kTick = absl::Nanoseconds(1) / 4;

bool Finite(absl::Time t) {
  return t != absl::InfinitePast() && t != absl::InfiniteFuture();
}

}  // namespace

absl::Status RecurrencePolicy::Validate() const {
  if (grace < absl::ZeroDuration() || grace > kMaxGrace) {
    return absl::InvalidArgumentError(
        absl::StrCat("RecurrencePolicy.grace must be in 0..",
                     absl::FormatDuration(kMaxGrace), ", got ",
                     absl::FormatDuration(grace)));
  }
  if (max_runs < 1 || max_runs > kMaxRunsLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("RecurrencePolicy.max_runs must be in 1..", kMaxRunsLimit,
                     ", got ", max_runs));
  }
  return absl::OkStatus();
}

absl::StatusOr<DuePlan> PlanDueRuns(const Recurrence& recurrence,
                                    absl::Time last_accounted, absl::Time now,
                                    const RecurrencePolicy& policy,
                                    bool previous_running) {
  absl::Status valid = policy.Validate();
  if (!valid.ok()) return valid;
  if (!Finite(last_accounted) || !Finite(now)) {
    return absl::InvalidArgumentError(
        "PlanDueRuns: last_accounted and now must be finite");
  }
  DuePlan plan;
  plan.last = last_accounted;
  plan.next = recurrence.Next(std::max(now, last_accounted));
  const absl::Time newest = recurrence.Last(now);
  if (newest == absl::InfinitePast() || newest <= last_accounted) return plan;
  plan.last = newest;

  size_t runs = 0;  // how many of the newest due occurrences run
  if (!(previous_running && policy.overlap == Overlap::kSkipWhileRunning)) {
    runs = policy.catch_up == CatchUp::kRunOnce
               ? 1
               : static_cast<size_t>(policy.max_runs);
  }
  const bool graced = policy.catch_up == CatchUp::kSkipMissed;
  // Walk back from the newest due occurrence; `t` ends at the newest one
  // that does not run.
  absl::Time t = newest;
  while (plan.run.size() < runs && t > last_accounted &&
         (!graced || t >= now - policy.grace)) {
    plan.run.push_back(t);
    t = recurrence.Last(t - kTick);
  }
  std::reverse(plan.run.begin(), plan.run.end());
  if (t > last_accounted) {
    plan.skipped_first = recurrence.Next(last_accounted);
    plan.skipped_last = t;
  }
  return plan;
}

}  // namespace timingwheel
