// Copyright 2026 The timingwheel Authors.
//
// durable_scheduler.h
// -----------------------------------------------------------------------------
//
// Timers that survive a crash and spread over processes, on PostgreSQL. A
// task (id, due time, payload bytes) is a row; its id hashes to one of a
// fixed number of slots (1024 by default); each live `DurableScheduler`
// holds a fair share of the slots under leases with epochs, keeps the tasks
// of its slots that are due within the horizon (1 h) in an in-process
// `Timer` (only id and due time in memory; the payload stays in the table),
// and runs each due task's handler through a compare-and-set state machine:
//
//   PENDING --load--> SCHEDULED --fire--> RUNNING --> SUCCESS
//                                            |------> retry (SCHEDULED or
//                                            |        PENDING, backoff)
//                                            '------> FAILED (last attempt)
//
// A worker (a process that runs tasks) uses `DurableScheduler`; a process
// that only enqueues uses `DurableClient` (durable_client.h), which holds no
// slots and runs no handlers.
//
// This file defines (its options, `DurableOptions`, and its counters,
// `DurableMetrics`, are in durable_options.h):
//
//   * `DurableScheduler::RenderPrometheus()`: the counters and the latency
//     histograms as Prometheus text (durable/README.md, "Metrics").
//   * `DurableScheduler`: schedule, replace, cancel, look up, shut down;
//     recurring schedules (create, update, pause, resume, delete, list;
//     recurring.h).
//
// and exports `ScheduleInTransaction()` (schedule_in_transaction.h): add
// tasks on the caller's own libpq connection, inside its transaction.
//
// Guarantees (at least once, fencing, never early against the database's
// clock, bounded shutdown), each with the tests that fail when it breaks,
// and what the sanitizers see: durable_guarantees.h.
//
// Example:
//   timingwheel::DurableOptions options;
//   options.conninfo = "host=/var/run/postgresql dbname=app";
//   options.handler = [](const timingwheel::DurableTask& task) {
//     return ExpireOrder(task.id, task.payload);  // Idempotent per attempt.
//   };
//   auto scheduler = timingwheel::DurableScheduler::Create(options).value();
//   scheduler->Schedule("order-42", absl::Hours(24), "cart=7").IgnoreError();

#ifndef TIMINGWHEEL_DURABLE_DURABLE_SCHEDULER_H_
#define TIMINGWHEEL_DURABLE_DURABLE_SCHEDULER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "durable/admin_store.h"  // IWYU pragma: export
#include "durable/client/client_core.h"
#include "durable/durable_guarantees.h"  // IWYU pragma: export
#include "durable/durable_options.h"     // IWYU pragma: export
#include "durable/engine/attempt_tracker.h"
#include "durable/engine/fire_queue.h"
#include "durable/engine/lease_renewer.h"
#include "durable/engine/mirror_task.h"
#include "durable/engine/wheel_mirror.h"
#include "durable/handler_outcome.h"  // IWYU pragma: export
#include "durable/recurring.h"
#include "durable/schedule_in_transaction.h"  // IWYU pragma: export
#include "durable/sql/store.h"
#include "durable/task.h"
#include "durable/task_kind.h"  // IWYU pragma: export
#include "timer/executor.h"
#include "timer/internal/mutex.h"
#include "timer/timer.h"

namespace timingwheel {
namespace durable_internal {
struct SchedulerHistograms;
}  // namespace durable_internal
namespace durable_testing {
struct SchedulerStoreAccess;
}  // namespace durable_testing

// DurableScheduler
//
// One scheduler process's view of a store. Create with `Create()`.
//
// Thread safety: every public member is thread-safe and may be called from
// handlers.
class DurableScheduler {
 private:
  struct AttemptLink;

