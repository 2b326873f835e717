// Copyright 2026 The timingwheel Authors.
//
// admin_store.h
// -----------------------------------------------------------------------------
//
// What an operator (the `twctl` tool, a dashboard) needs to see and steer a
// durable store without writing SQL. `AdminStore` owns every statement of
// that job, over a libpq connection of its own; it holds no slots and runs
// no handlers. This file defines:
//
//   * `AdminStore`: connect; read the store (`Status()`, `List()`, `Show()`);
//     steer single tasks (`Cancel()`, `Retry()`, `Reschedule()`); plan and
//     run the schema migrations (migrations.h).
//   * The values it returns: `StoreStatus` (nodes, slots, counts by state,
//     next due, oldest overdue, the task kinds), `TaskPage` of
//     `TaskSummary`, `TaskDetail` (with the task's attempt history), and
//     `ActionResult` for the writes.
//   * `CheckKindFilter()`: whether a kind may be looked for.
//
// How the writes stay inside the scheduler's rules (store.h, DURABLE.md):
//   * Every write is one short transaction that locks the task's row
//     (`SELECT ... FOR UPDATE`), checks its state and changes it in one
//     statement, taking a fresh `version` from `tw_version_seq` (a version
//     never repeats for an id).
//   * `Cancel()` deletes a PENDING or SCHEDULED task, as
//     `DurableScheduler::Cancel()` does. A RUNNING task cannot be cancelled
//     (its handler runs); a finished one neither (nothing left to stop).
//   * `Reschedule()` moves a PENDING or SCHEDULED task to another due time
//     and leaves it PENDING. A SCHEDULED task sits in its owner's wheel at
//     its old due time: once it is PENDING again, the owner's fire statement
//     (which moves SCHEDULED rows only) refuses that old entry, so the task
//     can never fire at the old time, earlier or later. The owner claims the
//     row again at its new due time: at once when the new due time is within
//     the owner's horizon (the write notifies it at commit, as inserts do),
//     or at a later load. A RUNNING task is refused (its handler runs; retry
//     it once it has FAILED), as are finished ones.
//   * `Retry()` moves a FAILED task back to PENDING with its attempts reset
//     to 0 (it gets the whole retry policy again), due now or at a given
//     time, its `finished` time cleared; its last error is kept until the
//     next attempt ends, and its kind, priority and attempt history are
//     kept, with a record of the retry added to the history
//     (AttemptOutcome::kOperatorRetry: the attempt count it had, "operator"
//     and the database role, the instant;
//     AdminHistoryTest.RetryKeepsKindPriorityAndHistory). Notifies the
//     owner like `Reschedule()`. The row is updated in place (a delete would
//     take its attempt history with it); the owner's cleanup of finished
//     rows, if it waits on the row's lock, re-checks the row's state and
//     keeps the retried task
//     (AdminStoreTest.RetryRacingTheCleanupKeepsTheTask). A FAILED
//     occurrence of an Overlap::kSkipWhileRunning schedule is not retried
//     (kWrongState) while a later occurrence of it waits or runs: the two
//     would overlap. Pause the schedule (its waiting occurrences go back to
//     its catch-up policy), retry, then resume: the schedule waits for the
//     retried run (RecurringRetryTest.*).
//   * A race with a scheduler is settled by the row lock: if the fire got
//     there first, the write sees RUNNING and refuses; if the write got there
//     first, the fire matches nothing (counted as `dropped`) and the task
//     runs once, at its new time.
// Tested by tests/durable/admin_writes_test.cc
// (AdminStoreTest.RescheduleOfAScheduledTaskNeverFiresAtTheOldTime,
// AdminStoreTest.RescheduleLaterNeverFiresEarly, and the writes' other
// cases) and tests/durable/admin_store_test.cc (the reads); each member
// below names its test.
//
// Errors: a call returns a non-OK status only when it could not do its job
// (`absl::UnavailableError` when the database cannot be reached, with the
// host and database but never the password; `absl::InvalidArgumentError`
// for bad input; `absl::FailedPreconditionError` when the database has no
// timingwheel schema, or one older (run `Migrate()`) or newer than this
// library's). For a write, that the task is missing or in the wrong state
// is an answer, not an error: see `ActionResult`; `Show()` of a missing
// task is NotFound. A lost connection is re-established: a read is retried
// once at once, and so is a write whose connection was found lost before
// its transaction began; a write lost after that is not retried (the
// server rolled it back), and one whose commit's reply was lost says that
// it may or may not have committed.
// Test: AdminStoreTest.LostConnectionIsReestablished.
//
// Thread safety: every member is thread-safe; calls run one at a time on
// the store's connection (use one `AdminStore` per concurrent reader).
//
// Example:
//   auto admin = timingwheel::AdminStore::Connect("host=/run/pg dbname=app");
//   if (!admin.ok()) return Exit(2, admin.status());
//   auto status = (*admin)->Status();
//   auto result = (*admin)->Retry("order-42", timingwheel::AdminDue::Now());

