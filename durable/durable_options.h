// Copyright 2026 The timingwheel Authors.
//
// durable_options.h
// -----------------------------------------------------------------------------
//
// How a `DurableScheduler` (durable_scheduler.h, which includes this file)
// is built, `DurableOptions`, and the snapshot of its counters,
// `DurableMetrics`.

#ifndef TIMINGWHEEL_DURABLE_DURABLE_OPTIONS_H_
#define TIMINGWHEEL_DURABLE_DURABLE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "durable/task.h"
#include "durable/task_kind.h"
#include "timer/executor.h"
#include "timer/timer.h"

namespace timingwheel {

// The least time without a heartbeat after which a node's row may be
// deleted (see `DurableOptions::retain_finished`).
inline constexpr absl::Duration kMinStaleNodeAge = absl::Hours(1);

// The most outcome writers a scheduler may have
// (`DurableOptions::outcome_writers`).
inline constexpr int kMaxOutcomeWriters = 3;

// DurableOptions
//
// How a `DurableScheduler` is built. `handler` (or at least one of `kinds`)
// is required.
struct DurableOptions {
  // A libpq connection string ("host=/var/run/postgresql dbname=app
  // user=app", or a postgresql:// URI). The tables (tw_*) are created in
  // the connection's default schema; set `options=-csearch_path=myschema`
  // to place them elsewhere. A scheduler holds three connections (client
  // calls; maintenance: loads, fires, LISTEN; renewals) plus one per
  // outcome writer (`outcome_writers`, 2 by default): five by default.
  std::string conninfo;

  // This process's name in the lease table; unique among live schedulers.
  // Empty: "<hostname>-<pid>-<random>".
  std::string node_id;

  // Runs the tasks of the default kind (`ScheduleRequest::kind` empty).
  // May be empty when `kinds` is not: this scheduler then runs no task of
  // the default kind (one it fires is snoozed as of an unknown kind).
  DurableHandler handler;

  // Named kinds, each with its handler and its own limit on running
  // attempts (task_kind.h). Registered in the store at Create(); names
  // unique. Tested by TaskKindsTest.*.
  std::vector<TaskKind> kinds;

  // A task of a kind this scheduler has no handler for is due again this
  // long after it fired, its attempt not counted (see `TaskKind`). At least
  // 1 ms.
  absl::Duration unknown_kind_delay = absl::Minutes(1);

  // Record each attempt whose outcome is written (tw_attempt: number,
  // outcome, node, start, end, error), kept as long as the task's row,
  // for `twctl show` and `AdminStore::Show()`. One more row written per
  // attempt, in the completion's statement. Tested by
  // TaskKindsTest.AttemptsAreRecordedInOrder.
  bool attempt_history = true;

  // Tasks due within the horizon are held in the process's wheel; the rest
  // stay in the table only. Loaded every half horizon. Positive.
  absl::Duration horizon = absl::Hours(1);

  // Experimental: the planned core's fire (docs/durable-core-plan.md, step
  // 3). The wheel holds one entry per owned slot, armed at the slot's next
  // due time (read without writing a row), and each due slot's rows are
  // started in one statement fenced by its lease (`FireSlots()`): no
  // horizon claim, no row held per task. Same guarantees; off by default
  // until every suite runs with it. Every scheduler of a store should run
  // the same way. The environment variable TIMINGWHEEL_FIRE_BY_SLOT=1
  // turns it on for every scheduler of the process.
  bool fire_by_slot = false;

  // A slot whose owner stops renewing for this long is taken over. At least
  // 100 ms. Renewals run every third of it.
  absl::Duration lease_ttl = absl::Seconds(10);

  // Fixed when the store is created; every scheduler of a store must agree.
  // In [1, 65536].
  int slot_count = 1024;

  RetryPolicy retry;

  // At most this many handlers run at once; the other due tasks wait as
  // SCHEDULED (backpressure; nothing lost). At least 1.
  int max_in_flight = 64;

  // Threads (each with its own connection) that write start marks and
  // outcomes beside the fires. The first writes whatever is queued; each
  // other one helps while 256 or more outcomes wait. 1 saves a connection
  // (bursts of outcomes are then written one batch at a time). In
  // [1, kMaxOutcomeWriters].
  int outcome_writers = 2;

  // Where handlers run. Null: one dedicated thread owned by the scheduler,
  // so handlers run one at a time whatever `max_in_flight` and the kinds'
  // limits allow; pass a `ThreadPoolExecutor` (timer/thread_pool_executor.h)
  // of N threads to run up to N side by side. Not owned; must outlive the
  // scheduler.
  Executor* executor = nullptr;

  // The in-process wheel's options (tick, clock, ...). Its `clock` is the
  // process clock that due times are converted to (tests inject a
  // `ManualClock`); leases and loads run on the real clock.
  TimerOptions timer_options;

  // Whether `Create()` creates the schema or migrates an older one
  // (true), or only checks it (false: then `Create()` fails with
  // FailedPrecondition naming the `twctl migrate` command to run when there
  // is no store or an older one, and changes nothing). Set it to false in
  // production deploys where the operator runs migrations (some steps lock
  // the task table: `twctl migrate --dry-run` names each step's locks).
  bool migrate_schema = true;

  // Input limits: the longest task id, in [1, kMaxIdBytes] (2,048), and
  // the largest payload, in [1, kMaxPayloadBytes] (256 MiB), a call of this
  // scheduler accepts (task.h; InvalidArgument at Create() outside them).
  int64_t max_id_bytes = 1024;
  int64_t max_payload_bytes = 16 << 20;

