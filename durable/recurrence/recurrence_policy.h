// Copyright 2026 The timingwheel Authors.
//
// recurrence_policy.h
// -----------------------------------------------------------------------------
//
// What a recurring schedule runs when it wakes up. Given its Recurrence
// (durable/recurrence/recurrence.h), the last occurrence it has accounted for,
// the current time and its policies, PlanDueRuns() says which occurrences to
// run now, which it skips, what to record as accounted for, and when to wake
// next. Pure computation, no database and no clock; the scheduler's
// recurring schedules use it through schedule_plan.h.
//
// This header defines:
//   CatchUp           what happens to occurrences that came due while no
//                     scheduler ran them (after downtime, or a slow wake).
//   Overlap           what happens to an occurrence that comes due while
//                     the schedule's previous run is still running.
//   RecurrencePolicy  both, with the grace period and the run cap.
//   DuePlan           PlanDueRuns()'s answer.
//   PlanDueRuns()     computes it.
//
// The promises, for a caller that records `plan.last` (atomically with
// starting `plan.run`) and calls again with it as `last_accounted`:
//   - never early: every run is an occurrence at or before `now`;
//   - at most once: every run is after `last_accounted`, runs are in order,
//     and `plan.last` is at or after the newest of them;
//   - nothing silently lost: every occurrence in (last_accounted, plan.last]
//     is either in `plan.run` or in [skipped_first, skipped_last], and the
//     skipped ones are all older than the runs;
//   - `plan.next` is the first occurrence after both `now` and `plan.last`.
// RecurrencePolicyTest.RandomWakeupsAccountForEveryOccurrenceOnce checks
// all four over random recurrences, policies and wake-up times.

#ifndef TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_POLICY_H_
#define TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_POLICY_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "durable/recurrence/recurrence.h"

namespace timingwheel {

// CatchUp
//
// Which of the due occurrences (those after the last one accounted for, up
// to now) run. In every case the ones that run are the newest, and the
// older ones are skipped.
enum class CatchUp {
  // Only occurrences at most `grace` late run (at most `max_runs`, the
  // newest); older ones are skipped. Normal operation (a wake-up at each
  // occurrence) runs every occurrence; a scheduler that was down runs
  // nothing it missed (RecurrencePolicyTest.SkipMissed).
  kSkipMissed,
  // One run, of the newest due occurrence, however late: missed
  // occurrences coalesce into it (RecurrencePolicyTest.RunOnce).
  kRunOnce,
  // Each due occurrence runs, the newest `max_runs` of them
  // (RecurrencePolicyTest.RunEachMissed).
  kRunEachMissed,
};

// Overlap
//
// Whether an occurrence runs while the schedule's previous run is still
// running (RecurrencePolicyTest.Overlap).
enum class Overlap {
  // It does not: the due occurrences are skipped (accounted for, not run
  // and not queued for later).
  kSkipWhileRunning,
  // It does: runs of one schedule may overlap.
  kRunAnyway,
};

// RecurrencePolicy
//
// A schedule's catch-up and overlap policies. A plain struct; Validate()
// says whether PlanDueRuns() accepts it.
struct RecurrencePolicy {
  // The most runs one plan returns (and the largest `max_runs`).
  static constexpr int kMaxRunsLimit = 1000;
  // The longest `grace` (3,653 days, about 10 years).
  static constexpr absl::Duration kMaxGrace = absl::Hours(24 * 3653);

  CatchUp catch_up = CatchUp::kRunOnce;
  Overlap overlap = Overlap::kSkipWhileRunning;
  // kSkipMissed: how late an occurrence may be and still run.
  // 0..kMaxGrace.
  absl::Duration grace = absl::Minutes(1);
  // kSkipMissed and kRunEachMissed: the most occurrences one plan runs.
  // 1..kMaxRunsLimit.
  int max_runs = 1;

  // RecurrencePolicy::Validate()
  //
  // InvalidArgument naming the field when `grace` is outside 0..kMaxGrace
  // or `max_runs` is outside 1..kMaxRunsLimit
  // (RecurrencePolicyTest.RejectsBadArguments).
  absl::Status Validate() const;
};

// DuePlan
//
// What to do now. `skipped_first` > `skipped_last` (InfiniteFuture() and
// InfinitePast()) when nothing is skipped; Recurrence::Between() lists the
// skipped occurrences if a caller wants each (there may be many).
struct DuePlan {
  // The occurrences to run now, oldest first.
  std::vector<absl::Time> run;
  // The oldest and newest skipped occurrences; every occurrence between
  // them is skipped too.
  absl::Time skipped_first = absl::InfiniteFuture();
  absl::Time skipped_last = absl::InfinitePast();
  // What to record as the last occurrence accounted for (run or skipped):
  // the newest due occurrence, or `last_accounted` when none was due.
  absl::Time last;
  // When to plan again: the first occurrence after `now` and after `last`
  // (absl::InfiniteFuture() when there is none).
  absl::Time next;

  bool has_skipped() const { return skipped_first <= skipped_last; }
};

// PlanDueRuns()
//
// The plan for `recurrence` woken at `now`, when every occurrence up to
// `last_accounted` has been run or skipped and `previous_running` says
// whether the schedule's previous run is still running. For a new
// schedule, `last_accounted` is the instant it was created (occurrences
// after it are due). `now` before `last_accounted` (a clock stepped back)
// makes nothing due, and `next` stays after `last_accounted`. Returns
// InvalidArgument for an invalid policy or an infinite `last_accounted` or
// `now`. Cost: one Recurrence::Last() per run, plus three calls. Thread-safe
// (pure).
absl::StatusOr<DuePlan> PlanDueRuns(const Recurrence& recurrence,
                                    absl::Time last_accounted, absl::Time now,
                                    const RecurrencePolicy& policy,
                                    bool previous_running);

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_RECURRENCE_RECURRENCE_POLICY_H_