 public:
  // DurableScheduler::Create()
  //
  // Connects, creates or checks the schema, and starts taking its share of
  // the slots. Returns `absl::InvalidArgumentError` for invalid options
  // (and connection strings: StoreConnectTest.Malformed*), Unavailable when
  // the database cannot be reached, FailedPrecondition for a schema of a
  // newer version or another slot count, PermissionDenied (naming the user,
  // the database and the fix) when the user may not create the schema.
  //
  // The node id: each live scheduler of a store holds its own
  // `options.node_id` (a session-level advisory lock on the database).
  // When another process holds the same id, `Create()`:
  //   1. waits for it up to the session's lock timeout (`statement_timeout`,
  //      a quarter of the lease TTL by default): a killed predecessor's id
  //      frees as soon as the server notices its session ended;
  //   2. then judges the holder on the database's clock: when no heartbeat
  //      of the id is younger than `options.lease_ttl`, no lease of the
  //      id is still valid and the holder's session is older than the TTL
  //      (not one still starting; a stopped or hung process: every lease
  //      it held has expired, its slots are free to take under higher
  //      epochs), it
  //      ends the holder's sessions (`pg_terminate_backend`; every
  //      connection of that process, found by its `application_name`,
  //      "timingwheel scheduler <tag>") and takes the id at once; only a
  //      holder of the id in this schema is judged and ended (the same id
  //      in another schema of the database is refused, never ended);
  //   3. otherwise (a live duplicate, or a holder whose heartbeat is still
  //      fresh) waits once more for the lock timeout and fails with
  //      FailedPrecondition saying the id is held by another live
  //      scheduler. It never starts beside a live process.
  // So a refusal comes after about half a TTL by default, a takeover of a
  // stale holder after about a quarter. PermissionDenied (naming the fix:
  // the same database user, or `GRANT pg_signal_backend`) when this user
  // may not end the stale holder's sessions. The holder, if it ever wakes
  // up, finds its connections gone and its id taken when it reconnects: it
  // runs nothing more (its slots' epochs moved on), does not take the id
  // back, and reports `DurableMetrics::node_id_lost` = 1; shut it down.
  // Tests: FaultNodeIdTest.*, StoreNodeTest.*,
  // PermissionErrorsTest.StaleHolderOfAnotherUserNamesTheFix,
  // DurableShutdownTest.SecondLiveScheduler*.
  static absl::StatusOr<std::unique_ptr<DurableScheduler>> Create(
      DurableOptions options);

  DurableScheduler(const DurableScheduler&) = delete;
  DurableScheduler& operator=(const DurableScheduler&) = delete;

  ~DurableScheduler();  // Shuts down (see `Shutdown()`).

  // DurableScheduler::Schedule()
  //
  // Stores a task due `delay` after the database's now (negative: now).
  // OK when stored (durably committed), or when an identical task (same id,
  // payload, kind and priority; for ScheduleAt the due time too) exists, in any
  // state (waiting, running, or finished and not yet cleaned up: it is not run
  // again): retries are idempotent, and an existing task is never changed (to
  // change one, see `ScheduleOrReplace()` and `Reschedule()`; test:
  // ReplaceTest.ScheduleOfAnExistingIdIsAnIdempotentInsertOnly). Errors:
  // InvalidArgument (an id or payload empty or over `max_id_bytes` or
  // `max_payload_bytes`, a delay not shorter than kMaxDelay: task.h and
  // durable/README.md, "Limits"), AlreadyExists (the id exists and is not
  // identical),
  // Unavailable (database unreachable even after reconnecting once),
  // FailedPrecondition after `Shutdown()`.
  absl::Status Schedule(absl::string_view id, absl::Duration delay,
                        absl::string_view payload);

  // DurableScheduler::ScheduleAt()
  //
  // As `Schedule()`, due at `due` on the database's clock (an identical
  // retry has the same due time too). InvalidArgument for a time before
  // 1970 or from year 10000 on.
  absl::Status ScheduleAt(absl::string_view id, absl::Time due,
                          absl::string_view payload);

  // DurableScheduler::ScheduleBatch()
  //
  // Stores all of `requests` in one transaction (one statement for the
  // rows), or none of them: the first invalid request (InvalidArgument
  // naming its index, before anything is sent) or conflicting id fails the
  // whole batch. At most kMaxBatchRequests requests.
  absl::Status ScheduleBatch(absl::Span<const ScheduleRequest> requests);

  // DurableScheduler::Schedule(request)
  //
  // One request with all its fields (kind, priority, due or delay): as
  // `ScheduleBatch()` of one.
  absl::Status Schedule(const ScheduleRequest& request) {
    return ScheduleBatch({&request, 1});
  }

