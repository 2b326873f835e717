// Copyright 2026 The timingwheel Authors.
//
// fire_batch.h
// -----------------------------------------------------------------------------
//
// The pieces of one fired batch that are not SQL: running an attempt's
// handler (an error or an exception is a failure, never a crash), turning
// its result into the outcome the completion statement records (SUCCESS, a
// retry after backoff, or FAILED after the last attempt), and converting
// database due times to the process's clock without ever firing early.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_FIRE_BATCH_H_
#define TIMINGWHEEL_DURABLE_ENGINE_FIRE_BATCH_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/sql/store.h"
#include "durable/task.h"

namespace timingwheel {
namespace durable_internal {

// RunHandler()
//
// Calls `handler(task)`; an exception becomes `absl::InternalError`.
absl::Status RunHandler(
    const std::function<absl::Status(const DurableTask&)>& handler,
    const DurableTask& task);

// BackoffFor()
//
// The delay before retrying after failed attempt number `attempt` (>= 1).
absl::Duration BackoffFor(const RetryPolicy& policy, int attempt);

// Jittered()
//
// `backoff` times a random factor in [1 - jitter, 1 + jitter] (jitter
// clamped to [0, 1]; 0 or less: unchanged). Thread-safe.
absl::Duration Jittered(absl::Duration backoff, double jitter);

// MakeCompletion()
//
// The completion of attempt `started` that ended with `result`: success,
// a retry after the policy's (jittered) backoff, FAILED after the last
// attempt, or what a handler outcome (handler_outcome.h) asks for.
Completion MakeCompletion(const Started& started, const absl::Status& result,
                          const RetryPolicy& policy);

// UnknownKindCompletion()
//
// The completion of attempt `started` when `node` has no handler for its
// kind: a snooze of `delay` (the attempt not counted) whose error, kept as
// the task's last error, names the kind and the node.
Completion UnknownKindCompletion(const Started& started,
                                 const std::string& node, absl::Duration delay);

// RefusedOutcome()
//
// What is recorded instead of `completion` when the database refuses to
// write it (a value it will not take): the attempt FAILED, with the
// refusal `status` as its error, no value of the refused outcome kept.
Completion RefusedOutcome(const Completion& completion,
                          const absl::Status& status);

// LocalDueNanos()
//
// Converts `due_us` (database clock) to the process clock, given that a
// statement that read the database's clock as `db_now_us` returned at
// `local_after_nanos` on the process clock. The database read happened
// before that return, so the database's clock is at least
// `db_now + (t - local_after)` at local time t: firing at the result is
// never early on the database's clock.
inline int64_t LocalDueNanos(int64_t due_us, int64_t db_now_us,
                             int64_t local_after_nanos) {
  return local_after_nanos + (due_us - db_now_us) * 1000;
}

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_FIRE_BATCH_H_