#ifndef TIMINGWHEEL_DURABLE_ADMIN_STORE_H_
#define TIMINGWHEEL_DURABLE_ADMIN_STORE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "durable/recurring.h"
#include "durable/task.h"
#include "timer/internal/mutex.h"

typedef struct pg_conn PGconn;

namespace timingwheel {

// The number of task states (`TaskState` values 0..4).
inline constexpr int kTaskStateCount = 5;

// ParseTaskState()
//
// "PENDING", "pending", "SCHEDULED", ... to a `TaskState`; nullopt for
// anything else.
std::optional<TaskState> ParseTaskState(absl::string_view name);

// AdminNode: a scheduler process as its heartbeat row shows it.
struct AdminNode {
  std::string node_id;
  absl::Time heartbeat;            // Its last heartbeat (database clock).
  absl::Duration since_heartbeat;  // db_now - heartbeat.
  int64_t slots_held = 0;          // Slots it holds under a valid lease.
};

// AdminKind: one task kind (task.h, `ScheduleRequest::kind`): a kind some
// scheduler registered (`tw_kind`), or one that unregistered tasks carry,
// or both. Test: AdminHistoryTest.StatusListsKindsAndTheirTasks.
// The window of AdminKind's throughput counts.
inline constexpr absl::Duration kKindRecentWindow = absl::Minutes(5);

struct AdminKind {
  std::string kind;         // Empty: the default kind (never registered).
  bool registered = false;  // A row of tw_kind names it.
  std::string node_id;      // The node that registered it last (if so).
  absl::Time registered_at = absl::InfinitePast();  // When (database clock).
  // Its tasks by state, indexed by `static_cast<int>(TaskState)`.
  std::array<int64_t, kTaskStateCount> counts{};
  // Its PENDING and SCHEDULED tasks whose due time has passed (the same
  // snapshot as `StoreStatus::overdue`, which they add up to). Test:
  // AdminHistoryTest.StatusCountsOverdueTasksByKind.
  int64_t overdue = 0;
  // Throughput: its tasks that finished SUCCESS / FAILED within the last
  // kKindRecentWindow (5 minutes, the database's clock), counted from the
  // finished rows the schedulers keep (`DurableOptions::retain_finished`,
  // 24 h by default; a retention shorter than the window undercounts).
  // Test: AdminHistoryTest.StatusCountsOverdueTasksByKind.
  int64_t succeeded_recently = 0;
  int64_t failed_recently = 0;
  // Its PENDING and SCHEDULED tasks whose last attempt was snoozed because
  // the scheduler that fired it had no handler for the kind (the error
  // kNoHandlerErrorPrefix begins): no live scheduler may run it, whatever
  // tw_kind says (a registration stays for forget_kinds_after after its
  // last scheduler left). Test:
  // TaskKindsTest.AKindWithoutAHandlerHereIsSnoozedNotLost.
  int64_t put_off_no_handler = 0;
  // PENDING, SCHEDULED and RUNNING tasks (state < SUCCESS).
  int64_t unfinished() const { return counts[0] + counts[1] + counts[2]; }
};

// AdminSlot: one row of the lease table.
struct AdminSlot {
  int slot = 0;
  std::string owner;         // Empty: never taken, or released.
  int64_t epoch = 0;         // Increments at every takeover.
  absl::Time lease_until;    // Database clock.
  bool lease_valid = false;  // owner set and lease_until > db_now.
  absl::Duration horizon;    // The owner's horizon, as it recorded it.
};

// StoreStatus: the whole store at a glance (one consistent snapshot: one
// REPEATABLE READ transaction).
struct StoreStatus {
  absl::Time db_now;  // The database's clock (the time authority).
  int64_t schema_version = 0;
  int64_t slot_count = 0;
  std::vector<AdminNode> nodes;  // By node id.
  std::vector<AdminSlot> slots;  // By slot, all of them.
  int64_t slots_unowned = 0;     // Slots without a valid lease.
  // Tasks by state, indexed by `static_cast<int>(TaskState)`.
  std::array<int64_t, kTaskStateCount> counts{};
  // The earliest due time of a PENDING or SCHEDULED task, if any.
  std::optional<absl::Time> next_due;
  std::string next_due_id;
  // PENDING or SCHEDULED tasks whose due time has passed, and the oldest.
  int64_t overdue = 0;
  std::optional<absl::Time> oldest_overdue_due;
  std::string oldest_overdue_id;
  // Every kind registered in tw_kind or carried by a task, by kind (bytes
  // order), with its tasks by state (the same scan as `counts`). The
  // default kind "" is listed when tasks carry it. A kind with unfinished
  // tasks and `registered == false` has no handler in any scheduler.
  // Test: AdminHistoryTest.StatusListsKindsAndTheirTasks.
  std::vector<AdminKind> kinds;
  // The task table's storage (heap, indexes and TOAST, bytes) and its row
  // updates as the server's statistics count them (since their last
  // reset; a server process reports its counts within about a second). A
  // HOT update rewrites its row in place, adding no index entries. Test:
  // AdminStoreTest.StatusReportsTheTaskTablesStorageAndUpdates.
  int64_t task_table_bytes = 0;
  int64_t task_updates = 0;
  int64_t task_hot_updates = 0;
};

// TaskFilter: which tasks `List()` returns, ordered by id (bytes, memcmp
// order), at most `limit` of them, starting after `after_id` (paging: pass
// the previous page's `next_after`).
struct TaskFilter {
  std::optional<TaskState> state;
  std::optional<absl::Time> due_after;   // due >= due_after
  std::optional<absl::Time> due_before;  // due <  due_before
  std::string id_prefix;                 // Bytes; empty: any id.
  // Only tasks of this kind (exact match; "" is the default kind). At most
  // kMaxKindBytes bytes of UTF-8 without control characters
  // (`CheckKindFilter()`), else `List()` is InvalidArgument.
  // Test: AdminHistoryTest.ListByKindIsExactAndPages.
  std::optional<std::string> kind;
  std::optional<std::string> after_id;  // Ids strictly greater (bytes).
  int limit = 100;                      // In [1, kMaxListLimit].
  // Recurring schedules' occurrences (ids with the prefix reserved for
  // them): listed with the rest (kInclude), left out (kExclude: what
  // `twctl list` shows unless asked, so that a schedule writing a horizon
  // of occurrences ahead does not fill the page), or alone (kOnly).
  // Test: AdminHistoryTest.ListLeavesOutOccurrencesWhenAsked.
  enum class Occurrences { kInclude, kExclude, kOnly };
  Occurrences occurrences = Occurrences::kInclude;
};

inline constexpr int kMaxListLimit = 10000;

// TaskSummary: one row of a `List()` page.
struct TaskSummary {
  std::string id;  // Bytes.
  TaskState state = TaskState::kPending;
  absl::Time due;
  int attempt = 0;
  int slot = 0;
  int64_t payload_bytes = 0;
  // The task's kind ("" is the default kind) and priority (higher starts
  // first among tasks due together), as stored.
  // Test: AdminHistoryTest.ListByKindIsExactAndPages.
  std::string kind;
  int priority = 0;
};

struct TaskPage {
  std::vector<TaskSummary> tasks;
  // More tasks match after this page; pass `next_after` as the next
  // filter's `after_id`.
  bool more = false;
  std::string next_after;
};

// TaskDetail: everything stored about one task, and the lease of its slot.
struct TaskDetail {
  std::string id;  // Bytes.
  TaskState state = TaskState::kPending;
  int attempt = 0;  // Attempts started so far.
  absl::Time due;
  int slot = 0;
  int64_t version = 0;
  int64_t epoch = 0;  // The slot epoch it was last claimed under.
  int64_t payload_bytes = 0;
  std::string payload_head;  // The first kShowPayloadBytes bytes.
  std::optional<std::string> last_error;
  std::optional<absl::Time> finished;
  // Test: AdminHistoryTest.ShowListsTheNewestAttemptsOldestFirst.
  std::string kind;  // "" is the default kind.
  int priority = 0;  // In [kMinPriority, kMaxPriority].
  // The task's attempt history (tw_attempt, one record per attempt whose
  // outcome was written; empty until schedulers write it; of the snoozes
  // of one attempt number only the latest is kept, so a task that keeps
  // snoozing does not grow it: test
  // HandlerOutcomeTest.ATaskThatKeepsSnoozingKeepsOneSnoozeRecord): the newest
  // kMaxShownAttempts of them, oldest first (by finished time, then
  // attempt). `attempts_total` counts them all, shown or not.
  // Tests: AdminHistoryTest.ShowListsTheNewestAttemptsOldestFirst,
  // AdminHistoryTest.DeletingATaskDeletesItsAttempts.
  std::vector<AttemptRecord> attempts;
  int64_t attempts_total = 0;
  // The slot's lease now.
  std::string slot_owner;  // Empty: none.
  int64_t slot_epoch = 0;
  bool slot_lease_valid = false;
  absl::Time slot_lease_until;
  absl::Time db_now;
};

inline constexpr int64_t kShowPayloadBytes = 256;
inline constexpr int kMaxShownAttempts = 100;

// CheckKindFilter()
//
// OK when `kind` can name a kind (`TaskFilter::kind`): at most
// kMaxKindBytes bytes of valid UTF-8 without control characters (U+0000 to
// U+001F, U+007F); InvalidArgument saying which rule it breaks otherwise.
// Test: AdminHistoryTest.ListByKindRefusesBadKinds.
absl::Status CheckKindFilter(absl::string_view kind);

// AdminDue: when a retried or rescheduled task becomes due: `at` (absolute,
// database clock) or, when `at` is `absl::InfinitePast()`, `delay` after
// the database's now.
struct AdminDue {
  absl::Time at = absl::InfinitePast();
  absl::Duration delay = absl::ZeroDuration();

