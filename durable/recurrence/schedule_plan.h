// Copyright 2026 The timingwheel Authors.
//
// schedule_plan.h
// -----------------------------------------------------------------------------
//
// Which occurrences of a recurring schedule to write as tasks now: the
// pure half of advancing a schedule (schedule_store.cc runs it inside the
// transaction that locks the schedule's row and writes the tasks). Built
// on PlanDueRuns() (recurrence_policy.h):
//
//   * Overlap::kSkipWhileRunning: at most one occurrence task is unfinished
//     at a time, so runs never overlap. While it is, nothing is written.
//     Once it has finished, the occurrences that came due meanwhile (while
//     it ran, or while no scheduler ran: an outage, a crash between a
//     completion and the next write, a pause) go to the catch-up policy,
//     and the oldest run it keeps is written (the others are planned again
//     once that one has finished); with none to run, the next future
//     occurrence is written, due at its instant. So kSkipMissed with a
//     grace shorter than the interval skips what came due while a run was
//     running; kRunOnce runs the newest of them once, right after;
//     kRunEachMissed runs them one after another, at most `max_runs`.
//   * Overlap::kRunAnyway: the catch-up policy's runs (due already), then
//     future occurrences until `max_ahead` (kMaxOccurrencesAhead,
//     recurring.h) of them are written and not yet due, whatever the
//     interval: those in (now, last_us] were written by earlier advances,
//     so each advance tops them up. The schedule is advanced again (its
//     `plan_us`, less kRunAnywayPlanLeadUs) when only half of them are
//     still to come, so each occurrence is stored `max_ahead / 2`
//     intervals before it is due; a completion of an occurrence tops them
//     up earlier.
//
// Every written occurrence is after `last_us`, and the plan's `last_us` is
// at or after the newest written one: advancing twice from the same row
// cannot write an occurrence twice. Pure; thread-safe.

#ifndef TIMINGWHEEL_DURABLE_RECURRENCE_SCHEDULE_PLAN_H_
#define TIMINGWHEEL_DURABLE_RECURRENCE_SCHEDULE_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "durable/recurrence/recurrence.h"
#include "durable/recurrence/recurrence_policy.h"
#include "durable/recurring.h"

namespace timingwheel {
namespace durable_internal {

inline constexpr int64_t kNoOccurrenceUs = std::numeric_limits<int64_t>::max();

// The newest occurrence task of the schedule still stored.
struct PriorOccurrence {
  bool exists = false;
  bool unfinished = false;  // PENDING, SCHEDULED or RUNNING.
};

// kRunAnyway: how long before a schedule's `plan_us` the owner's duty
// advances it (kSkipWhileRunning: the owner's horizon). A row planned by
// an older version holds its first unwritten occurrence there, which is
// then written this long before it is due; a row planned here holds the
// instant to advance it plus this lead.
inline constexpr int64_t kRunAnywayPlanLeadUs = 1000000;

struct AdvancePlan {
  std::vector<int64_t> write_us;  // Occurrences to write, oldest first.
  int64_t last_us = 0;            // Newest occurrence written or skipped.
  // When the owner's duty advances the schedule again: kSkipWhileRunning,
  // the first occurrence after last_us, taken once within the owner's
  // horizon; kRunAnyway, the instant half the written-ahead occurrences
  // are due plus kRunAnywayPlanLeadUs, taken kRunAnywayPlanLeadUs before.
  // kNoOccurrenceUs: never.
  int64_t plan_us = kNoOccurrenceUs;
  int64_t next_us = kNoOccurrenceUs;  // The next run, as reported.
};

// CheckScheduleName()
//
// InvalidArgument naming the field and its limit when `name` is empty or
// longer than kMaxScheduleNameBytes (recurring.h).
absl::Status CheckScheduleName(absl::string_view name);

// RecurrenceOf()
//
// Checks `schedule` (name, exactly one of `every` and `cron`, the time
// zone, a payload of at most `max_payload_bytes`, the policy) and returns
// its calendar. InvalidArgument naming the field otherwise.
absl::StatusOr<Recurrence> RecurrenceOf(const RecurringSchedule& schedule,
                                        int64_t max_payload_bytes);

// PlanAdvance()
//
// The plan for a schedule whose occurrences up to `last_us` are accounted
// for, at the database's `now_us`. `max_ahead`: the most kRunAnyway
// occurrences written and not yet due (2..kMaxOccurrencesAhead; tests pass
// less). InvalidArgument for a bad policy or `max_ahead`.
absl::StatusOr<AdvancePlan> PlanAdvance(const Recurrence& recurrence,
                                        const RecurrencePolicy& policy,
                                        int64_t last_us, int64_t now_us,
                                        const PriorOccurrence& prior,
                                        int max_ahead = kMaxOccurrencesAhead);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_RECURRENCE_SCHEDULE_PLAN_H_
