// Copyright 2026 The timingwheel Authors.
//
// schedule_store.h
// -----------------------------------------------------------------------------
//
// The SQL of recurring schedules (table `tw_schedule`, schema version 3),
// behind `Store`'s `ScheduleStoreApi` calls (schedule_store_api.h states
// their promises; store_schedules.cc forwards them here):
// create, update, pause, resume, delete, list, and advance. Each function
// runs one transaction on `conn` (call it outside one) that locks the
// schedule's row (`FOR UPDATE`), so advances of one schedule by several
// processes serialize: the row's `last_us` (the newest occurrence written
// or skipped) moves forward in the same transaction that writes the
// occurrence tasks (`InsertTasks()`, notifying their owner), and
// occurrence ids are deterministic (occurrence_id.h), so no occurrence is
// ever written twice, whoever advances and however often (a retry after a
// lost reply re-reads the row). Which occurrences: schedule_plan.h.
//
// Columns: name (PK), slot (SlotFor(name): its occurrences' slot too),
// every_us, anchor_us, cron (canonical text), zone, payload, overlap,
// catch_up, grace_us, max_runs, paused, last_us, plan_us (when the
// owner's duty advances it again, AdvancePlan::plan_us: the duty's key),
// next_us (reported next run), version, created_us, updated_us. Index (slot,
// plan_us) WHERE NOT paused.
//
// Thread safety: as the connection (one thread at a time).

#ifndef TIMINGWHEEL_DURABLE_SQL_SCHEDULE_STORE_H_
#define TIMINGWHEEL_DURABLE_SQL_SCHEDULE_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/recurring.h"
#include "durable/sql/store.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace durable_internal {

// CreateScheduleTx()
//
// Stores `schedule` (checked by RecurrenceOf()) in `slot` and writes its
// first occurrence(s). OK without a change when an identical definition
// is stored; AlreadyExists when another one is.
absl::StatusOr<ScheduleWrite> CreateScheduleTx(
    PGconn* conn, const RecurringSchedule& schedule, int slot,
    const Inserter& inserter);

// UpdateScheduleTx()
//
// Replaces the definition (keeping the paused flag), deletes the waiting
// occurrence tasks, and plans afresh from the database's now: nothing
// before the update is due under the new definition. NotFound.
absl::StatusOr<ScheduleWrite> UpdateScheduleTx(
    PGconn* conn, const RecurringSchedule& schedule, const Inserter& inserter);

// PauseScheduleTx()
//
// Marks it paused and deletes its waiting (PENDING or SCHEDULED)
// occurrence tasks; a running one finishes. NotFound.
absl::Status PauseScheduleTx(PGconn* conn, const std::string& name);

// ResumeScheduleTx()
//
// Clears the paused flag and advances (the catch-up policy decides which
// occurrences missed meanwhile run). NotFound.
absl::StatusOr<ScheduleWrite> ResumeScheduleTx(PGconn* conn,
                                               const std::string& name,
                                               const Inserter& inserter);

// DeleteScheduleTx()
//
// Deletes it and its waiting occurrence tasks; false when there was none.
absl::StatusOr<bool> DeleteScheduleTx(PGconn* conn, const std::string& name);

// ListSchedulesTx(), GetScheduleTx() (NotFound).
absl::StatusOr<std::vector<ScheduleInfo>> ListSchedulesTx(PGconn* conn);
absl::StatusOr<ScheduleInfo> GetScheduleTx(PGconn* conn,
                                           const std::string& name);

// AdvanceScheduleTx()
//
// Writes the occurrences the plan says are due now (schedule_plan.h).
// Nothing for a paused or unknown schedule.
absl::StatusOr<ScheduleWrite> AdvanceScheduleTx(PGconn* conn,
                                                const std::string& name,
                                                const Inserter& inserter);

// CompleteAndAdvanceTx()
//
// In one transaction: records `completions` (`Store::Complete()`, with
// `log`'s attempt records), then
// advances the schedules `names` (their occurrences' outcomes are among
// them), in name order, so that a schedule's next occurrence commits
// together with the outcome that ends the current one. An advance that
// fails is rolled back to a savepoint taken after the outcomes, which
// commit anyway (`advance_failed`; the slot owner's duty writes the next
// occurrence later). Errors only for the outcomes' statement or the
// transaction itself (nothing committed, unless the COMMIT's reply was
// lost).
absl::StatusOr<CompleteAndAdvanceResult> CompleteAndAdvanceTx(
    Store& store, absl::Span<const Completion> completions, int64_t horizon_us,
    absl::Span<const std::string> names, const Inserter& inserter,
    const AttemptLog& log);

// DueSchedules()
//
// As ScheduleStoreApi::DueSchedules() (schedule_store_api.h).
absl::StatusOr<DueScheduleList> DueSchedules(PGconn* conn,
                                             absl::Span<const int> slots,
                                             int64_t horizon_us, int64_t limit);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_SCHEDULE_STORE_H_