  // SUCCESS and FAILED rows are deleted (in batches, by their owner) this
  // long after they finish. The same cleanup deletes the row of a node
  // (tw_node) whose last heartbeat is older than this, and at least
  // `kMinStaleNodeAge`, once others hold all its slots: node ids that
  // are never used again (a pod's name) do not pile up.
  absl::Duration retain_finished = absl::Hours(24);

  // A task kind that no scheduler has registered for this long, and that
  // no recurring schedule names, is forgotten: scheduling it then fails
  // with NotFound until a scheduler that runs it starts again. Its stored
  // tasks stay (an owner without its handler snoozes them; `twctl status`
  // lists the kind "(not registered)"). A scheduler registers its kinds at
  // `Create()`, every 10 minutes after, and after each reconnect. At least 1
  // hour; `absl::InfiniteDuration()`: never. Test:
  // TaskKindsTest.AKindNoSchedulerRegisteredForLongIsForgotten.
  absl::Duration forget_kinds_after = absl::Hours(24 * 7);

  // The longest any statement (or its wait for a lock) may run on the
  // scheduler's connections (PostgreSQL's statement_timeout and
  // lock_timeout), so that no statement holds the process past its lease.
  // Zero: a quarter of `lease_ttl`. At most a quarter of `lease_ttl`. A
  // horizon load that times out is retried with half as many rows.
  absl::Duration statement_timeout = absl::ZeroDuration();

  // How long one attempt's handler may run. At the deadline the handler is
  // asked to stop (`DurableTask::stop_requested()` turns true; the deadline
  // is `DurableTask::deadline`); a handler that then returns anything but
  // OK has its attempt recorded as timed out (DeadlineExceeded, retried per
  // `retry`), one that returns OK succeeded. A handler is never killed:
  // one that ignores the request keeps its thread and its slot until it
  // returns. Zero: no timeout. Test:
  // HandlerOutcomeTest.AnAttemptPastItsTimeoutIsAskedToStop.
  absl::Duration attempt_timeout = absl::ZeroDuration();

  // How long `Shutdown()` waits for the handlers running then to return
  // (their slots' leases are renewed meanwhile; every slot without a
  // running handler is released at once, so other schedulers take its
  // tasks without waiting). A handler still running past it keeps its
  // slot until it returns, as long as the scheduler object exists. Set it
  // above your longest handler so that a rolling deploy reruns nothing
  // (Sidekiq's `-t`, Oban's `shutdown_grace_period`). Zero: half of
  // `lease_ttl`. In [0, 24h]. Test:
  // DurableShutdownTest.TheGraceOutlastsTheTtlAndOtherSlotsMoveAtOnce.
  absl::Duration shutdown_grace = absl::ZeroDuration();
};

// DurableMetrics
//
// A snapshot of a scheduler's counters (see `DurableScheduler::Metrics()`).
struct DurableMetrics {
  int64_t scheduled = 0;      // Tasks its Schedule*() calls accepted
                              // (identical retries, which insert
                              // nothing, included).
  int64_t loads = 0;          // Horizon load statements run.
  int64_t loaded = 0;         // Tasks claimed into the wheel by loads.
  int64_t wheel_pending = 0;  // Tasks in the wheel now.
  int64_t waiting = 0;        // Fired tasks waiting for a handler slot.
  // 1 when the fire by slot runs (`DurableOptions::fire_by_slot`): then
  // `waiting` and `loaded` stay 0 and `wheel_pending` counts armed slots.
  int64_t fire_by_slot = 0;
  int64_t in_flight = 0;           // Handlers running now.
  int64_t attempts = 0;            // Attempts started (SCHEDULED -> RUNNING).
  int64_t succeeded = 0;           // SUCCESS recorded.
  int64_t retried = 0;             // Failed attempts that will be retried.
  int64_t failed = 0;              // FAILED recorded (attempts used up).
  int64_t dropped = 0;             // Fires or completions the database refused
                                   // (cancelled, or the slot moved: fenced).
  int64_t abandoned = 0;           // Attempts whose handler was not started:
                                   // the slot's lease ran out or moved first.
  int64_t not_due = 0;             // Fires the database found early (re-added).
  int64_t unknown_kind = 0;        // Attempts snoozed: no handler here.
  int64_t db_errors = 0;           // Statements that failed (retried).
  int64_t reconnects = 0;          // Successful reconnections.
  int64_t slots_owned = 0;         // Slots held now.
  int64_t slots_acquired = 0;      // Slots taken over so far.
  int64_t slots_lost = 0;          // Slots lost (lease expired or fenced).
  int64_t node_id_lost = 0;        // 1 once a replacement took this
                                   // process's node id over (it stopped
                                   // while its leases expired): it runs
                                   // nothing more; shut it down.
  int64_t finished_deleted = 0;    // Finished rows deleted.
  int64_t statement_timeouts = 0;  // Statements cut by statement_timeout.
  int64_t requeued = 0;            // Rows put back to PENDING by this process
                                   // (abandoned attempts; after a reconnect;
                                   // displaced from a full wheel).
  int64_t late_outcomes = 0;       // Outcomes written after the maintenance
                                   // thread ended (a handler returned after
                                   // Shutdown() stopped waiting for it).
  int64_t outcomes_refused = 0;    // Outcomes the database refused to write
                                   // (each recorded FAILED with the refusal;
                                   // the rest of its batch written).
  int64_t held_behind_own_attempt = 0;  // Fires held until an attempt of the
                                        // same task, still running here,
                                        // ended (its row was taken from this
                                        // process while it stalled and came
                                        // back).
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_DURABLE_OPTIONS_H_
