// Copyright 2026 The timingwheel Authors.
//
// task.h
// -----------------------------------------------------------------------------
//
// The value types of the durable tier, shared by its public API and its
// store. This file defines:
//
//   * `TaskState`: PENDING, SCHEDULED, RUNNING, SUCCESS, FAILED.
//   * `DurableTask`: what a handler receives for one attempt.
//   * `TaskInfo`: what `DurableScheduler::Get()` reports about a task.
//   * `ScheduleRequest`: one task to schedule (id, due time, payload, kind,
//     priority).
//   * `AttemptRecord`: one finished attempt, as the attempt history keeps
//     it.
//   * `RetryPolicy`: how many attempts, and the backoff between them.

#ifndef TIMINGWHEEL_DURABLE_TASK_H_
#define TIMINGWHEEL_DURABLE_TASK_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace timingwheel {

// TaskState
//
// The states of a stored task. Every transition is one compare-and-set
// statement in the database.
enum class TaskState : int {
  kPending = 0,    // In the table only (due beyond the owner's horizon, or
                   // its slot has no live owner yet).
  kScheduled = 1,  // Claimed into its slot owner's wheel (stamped with the
                   // owner's epoch).
  kRunning = 2,    // A handler attempt is running.
  kSuccess = 3,    // A handler attempt succeeded. Final.
  kFailed = 4,     // The last allowed attempt failed. Final.
};

// TaskStateName()
//
// Returns "PENDING", "SCHEDULED", ... for `state`.
const char* TaskStateName(TaskState state);

// DurableTask
//
// One attempt of a task, as handed to the handler. `(id, attempt)` is the
// idempotency key: delivery is at least once, and the one window in which an
// attempt can run twice is "handler finished, its SUCCESS not yet committed,
// process killed" (the next owner runs it again with a higher attempt).
struct DurableTask {
  std::string id;       // Bytes, as scheduled (may hold any byte).
  std::string payload;  // Bytes, as scheduled.
  int attempt = 0;      // 1 for the first run, 2 for the first retry, ...
  absl::Time due;       // When this attempt was due (database clock).
  // The attempt's deadline (process clock), `absl::InfiniteFuture()`
  // without `DurableOptions::attempt_timeout`.
  absl::Time deadline = absl::InfiniteFuture();

  // Whether the scheduler asks the handler to stop: its deadline passed
  // (`DurableOptions::attempt_timeout`), or `CancelTask()` (or `twctl
  // cancel`) asked to stop this running attempt. A long handler should
  // check it and return. Thread-safe.
  bool stop_requested() const {
    return stop_flag != nullptr && stop_flag->load(std::memory_order_acquire);
  }
  // Set by the scheduler (shared with the timer that raises it).
  std::shared_ptr<std::atomic<bool>> stop_flag;
  // For an occurrence of a recurring schedule (recurring.h): the schedule's
  // name and the occurrence's instant (`due` of its first attempt). Empty
  // and InfinitePast() for a plain task. `(schedule, occurrence)` names the
  // occurrence across attempts: one task per occurrence, ever.
  std::string schedule;
  absl::Time occurrence = absl::InfinitePast();
  // The task's kind (empty: the default kind, run by
  // `DurableOptions::handler`) and priority (higher runs first among tasks
  // due together), as scheduled.
  std::string kind;
  int priority = 0;
};

// TaskInfo
//
// A stored task, as `DurableScheduler::Get()` reports it.
struct TaskInfo {
  TaskState state = TaskState::kPending;
  int attempt = 0;  // Attempts started so far.
  absl::Time due;   // The current due time (of the next retry, if any).
  int slot = 0;     // The slot the id hashes to.
  // The message of the last attempt that did not succeed (failed,
  // discarded, retried after or snoozed), if any; kept after a later
  // success.
  std::string last_error;
  std::string kind;  // Empty: the default kind.
  int priority = 0;
};

