// Copyright 2026 The timingwheel Authors.
//
// store_api.h
// -----------------------------------------------------------------------------
//
// StoreApi: what the durable tier asks of its store, stated once. The
// scheduler (`DurableScheduler`), the producers (`ClientCore`, behind
// `DurableClient`) and the lease book (`SlotLeases`) speak only to this
// interface. Two implementations keep its promises:
//   Store (store.h)                   PostgreSQL over libpq: every SQL
//                                     statement of the tier.
//   durable_testing::FakeStore        in memory (durable/testing/
//                                     fake_store.h), for logic tests.
// The recurring schedules' calls are stated in schedule_store_api.h (a
// base of this interface); the values passed in store_types.h.
//
// The promises:
//   - States. A task is PENDING (stored, in no wheel), SCHEDULED (claimed
//     into its slot owner's wheel, stamped with the owner's epoch), RUNNING
//     (one attempt started), then SUCCESS or FAILED (finished; deleted by
//     `DeleteFinished()` after the retention). A retry goes back to PENDING
//     (or straight to SCHEDULED when due within the owner's horizon). Every
//     transition is one compare-and-set: zero rows changed means "not
//     yours any more" (cancelled, replaced, or the slot moved).
//   - Fencing by epoch. Taking a slot (`Acquire()`) increments its epoch
//     and re-stamps its SCHEDULED and RUNNING tasks as PENDING; every later
//     write for a slot is conditional on the epoch and a valid lease, so a
//     caller with a stale epoch changes nothing.
//   - At least once. An attempt counts when its handler starts
//     (`MarkStarted()`, or `Complete()`); a process that dies between a
//     handler's end and its `Complete()` lets the next owner run it again.
//     `Complete()` matches the attempt's version, so a rescued attempt and
//     its original cannot both finish the task.
//   - Idempotent by id. Inserting an id that exists is an identical retry
//     (OK, nothing changes) when payload and (absolute) due time match,
//     `absl::AlreadyExistsError` otherwise.
//   - One clock. Due times, leases and finish times are microseconds since
//     the Unix epoch on the store's clock (the database's `now()`), returned
//     as `db_now_us` by the statements that claim or insert.
//
// Errors: `absl::UnavailableError` when the connection is lost (the caller
// may `Reconnect()` and retry), `absl::AlreadyExistsError` for a duplicate
// id, `absl::FailedPreconditionError` for a schema this library cannot
// use, `absl::NotFoundError` for an unknown task or kind,
// `absl::InternalError` otherwise.
//
// Thread safety: an implementation is thread-compatible: one caller at a
// time per instance (the scheduler and `ClientCore` guard each of their
// stores with a mutex). Distinct instances over one database may be used
// from distinct threads at once.

#ifndef TIMINGWHEEL_DURABLE_SQL_STORE_API_H_
#define TIMINGWHEEL_DURABLE_SQL_STORE_API_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/sql/schedule_store_api.h"
#include "durable/sql/store_types.h"
#include "durable/task.h"

namespace timingwheel {
namespace durable_internal {

// StoreApi
//
// The statements of the durable tier, one call each (see the file comment
// for the promises every implementation keeps).
class StoreApi : public ScheduleStoreApi {
 public:
  virtual ~StoreApi() = default;

  // StoreApi::LockNode()
  //
  // Marks `node` as held by this live instance (PostgreSQL: a session-level
  // advisory lock, released when the connection ends, so a killed
  // process's node id is free as soon as its session ends), waiting up to
  // the session's lock_timeout. False when another live instance still
  // holds it then.
  virtual absl::StatusOr<bool> LockNode(const std::string& node) = 0;

  // StoreApi::RelockNode()
  //
  // After a reconnect: takes `node` again without waiting. kHeld when this
  // session holds it now; kOwnSession when a former session of this same
  // process (the same session tag, `SessionLimits::application_name`) still
  // held it, which is now ended (try again after a backoff); kTakenByOther
  // when another process holds it: a replacement took the id over while
  // this one was stopped, and this one must stop working.
  virtual absl::StatusOr<NodeRelock> RelockNode(const std::string& node) = 0;