  // DurableScheduler::ScheduleOrReplace()
  //
  // Schedules `request` or, in one atomic statement, replaces the waiting task
  // of the same id by `mode` (see `ReplaceMode`): `kReplace` takes the
  // request's due time, payload, kind and priority, `kKeepEarlier` keeps
  // whichever is due earlier, `kKeepLater` whichever is due later (debounce:
  // "run 5 s after the last event"); the task kept keeps its own payload, kind
  // and priority (test:
  // ReplaceContractTest.AReplacementTakesKindAndPriorityToo). A replaced task
  // starts afresh: attempt count 0 and no last error, also when it was waiting
  // for a retry, so a corrected payload gets the whole retry budget (test:
  // ReplaceContractTest.*, on both stores). A task already in its owner's wheel
  // leaves it at once (its fire is refused by the database) and is claimed
  // again at its new time (this process loads it at once; another owner is
  // woken), so a replacement never runs at the old time, early or twice. A
  // running task is left alone (`kAlreadyRunning`); a finished one (SUCCESS or
  // FAILED, not yet cleaned up) is replaced by a new task (`kScheduled`,
  // attempts 0). Returns what happened (`ScheduleOutcome`), or the errors of
  // `Schedule()` (never AlreadyExists). Two replacements of one id at once
  // serialize on its row: the later one's rule applies to the earlier's result,
  // also when both create the id (the later is told `kReplaced` or `kKept`;
  // test: ReplaceRaceTest.*). After a lost connection it is retried once: a
  // replacement that committed before the reply was lost then answers as if it
  // had already been done (`kReplaced` or `kKept`). Tests: ReplaceTest.*.
  absl::StatusOr<ScheduleOutcome> ScheduleOrReplace(
      const ScheduleRequest& request, ReplaceMode mode = ReplaceMode::kReplace);

  // DurableScheduler::ScheduleOrReplaceBatch()
  //
  // As `ScheduleOrReplace()` for every request, in one transaction; the
  // outcomes in the requests' order. InvalidArgument for an id given twice,
  // and, as `ScheduleBatch()`, for the whole batch when one request is
  // invalid (naming its index; nothing is written).
  absl::StatusOr<std::vector<ScheduleOutcome>> ScheduleOrReplaceBatch(
      absl::Span<const ScheduleRequest> requests,
      ReplaceMode mode = ReplaceMode::kReplace);

  // DurableScheduler::Reschedule()
  //
  // Moves a waiting (PENDING or SCHEDULED) task to `due` on the database's
  // clock, with `payload` if given (else its own), atomically, moving it
  // out of its owner's wheel as `ScheduleOrReplace()` does: `kReplaced`.
  // Kind and priority are kept. Without `payload` the attempt count and
  // last error are kept (a retry moved in time); with one the task starts
  // afresh, as a replacement does.
  // `kAlreadyRunning` or `kFinished` (nothing changed) for a running or
  // finished task, `absl::NotFoundError` for an unknown id. Never creates
  // a task. Tests: ReplaceTest.*.
  absl::StatusOr<ScheduleOutcome> Reschedule(
      absl::string_view id, absl::Time due,
      std::optional<std::string> payload = std::nullopt);

  // DurableScheduler::RescheduleAfter()
  //
  // As `Reschedule()`, due `delay` after the database's now.
  absl::StatusOr<ScheduleOutcome> RescheduleAfter(
      absl::string_view id, absl::Duration delay,
      std::optional<std::string> payload = std::nullopt);

  // DurableScheduler::Cancel()
  //
  // Deletes the task if it is PENDING or SCHEDULED. Returns true only if it
  // will not run (again); false if it is running, finished or unknown.
  // After a lost connection the call is tried once more; when that try
  // finds no row (the first may have deleted it before its reply was lost)
  // it answers true: nothing stored will run (an id never stored answers
  // true in that case only).
  // Unavailable when the database cannot be reached; InvalidArgument for an
  // empty id or one longer than `max_id_bytes` (also for `CancelTask()`
  // and `Get()`; test: CancelTaskTest.AnIdPastTheLimitIsRefusedBeforeTheStore).
  absl::StatusOr<bool> Cancel(absl::string_view id);

  // DurableScheduler::CancelTask()
  //
  // As `Cancel()`, and also for a running task: it is deleted (its
  // attempt's outcome is dropped, nothing is retried) and its handler asked
  // to stop (`DurableTask::stop_requested()` turns true in the owner
  // process, when the owner hears the database's notification; a handler
  // never hears of it otherwise, but the task is gone either way; heard
  // after the fire and before the handler started, it keeps the handler
  // from starting: CancelTaskTest.AStopHeardBeforeTheHandlerStarts...).
  // Returns
  // what it did (`CancelOutcome`): kCancelled, kStopRequested, kFinished,
  // kNotFound. Test: CancelTaskTest.*.
  absl::StatusOr<CancelOutcome> CancelTask(absl::string_view id);

  // DurableScheduler::Get()
  //
  // The task's state, attempts so far and due time. NotFound for an unknown
  // (or cancelled, or finished and cleaned up) id.
  absl::StatusOr<TaskInfo> Get(absl::string_view id);

  // DurableScheduler::Admin()
  //
  // The operators' API (`AdminStore`, admin_store.h) over a second
  // connection, as `DurableClient::Admin()`. Thread-safe; the pointer lives
  // as long as this object. Test:
  // AdminStoreTest.TheClientAndTheSchedulerHandTheAdminApi.
  absl::StatusOr<AdminStore*> Admin();

