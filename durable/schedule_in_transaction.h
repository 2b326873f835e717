// Copyright 2026 The timingwheel Authors.
//
// schedule_in_transaction.h
// -----------------------------------------------------------------------------
//
// Adding durable tasks inside the caller's own PostgreSQL transaction (the
// transactional outbox: the tasks commit with the caller's rows, or not at
// all). Included by durable_scheduler.h. This file defines:
//
//   * `ScheduleInTransaction()`: add tasks on the caller's libpq connection.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULE_IN_TRANSACTION_H_
#define TIMINGWHEEL_DURABLE_SCHEDULE_IN_TRANSACTION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "durable/task.h"

typedef struct pg_conn PGconn;

namespace timingwheel {

// ScheduleInTransaction()
//
// Inserts `requests` on `conn`, the caller's own libpq connection, without
// opening or committing a transaction: inside the caller's `BEGIN ...
// COMMIT` the tasks commit (and become visible to the schedulers: the
// owners of tasks due within their own horizons are woken by a notification
// at commit; tested by wakeup_test.cc) together with the caller's own rows,
// or not at all. FailedPrecondition when no transaction is open on `conn`
// (each task would commit on its own), or it has failed, or `conn` is
// busy; Unavailable when it is not connected (test:
// DurableSchedulerTest.ScheduleInTransactionRefusesAConnWithoutOne).
// Otherwise errors as `DurableScheduler::ScheduleBatch()`; on
// AlreadyExists earlier rows of the call are not undone: roll the transaction
// back. The store must exist (a `DurableScheduler` created it) with
// `slot_count` slots. `max_id_bytes` in [1, kMaxIdBytes] and
// `max_payload_bytes` in [1, kMaxPayloadBytes], at most kMaxBatchRequests
// requests (InvalidArgument otherwise; task.h). Thread-compatible (as
// `conn` is).
absl::Status ScheduleInTransaction(PGconn* conn,
                                   absl::Span<const ScheduleRequest> requests,
                                   int slot_count = 1024,
                                   int64_t max_id_bytes = 1024,
                                   int64_t max_payload_bytes = 16 << 20);

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SCHEDULE_IN_TRANSACTION_H_