  // StoreApi::TakeOverNode()
  //
  // When `node` is held by another process: if that holder is stale on the
  // database's clock (no heartbeat of `node` in the last `ttl_us` and no
  // lease of `node` still valid, so every lease it held has expired and
  // its slots are free to be taken, fenced by their epochs), ends the
  // holder's sessions and every other session carrying the holder's
  // session tag, and returns true (then `LockNode()` takes it). False when
  // the holder is live (nothing is ended). PermissionDenied, naming the
  // fix, when this user may not end the holder's sessions.
  virtual absl::StatusOr<bool> TakeOverNode(const std::string& node,
                                            int64_t ttl_us) = 0;

  // StoreApi::Reconnect()
  //
  // Re-establishes a lost connection (and its LISTEN). Unavailable when the
  // database is still unreachable.
  virtual absl::Status Reconnect() = 0;

  // StoreApi::EnsureSchema()
  //
  // Creates the schema with `slot_count` slots, or migrates an older one
  // forward (`MigrateSchema()`, migrations.h), and checks it:
  // FailedPrecondition for a newer schema version or another slot count.
  // Serialized between processes.
  virtual absl::Status EnsureSchema(int slot_count) = 0;

  // StoreApi::CheckSchema()
  //
  // Checks, changing nothing, that the store exists at this library's
  // schema version with `slot_count` slots (for processes told not to
  // migrate): FailedPrecondition naming the command to run (`twctl
  // migrate`) when there is no store or an older one, naming both versions
  // for a newer one, or both slot counts.
  virtual absl::Status CheckSchema(int slot_count) = 0;

  // StoreApi::CancelTask()
  //
  // Deletes the task unless it finished: a PENDING or SCHEDULED one will
  // not run (kCancelled); a RUNNING one's attempt is fenced (its outcome
  // finds no row and is dropped, nothing is retried) and its owner is
  // asked, by a stop notification (see `DrainNotifications()`), to tell
  // its handler (kStopRequested). kFinished leaves a SUCCESS or FAILED row
  // alone; kNotFound for an unknown id.
  virtual absl::StatusOr<CancelOutcome> CancelTask(const std::string& id) = 0;

  // StoreApi::Replace()
  //
  // Inserts, replaces or keeps each row by its rule, atomically; a RUNNING
  // task is never touched. A written row is PENDING with a new version: a
  // SCHEDULED one leaves its owner's wheel (its fire finds it PENDING and
  // is refused) and is claimed again at its new due time; a finished one
  // (SUCCESS or FAILED, not cleaned up yet) becomes a new task (attempts 0,
  // no error). Wakes owners as `Insert()` does.
  virtual absl::StatusOr<ReplaceResult> Replace(
      const Inserter& inserter, absl::Span<const ReplaceRow> rows) = 0;

  // StoreApi::Insert()
  //
  // Inserts `rows` PENDING, atomically, notifying the owners of rows due
  // within their horizons (a "*" wake-up when the slots do not fit in one
  // payload). A row whose id exists already is not an error if it is an
  // identical retry (same payload and, for an absolute due time, same due
  // time; returned in `identical` while still PENDING); otherwise
  // `absl::AlreadyExistsError` and nothing is inserted. Every row's kind
  // must be empty or registered (`RegisterKinds()`): NotFound naming the
  // first unknown one. Rows in the inserter's own slots due within its
  // horizon are returned in `mine` and not notified.
  virtual absl::StatusOr<InsertResult> Insert(
      const Inserter& inserter, absl::Span<const InsertRow> rows) = 0;

  // StoreApi::NotifyDue()
  //
  // Wakes the owners of `entries`' slots whose due times fall within the
  // owner's horizon, as an insert does for the rows it inserts. For
  // wake-ups the insert could not send: identical retries, and an
  // inserter's own rows whose lease it cannot vouch for.
  virtual absl::Status NotifyDue(absl::Span<const WheelEntry> entries) = 0;

  // StoreApi::Cancel()
  //
  // Deletes the task if it is PENDING or SCHEDULED; returns whether it did.
  virtual absl::StatusOr<bool> Cancel(const std::string& id) = 0;

  // StoreApi::Get()
  //
  // The task's stored state; NotFound when no such task is stored.
  virtual absl::StatusOr<TaskInfo> Get(const std::string& id) = 0;

