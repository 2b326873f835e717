// Copyright 2026 The timingwheel Authors.
//
// durable_guarantees.h
// -----------------------------------------------------------------------------
//
// The promises of `DurableScheduler` (durable_scheduler.h), each stated once.
// A comment-only header: durable_scheduler.h includes it so that the
// promises travel with the API, and keeps its own text to the API.
//
// Guarantees (each names the tests that fail when it breaks; all in
// //tests/durable, against a real PostgreSQL)
//   * At least once: a task is never lost and runs until an attempt
//     succeeds or its attempts are used up, through kill -9, SIGSTOP past
//     the lease, takeovers, lost replies after commit, reconnects, a full
//     wheel and a database failover. NeverLostTest.* (a load held across a
//     takeover; the load's, the fire's and a retry's replies dropped after
//     commit; a full wheel), FaultKillTest, FaultOutageTest, FaultRestartTest,
//     FailoverTest, ChaosTest.RandomFaultsKeepTheGuarantees.
//   * An attempt counts when its handler starts, never when its row is
//     claimed or fired: `TaskInfo::attempt` and `max_attempts` count
//     started attempts only (a start is recorded by the next statement the
//     owner writes, or by the attempt's outcome). A process killed between
//     the fire and the handler's start, or before the start was recorded,
//     leaves the attempt uncounted: the next owner runs it under the same
//     number. StoreTest.TakeoverCountsOnlyAttemptsThatStarted,
//     NeverLostTest.FireWhoseReplyIsLostDoesNotUseUpTheOnlyAttempt,
//     FaultKillTest (fire.started).
//   * Twice only in the window: `(id, attempt)` is the idempotency key. An
//     attempt runs again only if its process died, stalled past its lease
//     or lost its connection for good while the handler ran or before its
//     outcome committed. A handler is started only while its slot's lease
//     is held under the epoch it was fired in: an attempt whose process
//     stalled (or lost and re-took the slot) between the fire and the start
//     is abandoned, and runs once, later. A reconnect never requeues an
//     attempt whose handler still runs here, and a process that takes back
//     its own slot (its renewals timed out past the TTL) spares the
//     attempts still running here: they are not run a second time and
//     their outcomes commit.
//     NeverLostTest.AttemptFiredUnderAnOldEpochIsAbandoned,
//     NeverLostTest.ReconnectRequeueSparesHandlersStillRunning,
//     LeaseRenewalTest.RetakingItsOwnSlotSparesTheAttemptStillRunning,
//     FaultKillTest (handler.returned).
//   * One outcome never holds back another: a handler's verdict is brought
//     into range (delays in [0, 100 years], error text at most 16 KiB;
//     handler_outcome.h), and a row of a completion batch that the
//     database refuses is recorded FAILED with the refusal while the rest
//     of its batch is written (`DurableMetrics::outcomes_refused`). The
//     outcome writers write start marks and outcomes of the same rows at
//     once: a mark committed during a completion never makes it miss its
//     row, and a mark after the outcome writes nothing.
//     OutcomeBatchTest.ARowTheDatabaseRefusesFailsAloneAndTheRestIsWritten,
//     OutcomeBatchTest.InfiniteDelaysParkTheTaskAndEveryOutcomeIsWritten,
//     OutcomeBatchTest.EachNumberOfOutcomeWritersWritesABacklog,
//     StoreOutcomeWritersTest.AMarkCommittedDuringACompletionKeepsTheOutcome,
//     StoreOutcomeWritersTest.AMarkHeldWhileTheCompletionCommitsWritesNothing,
//     HandlerVerdictTest.OutOfRangeDelaysAreClamped.
//   * Never two owners: a slot is held by one process at a time (epochs,
//     `FOR UPDATE SKIP LOCKED`), every write for a slot's tasks is
//     conditional on the epoch (loads lock the lease row they claim under
//     until they commit), and outcomes on the attempt's version, which
//     never repeats for an id (one sequence), so a process that stalled
//     past its lease and wakes up changes nothing.
//     StoreTest.OldEpochWritesChangeNothing,
//     StoreTest.FireMatchesTheEpochNotOnlyTheOwner,
//     StoreTest.StaleCompletionNeverLandsOnARescheduledId,
//     NeverLostTest.LoadInFlightDuringATakeoverLosesNothing,
//     NeverLostTest.LockedLeaseRowDelaysOnlyItsSlot,
//     FaultKillTest.StoppedAtPointWakesUpFencedOut.
//   * Never early against the database's clock (`now()` is the only time
//     authority; the fire statement itself refuses tasks not yet due, and a
//     refused task is re-armed from the process clock read after that
//     statement); late by the wheel's wake-up plus one round trip for tasks
//     due within the horizon. A task scheduled by another process reaches
//     its owner through LISTEN/NOTIFY, or at the latest at the owner's next
//     load (every half horizon).
//     StoreTest.FireRefusesTasksNotYetDueOnTheDatabaseClock,
//     NeverLostTest.NotDueReArmsFromTheClockReadAfterTheFire,
//     DurableSchedulerTest, FaultClockTest.
//     Capacity holds nothing back: a free handler place takes a due task
//     at once (the highest priority of a kind with room; the rows a load
//     finds overdue wait for places together), whatever runs in the other
//     places; a wheel bounded by `TimerOptions::max_pending`
//     holds the earliest rows (an earlier row displaces the latest one
//     held, which goes back to PENDING and fires at its own time).
//     CapacityTest.AFreePlaceStartsADueTaskWhileTheOthersAreBusy,
//     FireBySlotTest.ASlotsShareDoesNotLetALowerPriorityOvertake,
//     CapacityTest.AFullWheelTakesATaskDueSoonInPlaceOfLaterOnes,
//     CapacityTest.DisplacedTasksStillFireOnceAtTheirDueTime.
//   * RUNNING means "fired to this scheduler's executor": its handler is
//     running, or queued on the executor behind others (`Get()` cannot tell
//     the two apart; `DurableMetrics::waiting` and `in_flight` count them
//     in the process).
//   * Takeover of a dead process's slots: within one lease TTL plus one
//     renewal round (a third of the TTL). `Shutdown()` hands slots over at
//     once. FaultKillTest, FaultMembershipTest.
//   * Bounded: every statement and lock wait on the scheduler's
//     connections ends within `statement_timeout` (a quarter of the TTL),
//     and `Shutdown()` and the destructor return within one TTL whatever
//     handlers do; an outcome write that fails during `Shutdown()` is
//     tried again until half a TTL has passed (past that, its row stays
//     RUNNING and the slot's next owner runs it again). DurableShutdownTest.*
//     (AFailedFinalOutcomeWriteIsRetriedWithinTheBound).
//   * One process per node id: `Create()` refuses a node id that a live
//     scheduler holds on the same database (a crashed one's is free once
//     its session ends; a stopped one's, stale on the database's clock,
//     is taken over, and the stopped process, woken, runs nothing and
//     stops).
//     DurableShutdownTest.SecondLiveSchedulerWithTheSameNodeIdIsRefused,
//     FaultNodeIdTest.*.
//   * Finished rows are deleted after `retain_finished`; unfinished rows
//     never, however old. NeverLostTest.CleanupDeletesOnlyFinishedRows.
//   * Faults are answered with a status, nothing lost: bad input, an
//     unreachable database at creation (Unavailable) and while running
//     (statements are retried after reconnecting, counted in
//     `db_errors`/`reconnects`), a connection dropped mid-transaction (the
//     database rolls it back), a statement past its timeout
//     (DeadlineExceeded), a schema from a newer version
//     (FailedPrecondition). No error contains the connection's password.
//     DurableSchedulerTest, StoreTest, FaultOutageTest.
//   * A replacement's rule holds on the final due time whatever the
//     interleaving: two `ScheduleOrReplace()` calls of one id serialize on
//     its row, also when both create it at once (the later statement meets
//     the earlier's row in its conflict arm and applies its mode there),
//     and each caller is told what its request did (`kScheduled`,
//     `kReplaced`, `kKept`, `kAlreadyRunning`). ReplaceRaceTest.*,
//     ReplaceTest.*. A replacement with a payload starts the task afresh
//     (attempt count 0, no last error); one without keeps them.
//     ReplaceContractTest.* (both stores).
//   * Every input has a limit, checked where it enters, before anything is
//     written: past it the call answers InvalidArgument naming the field
//     (durable/README.md, "Limits"); a batch with a bad request is refused
//     whole, naming its index. Ids are at most kMaxIdBytes (2,048) bytes, so
//     a stop request for any running task fits PostgreSQL's notification.
//     DurableBoundsTest.*,
//     CancelRunningTest.ARunningTaskIsToldToStopAndNotRetried (an id of
//     kMaxIdBytes), CancelTaskTest.AnIdPastTheLimitIsRefusedBeforeTheStore.
//
// Sanitizers: libpq is not instrumented. ThreadSanitizer sees every access
// this library makes to its own state (each libpq connection is used under a
// `std::mutex` of ours, or by one thread), but not inside libpq; the
// database's own concurrency (two schedulers on one store) is checked by the
// tests' assertions on rows, not by TSan.

#ifndef TIMINGWHEEL_DURABLE_DURABLE_GUARANTEES_H_
#define TIMINGWHEEL_DURABLE_DURABLE_GUARANTEES_H_
#endif  // TIMINGWHEEL_DURABLE_DURABLE_GUARANTEES_H_
