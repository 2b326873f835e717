// Copyright 2026 The timingwheel Authors.
//
// recurring.h
// -----------------------------------------------------------------------------
//
// The public value types of recurring schedules: a named, durable schedule
// (a fixed interval or a cron expression in a time zone, a payload, and
// the overlap and catch-up policies of recurrence_policy.h) whose every
// occurrence becomes one ordinary task. `DurableScheduler` and
// `DurableClient` create, update, pause, resume, delete and list them;
// durable/README.md ("Recurring schedules") describes how they run.
//
// This file defines:
//
//   * `RecurringSchedule`: a schedule's definition.
//   * `ScheduleInfo`: a stored schedule, with its next and last runs.
//
// An occurrence's task has the id `OccurrenceId(name, instant)`
// (occurrence_id.h) and the schedule's payload; its handler sees the
// schedule's name and the occurrence's instant in `DurableTask::schedule`
// and `DurableTask::occurrence`.
//
// Guarantees of recurring schedules (tests in //tests/durable):
//   * Exactly one task per occurrence, whatever the number of processes,
//     takeovers, stalls and lost replies: the schedule's row is locked
//     while its next occurrences are written and records the newest one
//     in the same transaction, and occurrence ids are deterministic (the
//     primary key). Each task then runs at least once, as any task.
//     RecurringLogicTest.TwoSchedulersWriteEachOccurrenceOnce,
//     RecurringTest.OwnerStalledBeforeACompletionWritesNothingTwice,
//     RecurringLogicTest.CancelledOccurrenceIsRepairedByTheOwnersDuty,
//     RecurringTest.AdvanceWhoseCommitReplyIsLostWritesNothingTwice,
//     RecurringStoreTest.ConcurrentAdvancesWriteEachOccurrenceOnce.
//   * Never early: an occurrence's task is due at its instant on the
//     database's clock. RecurringLogicTest.IntervalRunsEachOccurrenceOnTime.
//   * Overlap::kSkipWhileRunning: runs never overlap: the next occurrence
//     is written once the current one's task has finished, in the
//     transaction that records its outcome (or, when that could not be,
//     by the slot's owner at its next load); what came due meanwhile goes
//     to the catch-up policy (kSkipMissed with a grace shorter than the
//     interval skips it). RecurringLogicTest.SkipWhileRunningNeverOverlaps.
//     Overlap::kRunAnyway: the next kMaxOccurrencesAhead (8) occurrences
//     are written ahead and wait, whatever the interval (never a horizon's
//     worth: a schedule every 3 s keeps 8 waiting, a daily one 8 days).
//     They are topped up when one of them completes, and by the slot
//     owner's duty when only half of them are still to come, so each is
//     stored about 4 intervals before it is due and fires on time.
//     Catch-up runs after an outage or a pause (due already, at most
//     `max_runs`) come in addition. RecurringLogicTest.RunAnywayRunsEvery...,
//     RecurringStoreTest.RunAnywayKeepsAtMostTheBoundWaiting,
//     SchedulePlanTest.RunAnywayWritesAtMostTheBoundAhead.
//   * Catch-up after an outage of every scheduler, or a pause:
//     `policy.catch_up`. RecurringStoreTest.OutageCatchUp*,
//     RecurringLogicTest.PausedScheduleRunsNothingAndResumesByItsCatchUp.
//   * Cron schedules in a time zone follow recurrence.h's daylight-saving
//     rules, each occurrence once. SchedulePlanTest.CronAcrossNewYorkDst*.
//   * A pause deletes the waiting occurrences, one already due but not yet
//     fired included, and leaves them unaccounted for: at the resume the
//     catch-up policy decides on them.
//     RecurringEdgesTest.PauseOfADueOccurrenceLeavesItToTheCatchUp.
//     An update replaces the occurrences not yet due; one already due
//     stays and runs as written.
//     RecurringEdgesTest.UpdateLeavesAnOccurrenceAlreadyDue.
//   * An operator's retry (AdminStore::Retry()) of a FAILED occurrence of a
//     kSkipWhileRunning schedule is refused while a later occurrence waits
//     or runs (they would overlap); paused, the schedule lets it run and
//     resumes after it.
//     RecurringRetryTest.RetryOfAFailedOccurrenceNeverOverlapsTheNext.