  // StoreApi::RegisterKinds()
  //
  // Records that `node` runs the tasks of `kinds` (now, on the database's
  // clock), so that clients may schedule them, and forgets every other
  // kind that no scheduler registered within `forget_after_us` (none when
  // negative); returns how many it forgot. Schedulers call it when they
  // start and periodically after.
  virtual absl::StatusOr<int64_t> RegisterKinds(
      const std::string& node, absl::Span<const std::string> kinds,
      int64_t forget_after_us) = 0;

  // StoreApi::Renew()
  //
  // One lease round of an owner, as one statement: records `node`'s
  // heartbeat (or, when `leaving`, removes its node row: a stopping
  // scheduler that only keeps its busy slots is no longer counted, so the
  // others take all the slots it released), extends the leases of `owned`
  // that are still this node's under the same epoch (and unexpired) by
  // `ttl_us`, recording the owner's `horizon_us` in them (inserters notify
  // it of rows due within it), and counts the live nodes (heartbeat within
  // `ttl_us`, this one included). The owned slots not in `renewed` are
  // lost.
  virtual absl::StatusOr<Renewal> Renew(const std::string& node,
                                        absl::Span<const SlotEpoch> owned,
                                        int64_t ttl_us, int64_t horizon_us,
                                        bool leaving) = 0;

  // StoreApi::Acquire()
  //
  // Takes up to `count` free or expired slots, giving each a new epoch
  // (above the lease's and above every epoch its SCHEDULED and RUNNING tasks
  // carry), re-stamping their RUNNING tasks as PENDING under it (those whose
  // attempts are used up become FAILED), and recording the owner's
  // `horizon_us`. Atomic. Their SCHEDULED tasks keep the former epoch (no
  // fire of the former owner matches them any more) until the new owner's
  // `ClaimDue()` claims them: one write per task moved, not two.
  //
  // A RUNNING task that is one of `live` (same id and version: an attempt
  // this process still runs, as when it takes back its own slot after its
  // renewals timed out) is spared: it stays RUNNING under its version and
  // takes the new epoch, so its handler is not run a second time and its
  // outcome still commits. Test:
  // LeaseRenewalTest.RetakingItsOwnSlotSparesTheAttemptStillRunning.
  virtual absl::StatusOr<std::vector<SlotEpoch>> Acquire(
      const std::string& node, int count, int64_t ttl_us, int max_attempts,
      int64_t horizon_us, absl::Span<const LiveAttempt> live) = 0;

  // As above, sparing nothing (a process with no attempt running).
  absl::StatusOr<std::vector<SlotEpoch>> Acquire(const std::string& node,
                                                 int count, int64_t ttl_us,
                                                 int max_attempts,
                                                 int64_t horizon_us) {
    return Acquire(node, count, ttl_us, max_attempts, horizon_us, {});
  }

  // StoreApi::Release()
  //
  // Gives `slots` up at once (owner cleared, lease expired), those still
  // this node's under the same epoch.
  virtual absl::Status Release(const std::string& node,
                               absl::Span<const SlotEpoch> slots) = 0;

  // StoreApi::RemoveNode()
  //
  // Forgets `node`'s heartbeat (it no longer counts as live).
  virtual absl::Status RemoveNode(const std::string& node) = 0;

  // StoreApi::ForgetStaleNodes()
  //
  // Deletes up to `limit` node rows (`tw_node`) whose last heartbeat is
  // older than `stale_for_us` on the database's clock and whose name no
  // slot's lease row carries (others took all their slots; a node that
  // still names a slot, expired or not, stays, and so does a heartbeat that
  // commits meanwhile); returns how many. A forgotten node that comes back
  // is recorded again by its next heartbeat, as a new one. Test:
  // StoreNodeTest.StaleNodesWhoseSlotsOthersTookAreForgotten (both stores).
  virtual absl::StatusOr<int64_t> ForgetStaleNodes(int64_t stale_for_us,
                                                   int64_t limit) = 0;

  // StoreApi::RequeueOrphans()
  //
  // Moves this node's RUNNING rows of `owned` (same epochs, still this
  // node's) whose ids are not in `running_ids` back to PENDING (FAILED when
  // their last allowed attempt had started); with `include_scheduled`
  // (after a lost connection) its SCHEDULED rows too, so that rows a
  // statement committed without its reply reaching us are loaded again.
  // Returns how many.
  virtual absl::StatusOr<int64_t> RequeueOrphans(
      const std::string& node, absl::Span<const SlotEpoch> owned,
      const std::vector<std::string>& running_ids, int max_attempts,
      bool include_scheduled) = 0;