  // ---------------------------------------------------------------------
  // Recurring schedules (recurring.h; scheduler_schedules.cc). A named,
  // durable schedule whose every occurrence becomes one task with the id
  // `OccurrenceId(name, instant)` and the schedule's payload, run by the
  // handler (`DurableTask::schedule` and `DurableTask::occurrence` say
  // which); its slot is the name's, so its owner runs its occurrences.
  // Guarantees, each with its tests: recurring.h.
  // Errors: InvalidArgument naming the field
  // (RecurringLogicTest.InvalidInput*), Unavailable, FailedPrecondition after
  // `Shutdown()`. Thread-safe.

  // DurableScheduler::CreateSchedule()
  //
  // Stores `schedule` and writes its first occurrence. OK when an identical
  // schedule exists (a retry); AlreadyExists for another definition.
  absl::Status CreateSchedule(const RecurringSchedule& schedule);

  // DurableScheduler::UpdateSchedule()
  //
  // Replaces the definition of `schedule.name` (paused stays paused); the
  // waiting occurrence task is deleted and the next occurrence recomputed
  // from now, in one transaction; a running occurrence finishes. NotFound.
  absl::Status UpdateSchedule(const RecurringSchedule& schedule);

  // DurableScheduler::PauseSchedule()
  //
  // No new occurrences; the waiting one is cancelled; a running one
  // finishes. NotFound.
  absl::Status PauseSchedule(absl::string_view name);

  // DurableScheduler::ResumeSchedule()
  //
  // Un-pauses; `policy.catch_up` decides which occurrences missed during
  // the pause run. NotFound for an unknown name; FailedPrecondition, the
  // schedule still paused, when its kind is no longer registered.
  absl::Status ResumeSchedule(absl::string_view name);

  // DurableScheduler::DeleteSchedule()
  //
  // Deletes the schedule and its waiting occurrence task (a running one
  // finishes). Returns whether it existed.
  absl::StatusOr<bool> DeleteSchedule(absl::string_view name);

  // DurableScheduler::ListSchedules(), GetSchedule()
  //
  // The stored schedules (by name), or one (NotFound), with their next and
  // last runs.
  absl::StatusOr<std::vector<ScheduleInfo>> ListSchedules();
  absl::StatusOr<ScheduleInfo> GetSchedule(absl::string_view name);

  // DurableScheduler::Health()
  //
  // OK while this process does its work; otherwise the reason restarting
  // it is the fix, for a liveness probe (`MetricsHttpOptions::health`
  // serves it at /healthz):
  //   FailedPrecondition  a replacement took this node id over
  //                       (`DurableMetrics::node_id_lost`): it runs nothing
  //                       more.
  //   DeadlineExceeded    the maintenance thread has made no progress for
  //                       2 TTLs and 4 statement timeouts (wedged): its
  //                       renewals stopped and its slots go to others.
  //   Cancelled           `Shutdown()` was called.
  // A database outage is not among them: the scheduler reconnects by
  // itself (`DurableMetrics::reconnects`, `db_errors`), and restarting
  // every process would not bring the database back. Thread-safe.
  // Tests: SchedulerHealthTest.*, FaultNodeIdTest.*.
  absl::Status Health() const;

  // DurableScheduler::Metrics()
  DurableMetrics Metrics() const;

  // DurableScheduler::RenderPrometheus()
  //
  // `Metrics()` and the histograms of fire lateness, handler duration and
  // statement duration, in Prometheus's text format (0.0.4), every series
  // named `timingwheel_durable_*` and labelled with `node="<node_id>"`
  // (durable/README.md lists them). Serve it from your own HTTP server, or
  // with `MetricsHttpServer` (metrics_http.h). Thread-safe.
  // SchedulerMetricsTest.*.
  std::string RenderPrometheus() const;

  // DurableScheduler::Shutdown()
  //
  // Stops firing (fired attempts whose handlers have not started are put
  // back to PENDING, uncounted), releases every slot without a running
  // handler at once (other schedulers take them at their next renewal,
  // without waiting for the TTL), waits for the handlers running now and
  // records their outcomes, releasing each slot as its last handler's
  // outcome is written, for at most `DurableOptions::shutdown_grace` (half
  // a lease TTL unless set; the leases of the slots still busy are renewed
  // meanwhile), and removes this node. Returns within the grace plus half
  // a lease TTL whatever the handlers and the database do (every statement
  // is bounded by `statement_timeout`). A
  // handler still running then (or the one that called `Shutdown()`)
  // keeps its slot until it returns: its outcome is written and its slot
  // released by its own thread (`late_outcomes`) as long as the scheduler
  // object exists; one that returns after the destructor has run is
  // forgotten (its row stays RUNNING and the slot's next owner runs the
  // attempt again after the lease TTL: the documented at-least-once
  // window). Schedule/Cancel/Get then fail with FailedPrecondition. No
  // handler is asked to stop (only `CancelTask()` does that); the node id
  // stays taken until this object is destroyed. Idempotent. Tests:
  // DurableShutdownTest.*.
  void Shutdown();