  static AdminDue Now() { return AdminDue(); }
  static AdminDue At(absl::Time t) { return AdminDue{t, absl::ZeroDuration()}; }
  static AdminDue In(absl::Duration d) {
    return AdminDue{absl::InfinitePast(), d};
  }
};

// ActionOutcome: what a write did.
enum class ActionOutcome {
  kDone = 0,        // Applied.
  kNotFound = 1,    // No task with this id.
  kWrongState = 2,  // The task's state does not allow it (see `before`).
};

// ActionResult: the answer of `Cancel()`, `Retry()` and `Reschedule()`.
struct ActionResult {
  ActionOutcome outcome = ActionOutcome::kDone;
  TaskState before = TaskState::kPending;  // When found.
  TaskState after = TaskState::kPending;   // When done (Cancel: row deleted).
  absl::Time due;         // When done (Retry/Reschedule): the new due time.
  bool notified = false;  // The slot's owner was woken at commit.
  std::string message;    // One line for people ("cancelled (was PENDING)").
};

// SchemaPlan: what `Migrate()` would run (see migrations.h).
struct SchemaPlan {
  int64_t from_version = 0;  // 0: no schema yet.
  int64_t to_version = 0;
  struct Step {
    int64_t from = 0;
    int64_t to = 0;
    std::string description;
    std::string locks;  // The table locks it takes, and what waits on them.
    // The text as it would run, values written in: psql runs it as printed.
    std::string sql;
  };
  std::vector<Step> steps;  // Empty: up to date.
};

// AdminStore
//
// One connection to a durable store, for operators. Create with
// `Connect()`. Thread-safe (calls are serialized on the connection).
class AdminStore {
 public:
  // AdminStore::Connect()
  //
  // Connects to `conninfo` (a libpq connection string or URI) with a
  // statement and lock timeout of `statement_timeout`, as application
  // "timingwheel-admin" (pg_stat_activity). Does not create or
  // check the schema. InvalidArgument for an unparsable connection string,
  // Unavailable ("cannot connect to PostgreSQL (host=... dbname=...): ...")
  // when the database cannot be reached; no message contains the password.
  // Test: AdminStoreConnectTest.ConnectErrorNamesHostNeverThePassword.
  // `statement_timeout` in [0, 24h] (zero: none), else InvalidArgument.
  //
  // Every call naming a task (`Show()`, `Cancel()`, `Retry()`,
  // `Discard()`, `Reschedule()`) answers InvalidArgument, before anything
  // is sent, for an empty id or one over kMaxIdBytes, and (`Retry()`,
  // `RetryMatching()`, `Reschedule()`) for an `AdminDue` outside the due
  // time limits of task.h (`at` in [1970, year 10000), `delay` shorter
  // than kMaxDelay). Test: DurableBoundsTest.AdminCallsAreBounded.
  static absl::StatusOr<std::unique_ptr<AdminStore>> Connect(
      const std::string& conninfo,
      absl::Duration statement_timeout = absl::Seconds(10));