  // StoreApi::MarkStarted()
  //
  // Counts attempts whose handlers started: sets each row's `attempt` to
  // the mark's if the row is still RUNNING under the mark's version.
  // Returns how many rows changed.
  virtual absl::StatusOr<int64_t> MarkStarted(
      absl::Span<const StartMark> marks) = 0;

  // StoreApi::ClaimDue()
  //
  // Horizon load: claims the tasks of `owned` (still this node's, same
  // epochs, lease valid) due before now + `horizon_us` as SCHEDULED under
  // the slot's epoch, up to `limit` of them, earliest first, atomically.
  // Claims the PENDING tasks and those a former owner left claimed: tasks
  // SCHEDULED under another epoch than the lease's (a takeover leaves them
  // so), and RUNNING under another epoch (a former owner's fire that
  // committed after the takeover); of those RUNNING ones, the ones whose
  // attempts are used up (`attempt` >= `max_attempts`) become FAILED and
  // are not returned. Reads at most a share of `limit` from each slot, so
  // a load costs about its limit whatever the table holds; `more` says rows
  // were left over. Tested by StoreTakeoverTest and StorePlansTest.
  virtual absl::StatusOr<Claimed> ClaimDue(const std::string& node,
                                           absl::Span<const SlotEpoch> owned,
                                           int64_t horizon_us, int64_t limit,
                                           int max_attempts) = 0;
  // The same with no limit on attempts.
  absl::StatusOr<Claimed> ClaimDue(const std::string& node,
                                   absl::Span<const SlotEpoch> owned,
                                   int64_t horizon_us, int64_t limit) {
    return ClaimDue(node, owned, horizon_us, limit,
                    std::numeric_limits<int>::max());
  }

  // StoreApi::Unclaim()
  //
  // Gives claimed tasks back (a full wheel keeps the earliest rows): moves
  // each of `entries` that is still SCHEDULED under the entry's epoch and
  // due time back to PENDING, for a later `ClaimDue()`. A row fired,
  // replaced, cancelled or claimed under another epoch since is left
  // alone. Returns how many rows changed.
  virtual absl::StatusOr<int64_t> Unclaim(
      absl::Span<const WheelEntry> entries) = 0;

  // StoreApi::StartRunning()
  //
  // Fire: moves the given SCHEDULED tasks that are due on the store's clock
  // to RUNNING if this node holds their slot, under a valid lease, in the
  // epoch they were claimed in (a takeover increments the slot's epoch, so
  // a former owner matches nothing); the ones not due yet come back in
  // `not_due`. Atomic. `db_now_us` is read after the due check. Each started
  // task's `attempt` is the next one; the row counts it only once
  // `MarkStarted()` or `Complete()` records it. An occurrence of a
  // recurring schedule (occurrence_id.h) carries its schedule's name and
  // instant in `task.schedule` and `task.occurrence`.
  virtual absl::StatusOr<FireResult> StartRunning(
      const std::string& node, absl::Span<const WheelEntry> entries) = 0;

  // StoreApi::NextDueBySlot()
  //
  // The read-only load of the planned core (docs/durable-core-plan.md, step
  // 2; the engine does not call it yet): for each of `owned` (each slot at
  // most once) that `node` still holds under that epoch with a valid lease
  // on the database's clock, the slot, its epoch and the due time of its
  // earliest waiting row (PENDING, or SCHEDULED under any epoch; `kNoDueUs`
  // when none) and the priority of the row it gives next (`SlotDue`), and
  // `db_now_us`. Writes nothing (no row version, no row lock) and reads
  // about one index entry per slot, plus one per priority in use for a
  // slot with due rows. Tests:
  // StoreSlotFireTest.NextDueWritesNothing and the cases beside it, on both
  // stores.
  virtual absl::StatusOr<SlotDues> NextDueBySlot(
      const std::string& node, absl::Span<const SlotEpoch> owned) = 0;