  // The node id this scheduler holds leases under.
  const std::string& node_id() const { return options_.node_id; }

 private:
  // Recurring schedules (scheduler_schedules.cc). The maintenance
  // thread's duty: advances the due schedules of the owned slots, and sets
  // schedule_duty_at_ to when the next of them is due.
  void RunScheduleDuty();
  // Records `batch` (as `Store::Complete()`) on `store` and, in the same
  // transaction, writes the next occurrences of the schedules whose
  // occurrences it ends.
  absl::StatusOr<durable_internal::CompleteResult> CompleteAndAdvance(
      durable_internal::StoreApi* store,
      absl::Span<const durable_internal::Completion> batch);
  void AdvanceScheduleOnMaintenance(const std::string& name);
  // AfterInsert() as a ClientCore callback, for the schedule calls.
  durable_internal::ClientCore::AfterInsert AfterThis();

  friend struct durable_testing::SchedulerStoreAccess;

  // As the public `Create()`, over the stores `stores` opens (client calls,
  // maintenance thread) instead of PostgreSQL connections (null: those).
  static absl::StatusOr<std::unique_ptr<DurableScheduler>> Create(
      DurableOptions options, durable_internal::StoreFactory stores);

  explicit DurableScheduler(DurableOptions options);

  absl::Status Start();
  absl::Status Insert(absl::Span<const ScheduleRequest> requests);
  // This scheduler as the writer of attempt records (tw_attempt).
  durable_internal::AttemptLog AttemptLogOf() const;
  // This scheduler as the inserter of its client calls' rows.
  durable_internal::Inserter InserterOf() const;
  // ScheduleOrReplace*/Reschedule* (scheduler_replace.cc).
  absl::StatusOr<std::vector<ScheduleOutcome>> Replace(
      absl::Span<const ScheduleRequest> requests,
      durable_internal::ReplaceRule rule, bool has_payload);
  // After an insert committed: asks for a load when a row is due within the
  // horizon in a slot this process still holds (under the epoch the insert
  // read, with the local lease still valid after the commit); returns the
  // rows whose owners must be notified instead (scheduler_client.cc).
  std::vector<durable_internal::WheelEntry> AfterInsert(
      const durable_internal::InsertResult& result);
  // Adds `entry` to the wheel; false when a full wheel gives it back.
  bool AddToWheel(const durable_internal::WheelEntry& entry, int64_t db_now_us,
                  int64_t local_after_nanos);
  // A task of the wheel is due (on the timer's executor, through router_).
  static void FireFromWheel(void* self, durable_internal::MirrorTask* task);
  void OnWheelFire(durable_internal::MirrorTask* task);
  void MaintenanceLoop();
  // The balancing round: releases the surplus or takes the fair share.
  void LeaseRound();
  // Drops the slots the renewer found lost (each maintenance round).
  void ApplyLostSlots();
  void LoadHorizon();
  void FireWaiting();
  // The fire by slot (scheduler_slots.cc, `DurableOptions::fire_by_slot`).
  // LoadSlots() reads each owned slot's next due time and arms it;
  // FireDueSlots() starts the due slots' rows within the free places.
  // Maintenance thread.
  void LoadSlots();
  void FireDueSlots();
  // Arms `slot` (held under `epoch`) at `due_us` (the database's clock as
  // a statement that returned at `local_after_nanos` read `db_now_us`):
  // due now when it has come, else a task of the wheel at that instant
  // (kept when the one armed is earlier and `exact` is false).
  void ArmSlotLocked(int slot, int64_t epoch, int64_t due_us, int priority,
                     int64_t db_now_us, int64_t local_after_nanos, bool exact)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnSlotDue(int slot, int64_t epoch);
  // Whether due slots should be fired now.
  bool SlotsReady() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A place freed: the parked slots are due again.
  void UnparkSlotsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends a fired attempt that will not start here (its place freed).
  // `tracked`: whether AttemptTracker counts it (a held one is not).
  void AbandonStartedLocked(const durable_internal::Started& started,
                            bool tracked) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Shutting down: abandons the fired attempts not started (held behind
  // their own, or ready), so that the requeue puts their rows back.
  void AbandonHeldStarted();
  // Whether waiting tasks should be fired now.
  bool FireReady() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct OutcomeWriter;
  // The outcome writers (scheduler_outcomes.cc). WriteCompletions() writes
  // a batch of outcomes on `store` (the start marks too, for the first
  // writer, `writer` 0, and the maintenance connection, `writer` -1, once
  // the writers have stopped).
  void WriteCompletions(durable_internal::StoreApi* store, int writer);
  // A writer's thread: writes what is queued as it comes, on its own
  // connection, until StopOutcomeWriters() (which joins them all).
  void OutcomeWriterLoop(OutcomeWriter* writer);
  void StopOutcomeWriters();
  bool OutcomesToWriteLocked(int writer) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // NoteDbError() for a statement on `store`: a writer's connection backs
  // off and reconnects on its own thread.
  void NoteDbErrorOn(durable_internal::StoreApi* store,
                     const absl::Status& status);
  // Writes `batch`'s outcomes. A batch the database refuses for one of its
  // rows is split in halves down to that row, which is tried alone twice
  // and then recorded FAILED with the refusal (RefusedOutcome()): one bad
  // row never holds the others back. Returns false, with every outcome
  // not written yet in `unwritten`, when a failure says nothing of the
  // rows (the connection, a timeout): they are sent again later.
  bool WriteOutcomes(durable_internal::StoreApi* store,
                     std::vector<durable_internal::Completion> batch,
                     std::vector<durable_internal::Completion>* unwritten,
                     bool retried_alone = false);
  // The books of outcomes written (attempts ended, counts, retries due
  // within the horizon put in the wheel).
  void RecordOutcomes(const std::vector<durable_internal::Completion>& batch,
                      const durable_internal::CompleteResult& result,
                      int64_t local_after);
  void DeleteFinished();
  // Confirms registered_kinds_ in the registry and forgets the kinds no
  // scheduler confirmed within options_.forget_kinds_after.
  void ConfirmKinds();
  void DropSlots(const std::vector<int>& slots);
  // The steps of one attempt, called by `RunAttemptVia()` on the executor
  // while the scheduler exists. BeginAttempt() says whether the handler may
  // start (the slot is still ours under the fire's epoch, the lease valid,
  // not shutting down) and counts the start; FinishAttempt() queues the
  // outcome (or writes it itself once the maintenance thread has ended).
  // It also registers the attempt's stop flag (`started.task.stop_flag`).
  bool BeginAttempt(const durable_internal::Started& started);
  void FinishAttempt(durable_internal::Completion completion, int slot,
                     int64_t epoch, int kind);
  static void RunAttemptVia(std::shared_ptr<AttemptLink> link,
                            durable_internal::Started started);
  // Hands each fired attempt to the executor (RunAttemptVia()).
  void ExecuteAttempts(std::vector<durable_internal::Started> attempts);
  // Adds `entry` to the wheel; false when a full wheel of earlier tasks
  // gives it back (a later task it displaced is given back instead).
  bool AddToWheelLocked(const durable_internal::WheelEntry& entry,
                        int64_t local_due) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues a due `entry` (of KindTable index `kind`) for the fire, and asks
  // for a load when a bounded wheel left rows PENDING. Returns whether the
  // maintenance thread must be woken.
  bool QueueDueLocked(const durable_internal::WheelEntry& entry, int16_t kind)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // With timer_options.max_pending, narrows the next load to what the wheel
  // can hold, or (full) to the rows due before the latest one it holds;
  // false: load nothing. Maintenance thread.
  bool LoadBounds(int64_t* limit, int64_t* horizon_us)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gives the rows a full wheel gave back to the store (PENDING again).
  void GiveBack();
  // Writes the queued start marks (all but those whose outcome is in
  // `completing`).
  void WriteStartMarks(durable_internal::StoreApi* store,
                       const absl::flat_hash_set<std::string>& completing);
  // The end of the maintenance thread: writes what is queued, releases the
  // slots without running handlers, removes the node.
  void FinishMaintenance(bool broken);
  // During Shutdown()'s grace: releases every slot with no attempt in
  // flight and no outcome waiting to be written (others take it at once).
  void ReleaseIdleSlots();
  // Whether a handler still runs (or we run on the owned executor's
  // thread): the owned executor cannot be joined.
  bool HandlersStillRunning();
  // Requeues the RUNNING rows of attempts abandoned by RunAttempt (slots
  // still ours) so that they are loaded and fired again.
  void RequeueAbandoned();
  // After the outcome writer lost its connection: puts this process's
  // SCHEDULED rows and the RUNNING rows no handler of ours runs back to
  // PENDING, then asks for a load (as Reconnect() does for the maintenance
  // connection). Maintenance thread.
  void RequeueUnrecorded();
  void NoteDbError(const absl::Status& status);
  // Reads the LISTEN connection's notifications; a slot of ours asks for a
  // load.
  void ConsumeNotifications();
  // Re-establishes the maintenance connection and puts this process's
  // SCHEDULED rows and the RUNNING rows no handler of ours runs back to
  // PENDING (statements in flight may have committed without their reply),
  // then asks for a load. Returns whether it succeeded.
  //
  // On the new session it takes the node id again (without waiting): when
  // a replacement holds it (it took the id over while this process was
  // stopped), the process stops working instead (`LoseNodeId()`).
  bool Reconnect();
  // This process no longer holds its node id: it drops every slot and the
  // wheel, halts the renewals, stops firing and reconnecting, and says so
  // in `DurableMetrics::node_id_lost`. Maintenance thread only.
  void LoseNodeId();
  // Ends the attempt of `id` in the tracker and, when none of the id is
  // left in flight, queues the task held behind it (if any) to fire.
  void EndAttemptLocked(const std::string& id, int64_t version, int slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Wake();

  DurableOptions options_;
  // The kinds (fixed; shared with the attempts, which may outlive us).
  std::shared_ptr<const durable_internal::KindTable> kinds_;
  Clock* clock_;  // The wheel's clock.
  std::unique_ptr<ThreadExecutor> owned_executor_;
  Executor* executor_;
  std::unique_ptr<Timer> timer_;

  // The client connection (Schedule/Cancel/Get), shared code with
  // `DurableClient`.
  std::unique_ptr<durable_internal::ClientCore> client_;

  // The maintenance thread's own connection and leases (that thread only,
  // until it ends; then handler threads writing late outcomes, under
  // late_mu_). Not annotated: the maintenance thread uses them without
  // late_mu_ while it runs.
  internal::Mutex late_mu_;
  std::unique_ptr<durable_internal::StoreApi> store_;
  durable_internal::StoreFactory store_factory_;  // Null: PostgreSQL.
  std::unique_ptr<durable_internal::SlotLeases> leases_;
  // The outcome writers (scheduler_outcomes.cc), each a thread with its
  // own connection: the first writes whatever is queued, the others help
  // with a backlog, so that a burn-down's outcomes are written side by side
  // and beside the fires.
  struct OutcomeWriter {
    int index = 0;  // 0: the first writer.
    std::unique_ptr<durable_internal::StoreApi> store;
    std::thread thread;
    int64_t backoff_until = 0;  // Real clock; its thread only.
    bool broken = false;        // Its thread only: reconnect first.
  };
  std::vector<std::unique_ptr<OutcomeWriter>> outcome_writers_;
  // Renews leases_ on its own thread and connection (thread-safe).
  std::unique_ptr<durable_internal::LeaseRenewer> renewer_;
  int64_t backoff_until_ = 0;  // Real clock; maintenance thread only.
  // The kinds this scheduler runs ("" for the default handler), as
  // registered by Create(); read by the maintenance thread only.
  std::vector<std::string> registered_kinds_;
  int64_t load_limit_ = 0;     // Rows a load claims (halved after a timeout).
  int64_t load_retry_at_ = 0;  // Real clock: a load passed locked rows over.
  // Real clock: when a schedule of the owned slots is next to be advanced
  // (RunScheduleDuty() sets it; max int64: at the half-horizon round).
  int64_t schedule_duty_at_ = std::numeric_limits<int64_t>::max();
  // The store's clock as the last load read it, and the real clock then.
  int64_t load_db_now_us_ = 0;
  int64_t load_real_nanos_ = 0;
  // Slots one takeover statement takes (halved after a timeout), and
  // whether the balancing round should run again at once.
  int acquire_limit_ = 0;
  bool balance_again_ = false;
  // Shared with the attempts on the executor (which may outlive us).
  std::shared_ptr<AttemptLink> link_;

  // Guards the scheduler's bookkeeping below, shared by the maintenance
  // thread, the wheel's fires, handler threads and the public calls. Held
  // only around bookkeeping, never around a statement or a handler.
  mutable internal::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Each claimed task in the wheel is due through router_.
  const durable_internal::MirrorTask::Router router_{&FireFromWheel, this};
  // The claimed tasks in the wheel, and the rows a full wheel gives back
  // (set once timer_ exists).
  std::unique_ptr<durable_internal::WheelMirror> wheel_ ABSL_GUARDED_BY(mu_);
  durable_internal::FireQueue fire_queue_ ABSL_GUARDED_BY(mu_);
  std::vector<durable_internal::Completion> completed_ ABSL_GUARDED_BY(mu_);
  // slot -> epoch.
  absl::flat_hash_map<int, int64_t> owned_ ABSL_GUARDED_BY(mu_);
  // The attempts fired and not yet recorded, their handlers' stop flags
  // (raised by a CancelTask() heard on "timingwheel_stop") and start marks.
  durable_internal::AttemptTracker attempts_ ABSL_GUARDED_BY(mu_);
  // Tasks due while an attempt of the same id still runs here (its row was
  // taken from this process while it stalled and given back): fired once
  // that attempt has ended, never beside it (HoldBehindOwnAttemptLocked()).
  absl::flat_hash_map<std::string, durable_internal::FireQueue::Waiting>
      behind_own_attempt_ ABSL_GUARDED_BY(mu_);
  bool load_waits_for_room_ ABSL_GUARDED_BY(mu_) = false;
  // The fire by slot: each owned slot's armed due time (the database's
  // clock), the priority of the row it gives next (due slots are named
  // higher priority first) and its task in the wheel; the slots due now;
  // the due slots a fire started nothing in: parked (their rows' kinds
  // are at their limits: due again when an attempt ends) or to retry at
  // slot_retry_at_ (rows another transaction held); fired attempts whose
  // id still runs here, started when that attempt ends, and those ready
  // to start.
  struct SlotArm {
    int64_t epoch = 0;
    int64_t due_us = 0;
    int priority = 0;
    TimerHandle task;
  };
  absl::flat_hash_map<int, SlotArm> slot_arms_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int> due_slots_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int> parked_slots_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int> retry_slots_ ABSL_GUARDED_BY(mu_);
  // Counts UnparkSlotsLocked() calls: a fire that sees it move while in the
  // database parks nothing (the place it lacked may be free already).
  int64_t unparks_ ABSL_GUARDED_BY(mu_) = 0;
  // The places a fire by slot in flight may start (not in `in_flight`).
  int64_t slot_fire_reserved_ ABSL_GUARDED_BY(mu_) = 0;
  // The retries an outcome writer armed while a fire or a load by slot was
  // in flight (`slot_fire_reserved_` > 0, `slot_load_in_flight_`), with the
  // clocks they were read at: the statement's exact arm of their slots,
  // read before they were written, is followed by theirs again.
  struct RetryArm {
    durable_internal::WheelEntry entry;
    int64_t db_now_us = 0;
    int64_t local_after_nanos = 0;
  };
  std::vector<RetryArm> retries_armed_during_read_ ABSL_GUARDED_BY(mu_);
  // A load by slot (LoadSlots()) is in the database: its exact arms, read
  // before, are followed by the retries armed meanwhile, as a fire's.
  bool slot_load_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  int64_t slot_retry_at_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, durable_internal::Started>
      started_behind_own_ ABSL_GUARDED_BY(mu_);
  std::vector<durable_internal::Started> ready_started_ ABSL_GUARDED_BY(mu_);
  bool maintenance_done_ ABSL_GUARDED_BY(mu_) = false;
  bool shutdown_in_handler_ ABSL_GUARDED_BY(mu_) = false;
  bool store_broken_ ABSL_GUARDED_BY(mu_) = false;
  // A replacement took this process's node id over (LoseNodeId()).
  bool node_lost_ ABSL_GUARDED_BY(mu_) = false;
  bool load_requested_ ABSL_GUARDED_BY(mu_) = false;
  // An attempt was abandoned: put our RUNNING rows that no handler runs
  // back to PENDING (if the slot is still ours).
  bool requeue_requested_ ABSL_GUARDED_BY(mu_) = false;
  // The outcome writer lost its connection: a statement may have committed
  // without its reply (RequeueUnrecorded()).
  bool unrecorded_requeue_requested_ ABSL_GUARDED_BY(mu_) = false;
  // The outcome writers: told to stop, and the batches taken from
  // `completed_` being written (not yet recorded). Woken through
  // `outcomes_cv_`.
  bool outcome_writers_stop_ ABSL_GUARDED_BY(mu_) = false;
  int outcome_writes_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  std::condition_variable outcomes_cv_;
  DurableMetrics metrics_ ABSL_GUARDED_BY(mu_);
  // Fire lateness, handler and statement durations (each thread-safe).
  std::unique_ptr<durable_internal::SchedulerHistograms> histograms_;
  // The database's clock minus the wheel's clock (nanoseconds), as the last
  // fire measured it: a handler's start on the database's clock.
  std::atomic<int64_t> db_minus_local_nanos_{0};

  int wake_fd_ = -1;
  std::thread maintenance_;
  internal::Mutex shutdown_mu_;  // Serializes Shutdown().
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_DURABLE_SCHEDULER_H_
