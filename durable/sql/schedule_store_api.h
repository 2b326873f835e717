// Copyright 2026 The timingwheel Authors.
//
// schedule_store_api.h
// -----------------------------------------------------------------------------
//
// ScheduleStoreApi: what recurring schedules ask of the store, as a base of
// `StoreApi` (store_api.h). Implemented by `Store` (the SQL is in
// schedule_store.cc, table `tw_schedule`) and by the in-memory
// `durable_testing::FakeStore`.
//
// The promises (recurring.h states them to users, with their tests):
//   - One writer at a time per schedule: each call that writes takes the
//     schedule (PostgreSQL: its row, `FOR UPDATE`) for the whole call, so
//     advances by several processes serialize. The schedule's `last_us`
//     (the newest occurrence written or skipped) moves forward in the same
//     atomic step that writes the occurrence tasks (inserted as
//     `StoreApi::Insert()` inserts, owners notified), and occurrence ids
//     are deterministic (occurrence_id.h): no occurrence is written twice,
//     whoever advances and however often. Which occurrences:
//     schedule_plan.h (`PlanAdvance()`, with the newest occurrence task
//     still stored as its `PriorOccurrence`).
//   - Waiting occurrences (PENDING or SCHEDULED tasks in the schedule's id
//     range, `OccurrenceRange()`) are deleted by an update, a pause and a
//     delete; a RUNNING one finishes.
//   - Errors as `StoreApi`'s; InvalidArgument for a definition
//     `RecurrenceOf()` refuses; NotFound for an unknown kind.
//
// Thread safety: as `StoreApi` (one caller at a time per instance).

#ifndef TIMINGWHEEL_DURABLE_SQL_SCHEDULE_STORE_API_H_
#define TIMINGWHEEL_DURABLE_SQL_SCHEDULE_STORE_API_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "durable/recurring.h"
#include "durable/sql/store_types.h"

namespace timingwheel {
namespace durable_internal {

// What a schedule write did: the occurrence tasks it inserted (as
// `StoreApi::Insert()` reports them: `mine` for the inserter's own wheel).
// ResumeWriteError()
//
// What a resume answers when writing the occurrences it owes failed with
// `status`: NotFound there (the schedule's kind is not registered any
// more) becomes FailedPrecondition, so that a resume's NotFound keeps
// meaning "no such schedule". Both stores use it.
inline absl::Status ResumeWriteError(const absl::Status& status) {
  if (!absl::IsNotFound(status)) return status;
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot resume: ", status.message(),
      " (a scheduler with a handler for the schedule's kind registers it)"));
}

struct ScheduleWrite {
  InsertResult inserted;
  int64_t written = 0;  // Occurrence tasks written.
};

// What `DueSchedules()` found: the schedules to advance now, and how long
// until the next of the others is to be advanced (max int64: none known).
struct DueScheduleList {
  std::vector<std::string> names;
  int64_t next_in_us = std::numeric_limits<int64_t>::max();
};

// What `CompleteAndAdvance()` did.
struct CompleteAndAdvanceResult {
  CompleteResult complete;
  std::vector<ScheduleWrite> writes;  // For the owners' wake-ups.
  bool advance_failed = false;
};

// ScheduleStoreApi
//
// The recurring schedules' statements, one call each, each atomic.
class ScheduleStoreApi {
 public:
  virtual ~ScheduleStoreApi() = default;

  // ScheduleStoreApi::CreateSchedule()
  //
  // Stores `schedule` (checked by RecurrenceOf(); its kind empty or
  // registered) in `slot` and writes its first occurrence(s). OK without a
  // change when an identical definition is stored; AlreadyExists when
  // another one is.
  virtual absl::StatusOr<ScheduleWrite> CreateSchedule(
      const RecurringSchedule& schedule, int slot,
      const Inserter& inserter) = 0;

  // ScheduleStoreApi::UpdateSchedule()
  //
  // Replaces the definition (keeping the paused flag), deletes the waiting
  // occurrence tasks, and plans afresh from the store's now: nothing
  // before the update is due under the new definition. NotFound.
  virtual absl::StatusOr<ScheduleWrite> UpdateSchedule(
      const RecurringSchedule& schedule, const Inserter& inserter) = 0;

  // ScheduleStoreApi::PauseSchedule()
  //
  // Marks it paused and deletes its waiting occurrence tasks. NotFound.
  virtual absl::Status PauseSchedule(const std::string& name) = 0;

  // ScheduleStoreApi::ResumeSchedule()
  //
  // Clears the paused flag and advances (the catch-up policy decides which
  // occurrences missed meanwhile run). NotFound for an unknown schedule;
  // FailedPrecondition (nothing changed) when its kind is not registered
  // any more (`ResumeWriteError()`).
  virtual absl::StatusOr<ScheduleWrite> ResumeSchedule(
      const std::string& name, const Inserter& inserter) = 0;

  // ScheduleStoreApi::DeleteSchedule()
  //
  // Deletes it and its waiting occurrence tasks; false when there was none.
  virtual absl::StatusOr<bool> DeleteSchedule(const std::string& name) = 0;

  // ScheduleStoreApi::ListSchedules(), GetSchedule() (NotFound).
  virtual absl::StatusOr<std::vector<ScheduleInfo>> ListSchedules() = 0;
  virtual absl::StatusOr<ScheduleInfo> GetSchedule(const std::string& name) = 0;

  // ScheduleStoreApi::AdvanceSchedule()
  //
  // Writes the occurrences the plan says are due now. Nothing for a paused
  // or unknown schedule.
  virtual absl::StatusOr<ScheduleWrite> AdvanceSchedule(
      const std::string& name, const Inserter& inserter) = 0;

  // ScheduleStoreApi::CompleteAndAdvance()
  //
  // Atomically: records `completions` (`StoreApi::Complete()`, with `log`'s
  // attempt records), then advances the schedules `names` (their
  // occurrences' outcomes are among them), in name order, so that a
  // schedule's next occurrence commits together with the outcome that ends
  // the current one. An advance that fails is undone alone (PostgreSQL: to
  // a savepoint taken after the outcomes), and the outcomes are recorded
  // anyway (`advance_failed`; the slot owner's duty writes the next
  // occurrence later). Errors only when the outcomes were not recorded
  // (unless a lost reply hid their commit).
  virtual absl::StatusOr<CompleteAndAdvanceResult> CompleteAndAdvance(
      absl::Span<const Completion> completions, int64_t horizon_us,
      absl::Span<const std::string> names, const Inserter& inserter,
      const AttemptLog& log) = 0;

  // ScheduleStoreApi::DueSchedules()
  //
  // Names of unpaused schedules of `slots` to advance now, at most
  // `limit`, soonest first: a kSkipWhileRunning one whose `plan_us` is
  // before now + `horizon_us`, a kRunAnyway one whose `plan_us` is before
  // now + kRunAnywayPlanLeadUs (schedule_plan.h). `next_in_us`: how long
  // until the next of the others is due so (from the first `limit` + 1
  // rows by that instant), when that is within `horizon_us` / 2 (the
  // plans further away are not read: the caller asks again every half
  // horizon).
  virtual absl::StatusOr<DueScheduleList> DueSchedules(
      absl::Span<const int> slots, int64_t horizon_us, int64_t limit) = 0;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_SCHEDULE_STORE_API_H_