  // AdminStore::SchemaVersion()
  //
  // The schema version this library creates and understands (`twctl
  // version`; `Migrate()` brings a store to it).
  static int64_t SchemaVersion();

  ~AdminStore();
  AdminStore(const AdminStore&) = delete;
  AdminStore& operator=(const AdminStore&) = delete;

  // AdminStore::Target()
  //
  // Where this store points, without the password ("host=... port=...
  // dbname=... user=..."), for people. Thread-safe.
  const std::string& Target() const { return target_; }

  // AdminStore::DbNow()
  //
  // The database's clock (to resolve relative times like "+5m").
  absl::StatusOr<absl::Time> DbNow();

  // AdminStore::Status()
  //
  // Nodes, slots, counts by state, next due, oldest overdue and the kinds,
  // in one snapshot. Scans the timer table once (about 0.1 s per 10^6
  // rows). Tests: AdminStoreTest.StatusCountsEveryState,
  // AdminHistoryTest.StatusListsKindsAndTheirTasks.
  absl::StatusOr<StoreStatus> Status();

  // AdminStore::Schedules()
  //
  // The recurring schedules (recurring.h), by name, with their next and
  // last runs. Test: TwctlTest.SchedulesListsTheRecurringSchedules.
  absl::StatusOr<std::vector<ScheduleInfo>> Schedules();