// ScheduleRequest
//
// One task to schedule. The due time is either `due` (absolute, on the
// database's clock) or, when `due` is `absl::InfinitePast()`, `delay` after
// the database's `now()` when the row is inserted. Every field is checked
// before anything is sent (InvalidArgument naming it; the limits below and
// in durable/README.md, "Limits").
struct ScheduleRequest {
  // 1 to `max_id_bytes` bytes (at most kMaxIdBytes).
  std::string id;
  // 1 to `max_payload_bytes` bytes (at most kMaxPayloadBytes).
  std::string payload;
  // Shorter than kMaxDelay; negative (including -InfiniteDuration): now.
  absl::Duration delay = absl::ZeroDuration();
  // From the Unix epoch to before year 10000 (kDueLimitUnixMicros);
  // `InfiniteFuture()` is refused.
  absl::Time due = absl::InfinitePast();
  // The handler that runs it: empty for `DurableOptions::handler`, else a
  // kind some scheduler registered (`DurableOptions::kinds`); scheduling an
  // unknown kind fails with NotFound. At most kMaxKindBytes bytes.
  std::string kind;
  // Among tasks due at the same time, higher priorities start first (and
  // take a kind's free handler slots first). In [kMinPriority,
  // kMaxPriority].
  int priority = 0;
};

inline constexpr int kMaxKindBytes = 128;

// The start of a task's last error when a scheduler snoozed its attempt
// because it has no handler for the task's kind (`DurableOptions::handler`
// unset for the default kind, or the kind not in `DurableOptions::kinds`):
// `no handler for task kind "K" on node N: snoozed for D`.
inline constexpr absl::string_view kNoHandlerErrorPrefix =
    "no handler for task kind ";

// The largest `max_id_bytes` and `max_payload_bytes` a producer or a
// scheduler accepts (InvalidArgument at Create() past them). An id of
// kMaxIdBytes stays below PostgreSQL's btree entry limit (about 2,700 bytes)
// and, hex-encoded in a stop notification (`CancelTask()` of a running
// task), below its 8,000-byte NOTIFY payload limit. Test:
// CancelRunningTest.ARunningTaskIsToldToStopAndNotRetried (an id of
// kMaxIdBytes), DurableBoundsTest.*.
inline constexpr int64_t kMaxIdBytes = 2048;
inline constexpr int64_t kMaxPayloadBytes = int64_t{256} << 20;
inline constexpr int kMinPriority = -32768;
inline constexpr int kMaxPriority = 32767;

// AttemptOutcome
//
// How a finished attempt ended, as its record says.
enum class AttemptOutcome : int {
  kSucceeded = 0,  // The handler returned OK: the task is SUCCESS.
  kRetried = 1,    // It failed; the task is due again (a retry).
  kFailed = 2,     // It failed for good (attempts used up, or discarded).
  kSnoozed = 3,    // It asked to run again later (not a failed attempt), or
                   // no handler of its kind ran in the owner process.
  // Not a run: an operator's `AdminStore::Retry()` (twctl retry, the
  // dashboard) put the FAILED task back to PENDING here. Its `attempt` is
  // the attempt count the task had, `node_id` "operator " and the database
  // role that retried it, `started` = `finished` the retry's instant.
  kOperatorRetry = 4,
};

// AttemptOutcomeName()
//
// Returns "SUCCEEDED", "RETRIED", "FAILED", "SNOOZED", "OPERATOR_RETRY".
const char* AttemptOutcomeName(AttemptOutcome outcome);

// AttemptRecord
//
// One attempt whose outcome was written (`tw_attempt`, kept as long as the
// task's row; `DurableOptions::attempt_history`). An attempt whose process
// died before its outcome committed has no record (its next attempt does).
struct AttemptRecord {
  int attempt = 0;  // The attempt's number (a snooze repeats it).
  AttemptOutcome outcome = AttemptOutcome::kSucceeded;
  std::string node_id;  // The scheduler that ran it.
  absl::Time started;   // When it was fired (database clock).
  absl::Time finished;  // When its outcome was written (database clock).
  std::string error;    // The handler's error (empty for a success).
};

