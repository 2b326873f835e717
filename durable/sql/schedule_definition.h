// Copyright 2026 The timingwheel Authors.
//
// schedule_definition.h
// -----------------------------------------------------------------------------
//
// A recurring schedule's stored form, the same in every store
// (schedule_store_api.h): the canonical definition, when two definitions
// are the same (an identical create is a retry), the occurrences' kind and
// priority checks, and the `ScheduleInfo` a stored schedule reports. Pure;
// thread-safe.

#ifndef TIMINGWHEEL_DURABLE_SQL_SCHEDULE_DEFINITION_H_
#define TIMINGWHEEL_DURABLE_SQL_SCHEDULE_DEFINITION_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "durable/recurrence/recurrence.h"
#include "durable/recurring.h"
#include "durable/sql/store_types.h"

namespace timingwheel {
namespace durable_internal {

// StoredDefinition()
//
// `schedule` as stored: the cron text canonical, the time zone only for a
// cron schedule ("UTC" otherwise), the anchor only for an interval (the
// Unix epoch otherwise). `recurrence` is RecurrenceOf(schedule).
RecurringSchedule StoredDefinition(const RecurringSchedule& schedule,
                                   const Recurrence& recurrence);

// SameDefinition()
//
// Every field equal (compare stored definitions).
bool SameDefinition(const RecurringSchedule& a, const RecurringSchedule& b);

// CheckOccurrenceKind()
//
// The kind is a valid kind name (or empty) and the priority within
// [kMinPriority, kMaxPriority]: InvalidArgument otherwise. Whether the kind
// is registered is the store's check.
absl::Status CheckOccurrenceKind(const RecurringSchedule& schedule);

// The reported state of a stored schedule.
struct StoredSchedule {
  RecurringSchedule definition;  // As stored.
  bool paused = false;
  int64_t last_us = 0;  // Newest occurrence written or skipped.
  int64_t next_us = 0;  // The next run (kNoOccurrenceUs: none).
  int64_t version = 0;
  int64_t created_us = 0;  // The schedule's creation.
  int64_t now_us = 0;      // The database's clock as the row was read.
};

// OccurrenceRows()
//
// The occurrence tasks to insert for `definition`'s schedule in `slot`,
// one per instant of `write_us` (an advance's plan): deterministic ids,
// the schedule's payload, kind and priority, due at their instants.
std::vector<InsertRow> OccurrenceRows(const RecurringSchedule& definition,
                                      int slot,
                                      const std::vector<int64_t>& write_us);

// ScheduleInfoOf()
//
// What ListSchedules() and GetSchedule() report for `stored`. Its
// `last_run` is never a future instant nor one no occurrence had: when the
// stored `last_us` is ahead of `now_us` (occurrences written ahead) or the
// schedule is paused (a pause keeps its instant there), it is the newest
// occurrence at or before that, and the creation instant when none came
// due since the creation (RecurringEdgesTest.LastRunIsNeverAheadNorAPause).
ScheduleInfo ScheduleInfoOf(const StoredSchedule& stored);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_SCHEDULE_DEFINITION_H_