  // AdminStore::PauseSchedule(), ResumeSchedule(), DeleteSchedule()
  //
  // As `DurableScheduler`'s calls of the same names (recurring.h), from an
  // operator's connection. Pause marks the schedule paused and deletes its
  // waiting occurrences (a running one finishes); resume clears the flag
  // and writes the occurrences due now, as its catch-up policy says (their
  // slots' owners are woken at commit); delete removes the schedule and its
  // waiting occurrences, false when there was none. Errors name the
  // schedule (C-escaped). NotFound for an
  // unknown name (pause, resume); FailedPrecondition for a resume whose
  // schedule's kind is no longer registered (it stays paused);
  // InvalidArgument for a name
  // a stored schedule cannot have (empty, or over `kMaxScheduleNameBytes`). A
  // connection lost during the write says the change may or may not have
  // committed. Test: TwctlTest.PauseResumeAndDeleteASchedule.
  absl::Status PauseSchedule(absl::string_view name);
  absl::Status ResumeSchedule(absl::string_view name);
  absl::StatusOr<bool> DeleteSchedule(absl::string_view name);

  // AdminStore::List()
  //
  // The tasks matching `filter`, by id. InvalidArgument for a limit out of
  // range or a bad kind (`CheckKindFilter()`). Paging is by cursor (ids
  // after `after_id`), so that tasks inserted or deleted between pages
  // neither repeat nor shift the next page. Tests:
  // AdminStoreTest.ListFiltersAndPages,
  // AdminStoreTest.ListByPrefixIsByteExact,
  // AdminHistoryTest.ListByKindIsExactAndPages,
  // AdminHistoryTest.ListCursorHoldsAcrossInserts.
  absl::StatusOr<TaskPage> List(const TaskFilter& filter);