// ReplaceMode
//
// What `ScheduleOrReplace()` does with a task of the same id that is still
// waiting (PENDING or SCHEDULED).
enum class ReplaceMode {
  // Take the request's due time and payload.
  kReplace,
  // Keep whichever is due earlier (the first event's deadline wins: "at
  // most this late").
  kKeepEarlier,
  // Keep whichever is due later: debounce ("run 5 s after the last
  // event").
  kKeepLater,
  // (In both keep modes, a task kept (kKept) keeps its own payload, kind
  // and priority: the request's are dropped. Send the data that must not
  // be lost in a replacement by kReplace, or keep it beside the task.)
};

// ScheduleOutcome
//
// What `ScheduleOrReplace()` and `Reschedule()` did.
enum class ScheduleOutcome {
  // Stored as a new task: no task had the id, or its earlier task had
  // finished (SUCCESS or FAILED, its row not yet cleaned up) and this one
  // starts afresh (attempts 0, no error).
  kScheduled,
  // A waiting task took the request's due time and payload.
  kReplaced,
  // A waiting task kept its due time and payload (the mode said so).
  kKept,
  // An attempt of the task is running: nothing changed (schedule it again
  // once it has finished, or from its handler).
  kAlreadyRunning,
  // `Reschedule()` only: the task finished; nothing changed.
  kFinished,
};

// CancelOutcome
//
// What `CancelTask()` did.
enum class CancelOutcome {
  // It was waiting (PENDING or SCHEDULED): deleted, it will not run.
  kCancelled,
  // An attempt was running: the task is deleted (the attempt's outcome is
  // dropped, nothing is retried) and its handler asked to stop
  // (`DurableTask::stop_requested()`, in the owner process, if the owner
  // hears the notification).
  kStopRequested,
  // It had finished (SUCCESS or FAILED, not yet cleaned up): left alone.
  kFinished,
  // No task has this id.
  kNotFound,
};

// ScheduleOutcomeName()
//
// Returns "SCHEDULED", "REPLACED", "KEPT", "ALREADY_RUNNING", "FINISHED".
const char* ScheduleOutcomeName(ScheduleOutcome outcome);

// RetryPolicy
//
// A failed attempt (the handler returned an error or threw) is retried after
// `initial_backoff * multiplier^(attempt - 1)`, capped at `max_backoff`,
// until `max_attempts` attempts have run; the task is then FAILED.
struct RetryPolicy {
  int max_attempts = 3;  // At least 1.
  absl::Duration initial_backoff = absl::Seconds(1);
  double multiplier = 2.0;  // At least 1.
  absl::Duration max_backoff = absl::Minutes(10);
  // In [0, 1]: each backoff (after the cap) is multiplied by a random
  // factor in [1 - jitter, 1 + jitter], so that tasks that failed together
  // do not retry together. 0: none.
  double jitter = 0.0;
};

// The due times every call accepts: from the Unix epoch to (not including)
// 10000-01-01T00:00:00Z, where PostgreSQL's timestamps and most users'
// tools stop; a delay (after the database's now) shorter than
// kMaxDelay (about 7,000 years; negative: due now). Past them a call
// answers InvalidArgument naming the field. Test: DurableBoundsTest.*.
inline constexpr int64_t kDueLimitUnixMicros = int64_t{253402300800} * 1000000;
inline constexpr absl::Duration kMaxDelay = absl::Seconds(220898620800);

// The most requests one batch call (ScheduleBatch(),
// ScheduleOrReplaceBatch(), ScheduleInTransaction()) takes. A batch with an
// invalid request is refused whole, before anything is sent, naming the
// request's index. Test:
// DurableBoundsTest.ABatchIsRefusedWholeNamingTheBadIndex.
inline constexpr int64_t kMaxBatchRequests = 100000;

namespace durable_internal {

// CheckDueTime(), CheckDelay()
//
// OK for a due time in [Unix epoch, kDueLimitUnixMicros) and a delay
// shorter than kMaxDelay (any negative one included); else InvalidArgument
// naming `field` and the limit.
absl::Status CheckDueTime(absl::string_view field, absl::Time due);
absl::Status CheckDelay(absl::string_view field, absl::Duration delay);

// CheckIdBytes()
//
// OK for an id of 1 to `max_bytes` bytes; else InvalidArgument naming
// `field` and the limit.
absl::Status CheckIdBytes(absl::string_view field, absl::string_view id,
                          int64_t max_bytes);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TASK_H_