  // StoreApi::FireSlots()
  //
  // The fire by slot of the planned core (step 2; not used by the engine
  // yet): one atomic statement takes the due rows (`due_us` at or before
  // the database's now) of `owned` (each slot at most once), each slot
  // fenced by its lease row read in the same statement (owner `node`, the
  // given epoch, lease valid), waiting rows only (PENDING, or SCHEDULED
  // under any epoch: never RUNNING or finished), higher priority first,
  // then in due order, then by id (through `tw_timer_priority`: one range
  // per priority in use, so a fire reads the rows it takes and a probe per
  // priority, whatever waits later), at most `free_by_kind[kind]` of each kind
  // named (a name no task can carry gets none), at most `others_free` of
  // the kinds it does not name, together (the kinds without a handler
  // here, whose attempts the engine snoozes; 0: none of them), at most
  // `limit` in all, and at
  // most a share of each kind from one slot (`limit` over the slots held,
  // rounded up: the statement reads about its limit however many rows are
  // due, and a slot with more keeps them, its next due time already due;
  // the whole `limit` while that reads at most `kSlotFireExactRows` over
  // the slots held, so that a small fire is exact in priority order),
  // passing over (never waiting for) rows another transaction holds
  // locked; a row
  // passed over still counts against its kind's share, so the fire may
  // start fewer than it could. It writes them RUNNING as `StartRunning()`
  // writes a fired row (a new version; the epoch the lease's), and does not
  // count their attempts: each `Started` carries the next attempt, counted
  // by `MarkStarted()` or `Complete()`, as today. Returns the attempts,
  // each held slot's next due time after the fire (as `NextDueBySlot()`),
  // with the rows it picked and did not start (`SlotDue::skipped`), and
  // `db_now_us`. Tests: StoreSlotFireTest (never early, fenced, kind
  // shares, the limit, each slot's share, locked rows skipped, RUNNING and
  // finished rows left alone), on both stores but the locked rows
  // (PostgreSQL only); StorePlansTest.TheSlotLoadAndFireReadAboutTheirLimit.
  // Rows of a lower priority than `min_priority` are left waiting (the
  // engine passes the best priority of the due slots it did not name, so
  // that no row of a slot named overtakes it; INT_MIN: none left).
  virtual absl::StatusOr<SlotFire> FireSlots(const std::string& node,
                                             absl::Span<const SlotEpoch> owned,
                                             const KindCapacity& free_by_kind,
                                             int64_t others_free, int64_t limit,
                                             int min_priority) = 0;

  // StoreApi::Complete()
  //
  // Records the outcomes of a batch of attempts (compare-and-set on state
  // RUNNING and version). Retries due within `horizon_us` go straight back
  // to SCHEDULED (same epoch). With `log.record`, writes each written
  // outcome's attempt record in the same statement. Atomic.
  virtual absl::StatusOr<CompleteResult> Complete(
      absl::Span<const Completion> completions, int64_t horizon_us,
      const AttemptLog& log) = 0;

  // StoreApi::DeleteFinished()
  //
  // Deletes up to `limit` SUCCESS/FAILED rows of `owned` that finished
  // before now - `retain_us`; returns how many.
  virtual absl::StatusOr<int64_t> DeleteFinished(
      absl::Span<const SlotEpoch> owned, int64_t retain_us, int64_t limit) = 0;

  // StoreApi::Listen()
  //
  // Subscribes this instance to wake-ups (slots notified by inserts and
  // `NotifyDue()`) and stop requests (`CancelTask()` of a RUNNING task).
  virtual absl::Status Listen() = 0;

  // StoreApi::socket()
  //
  // A file descriptor that becomes readable when notifications arrive, to
  // poll (-1 when broken).
  virtual int socket() const = 0;

  // StoreApi::DrainNotifications()
  //
  // Reads what arrived; appends the slots notified (`kAllSlots` for a "*").
  // `stops` (may be null) receives the attempts of running tasks that
  // `CancelTask()` deleted: the id and the row's version (0 when the
  // notification named none: a process of an older release sent it).
  virtual absl::Status DrainNotifications(
      std::vector<int>* slots, std::vector<LiveAttempt>* stops = nullptr) = 0;
};

// StoreFactory: opens one store (one connection); for building a
// scheduler over stores a test provides (durable/testing/store_injection.h).
using StoreFactory = std::function<absl::StatusOr<std::unique_ptr<StoreApi>>()>;

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_STORE_API_H_
