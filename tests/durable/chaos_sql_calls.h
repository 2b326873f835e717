// Copyright 2026 The timingwheel Authors.
//
// chaos_sql_calls.h
// -----------------------------------------------------------------------------
//
// The chaos workload's calls through the SQL producer functions (schema
// version 6, durable/sql/producer_functions.h) instead of `DurableClient`, so
// the randomized workload mixes both producers on the same ids and under
// the same faults: `tw_schedule_task_after()` in a transaction,
// `tw_schedule_or_replace()` / `tw_reschedule()` racing C++ calls, and
// `tw_cancel_task()`. Each function makes one attempt and reports what the
// database answered; a lost connection is `absl::UnavailableError`, a
// refused input the server's SQLSTATE class 22 `absl::InvalidArgumentError`.
// Thread-compatible: a connection is used by one call at a time.

#ifndef TIMINGWHEEL_TESTS_DURABLE_CHAOS_SQL_CALLS_H_
#define TIMINGWHEEL_TESTS_DURABLE_CHAOS_SQL_CALLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "durable/task.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_test {

// Stores `requests` (their delay, payload, kind and priority) with
// `tw_schedule_task_after()` in one transaction on `conn`, which must be
// idle outside a transaction. OK when every answer was SCHEDULED or EXISTS
// and the COMMIT succeeded.
absl::Status SqlScheduleInTransaction(
    PGconn* conn, const std::vector<ScheduleRequest>& requests);

// `tw_schedule_or_replace(id, due, 'r', mode)` (mode 0 REPLACE, 1
// KEEP_EARLIER, 2 KEEP_LATER) or, for mode 3, `tw_reschedule(id, due)`, on
// a connection of its own to `conninfo`. The answer as a `ScheduleOutcome`
// int (NOT_FOUND: an error, as `Reschedule()` answers).
absl::StatusOr<int> SqlReplace(const std::string& conninfo,
                               const std::string& id, int mode, int64_t due_us);

// `tw_cancel_task(id)` on a connection of its own: true for CANCELLED and
// STOP_REQUESTED, false for FINISHED and NOT_FOUND.
absl::StatusOr<bool> SqlCancel(const std::string& conninfo,
                               const std::string& id);

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_CHAOS_SQL_CALLS_H_