#ifndef TIMINGWHEEL_DURABLE_RECURRING_H_
#define TIMINGWHEEL_DURABLE_RECURRING_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "durable/recurrence/recurrence_policy.h"

namespace timingwheel {

// Limits of a recurring schedule's inputs, checked where they enter (create
// and update check the whole definition; pause, resume, delete and get
// check the name): InvalidArgument naming the field and its limit, before
// any statement runs. Tested by RecurringLimitsTest.*.
//
//   name       1..kMaxScheduleNameBytes bytes (any bytes).
//   cron       at most kMaxCronBytes bytes; each field's values, ranges and
//              steps within the field's range (recurrence_cron.h).
//   time_zone  at most kMaxTimeZoneBytes bytes, a zone of the tz database.
//   every      kMinScheduleInterval (100 ms)..kMaxScheduleInterval (3,653
//              days, about 10 years): each occurrence is a stored task.
//   anchor     1970-01-01T00:00:00Z..kMaxScheduleAnchor (2200-01-01).
//   policy     grace 0..RecurrencePolicy::kMaxGrace (3,653 days),
//              max_runs 1..RecurrencePolicy::kMaxRunsLimit (1000).
//   payload    1..DurableOptions/ClientOptions max_payload_bytes.
//   kind, priority: as `ScheduleRequest` (task.h).
inline constexpr size_t kMaxScheduleNameBytes = 256;
inline constexpr size_t kMaxCronBytes = 256;
inline constexpr size_t kMaxTimeZoneBytes = 128;
inline constexpr absl::Duration kMinScheduleInterval = absl::Milliseconds(100);
inline constexpr absl::Duration kMaxScheduleInterval = absl::Hours(24 * 3653);
// The most occurrences of one Overlap::kRunAnyway schedule written ahead
// (not yet due) and waiting at once; see "Guarantees" above.
inline constexpr int kMaxOccurrencesAhead = 8;
// 2200-01-01T00:00:00Z: occurrence ids order by instant up to 2286-11-20
// (16 decimal digits of microseconds, occurrence_id.h).
inline constexpr absl::Time kMaxScheduleAnchor =
    absl::FromUnixSeconds(7258118400);

// RecurringSchedule
//
// A schedule's definition (limits above). Exactly one of `every` (positive:
// occurrences at `anchor + k * every`) and `cron` (five fields, or six with
// seconds first;
// see recurrence_cron.h, matched in `time_zone`, daylight-saving rules in
// recurrence.h) is set. `payload` is handed to every occurrence (not
// empty). `policy`: overlap and catch-up (recurrence_policy.h).
struct RecurringSchedule {
  std::string name;  // Bytes, not empty, at most 256.
  absl::Duration every = absl::ZeroDuration();
  absl::Time anchor = absl::UnixEpoch();  // For `every` only.
  std::string cron;
  std::string time_zone = "UTC";  // For `cron` only.
  std::string payload;
  RecurrencePolicy policy;
  // The occurrences' kind (empty: the default; else one a scheduler
  // registered, NotFound otherwise) and priority, as
  // `ScheduleRequest::kind` and `priority`. Tested by
  // RecurringLogicTest.OccurrencesRunAsTheSchedulesKind.
  std::string kind;
  int priority = 0;
};

// ScheduleInfo
//
// A stored schedule, as `ListSchedules()` and `GetSchedule()` report it.
struct ScheduleInfo {
  RecurringSchedule definition;
  std::string spec;  // Recurrence::ToString(): "every 200ms from ...", ...
  bool paused = false;
  // The next occurrence that will run, as far as the store knows: the
  // earliest whose task is written and still waiting (an overdue one
  // included), or else the next one to be written; InfiniteFuture() when
  // paused or when there is none.
  absl::Time next_run = absl::InfiniteFuture();
  // The newest occurrence whose time has come, written as a task or
  // skipped by the policies; the creation instant before the first. For a
  // kRunAnyway schedule, whose next occurrences are written ahead, that is
  // the latest stored occurrence due by now (the newest written when none
  // is stored any more), never a future instant.
  absl::Time last_run = absl::InfinitePast();
  int64_t version = 0;  // Changes with every write of the schedule's row.
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_RECURRING_H_