  // AdminStore::Show()
  //
  // One task in detail, with its attempt history, in one snapshot; NotFound
  // when no task has this id. Tests: AdminStoreTest.ShowReportsEverything,
  // AdminHistoryTest.ShowListsTheNewestAttemptsOldestFirst.
  absl::StatusOr<TaskDetail> Show(const std::string& id);

  // AdminStore::Cancel()
  //
  // Deletes a PENDING or SCHEDULED task. kWrongState for RUNNING, SUCCESS,
  // FAILED. Test: AdminStoreTest.CancelOnlyUnstartedTasks.
  absl::StatusOr<ActionResult> Cancel(const std::string& id);

  // AdminStore::Retry()
  //
  // A FAILED task back to PENDING, attempts reset, due at `due`.
  // kWrongState for any other state. Test:
  // AdminStoreTest.RetryRunsAFailedTaskAgain.
  absl::StatusOr<ActionResult> Retry(const std::string& id,
                                     AdminDue due = AdminDue::Now());

  // AdminStore::Discard()
  //
  // Deletes a FAILED task (a dead letter dealt with); kWrongState for any
  // other state. Test: AdminStoreTest.DiscardAndRetryMatchingDeadLetters.
  absl::StatusOr<ActionResult> Discard(const std::string& id);

  // AdminStore::RetryMatching()
  //
  // `Retry()` of every FAILED task that `filter` matches (its `state` is
  // ignored: FAILED), page by page (`filter.limit` at a time); returns how
  // many it retried. Each retry is its own transaction: an error stops it
  // with the ones before retried. Test:
  // AdminStoreTest.DiscardAndRetryMatchingDeadLetters.
  absl::StatusOr<int64_t> RetryMatching(TaskFilter filter,
                                        AdminDue due = AdminDue::Now());

  // AdminStore::Reschedule()
  //
  // A PENDING or SCHEDULED task to another due time (PENDING afterwards;
  // see the header comment for how an owner's wheel entry is fenced).
  // kWrongState for RUNNING and finished tasks. Tests:
  // AdminStoreTest.RescheduleOfAScheduledTaskNeverFiresAtTheOldTime,
  // AdminStoreTest.RescheduleLaterNeverFiresEarly,
  // AdminStoreTest.RescheduleRefusesRunningAndFinished.
  absl::StatusOr<ActionResult> Reschedule(const std::string& id, AdminDue due);

  // AdminStore::PlanMigration()
  //
  // What `Migrate()` would run now, changing nothing. `slot_count` is used
  // only when the schema is created. FailedPrecondition, naming both
  // versions, for a schema newer than this library's.
  // Test: MigrationsTest.DryRunPrintsSqlAndChangesNothing.
  absl::StatusOr<SchemaPlan> PlanMigration(int slot_count = 1024);

  // AdminStore::Migrate()
  //
  // Applies the plan (each step in one transaction, serialized between
  // processes by an advisory lock); returns the steps applied.
  absl::StatusOr<SchemaPlan> Migrate(int slot_count = 1024);

 private:
  class Impl;
  AdminStore(std::unique_ptr<Impl> impl, std::string target);

  const std::string target_;
  internal::Mutex mu_;
  std::unique_ptr<Impl> impl_ ABSL_GUARDED_BY(mu_);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ADMIN_STORE_H_
