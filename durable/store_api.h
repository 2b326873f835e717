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

#ifndef TIMINGWHEEL_DURABLE_STORE_API_H_
#define TIMINGWHEEL_DURABLE_STORE_API_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/task.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace durable_internal {

// SlotEpoch: a slot and the epoch under which this process holds it.
struct SlotEpoch {
  int slot = 0;
  int64_t epoch = 0;
};

// A task claimed into (or inserted straight into) an owner's wheel.
struct WheelEntry {
  std::string id;
  int slot = 0;
  int64_t due_us = 0;
  int64_t epoch = 0;
  std::string kind;  // Empty: the default kind.
  int priority = 0;
};

// What a statement that claims tasks returns: the tasks, and the database's
// clock read as late in the statement as it can be (as it returned its last
// row), to convert due times to the process's clock. A later reading places
// tasks earlier on the process's clock, but never before their due time:
// the reading still precedes the reply (see `LocalDueNanos()`). (Only the
// insert's is read when it starts: the scheduler converts nothing with it.)
struct Claimed {
  std::vector<WheelEntry> tasks;
  int64_t db_now_us = 0;
  // Rows were left that this load could have claimed (it reached its limit,
  // or a slot its share of it): load again.
  bool more = false;
  // Rows within the limit that another transaction held locked, so this
  // load passed them over: load again soon (not at once: the lock may be a
  // caller's open transaction).
  int64_t skipped = 0;
};

// What `StoreApi::Renew()` returns.
struct Renewal {
  int64_t live_nodes = 1;    // Heartbeat within the TTL, this one included.
  std::vector<int> renewed;  // The owned slots still held (the rest are lost).
};

// A row to insert. `due_or_delay_us` is absolute (microseconds since the
// Unix epoch) unless `relative`, when it is a delay after the database's now.
struct InsertRow {
  std::string id;
  std::string payload;
  int slot = 0;
  int64_t due_or_delay_us = 0;
  bool relative = false;
  std::string kind;  // Empty, or registered (tw_kind): see CheckKinds().
  int priority = 0;  // In [kMinPriority, kMaxPriority].
};

// Who inserts. Rows are always inserted PENDING; rows in the inserter's own
// slots (by the lease rows the statement read) due within its horizon are
// returned (it loads them at once), rows of other owners due within that
// owner's horizon (`tw_slot_lease.horizon_us`) notify them at commit.
struct Inserter {
  std::string node_id;  // Empty: a plain client, never an owner.
  int64_t horizon_us = 0;
  int slot_count = 0;  // Checked against the store's.
};

// What an insert returns.
struct InsertResult {
  // Inserted rows the statement found in the inserter's own slots, due
  // within its horizon; `epoch` is the lease epoch it read. No notification
  // was sent for them: the lease row read may be stale by the commit, so the
  // inserter checks its own lease after the commit (and calls `NotifyDue()`
  // for the ones it cannot vouch for).
  std::vector<WheelEntry> mine;
  // Rows that existed already as identical retries and are still PENDING
  // (slot and stored due time; epoch 0). Nothing was notified for them:
  // the first try's reply may have been lost before its owner heard of it.
  std::vector<WheelEntry> identical;
  int64_t db_now_us = 0;  // The database's clock during the statement.
};

// How `Store::Replace()` treats an id that exists already (the values are
// the statement's).
enum class ReplaceRule : int16_t {
  kReplace = 0,         // Take the row's due time and payload.
  kKeepEarlier = 1,     // Take them only if the row is due earlier.
  kKeepLater = 2,       // Take them only if the row is due later.
  kRescheduleOnly = 3,  // As kReplace, for a PENDING or SCHEDULED task only:
                        // never inserts, never restarts a finished one.
};

// One row of `Store::Replace()`; without `has_payload` the stored payload
// is kept (kRescheduleOnly).
struct ReplaceRow {
  InsertRow row;
  ReplaceRule rule = ReplaceRule::kReplace;
  bool has_payload = true;
};

// What `Store::Replace()` did with one row: the task's state before the
// statement (-1: there was none) and whether the row was written.
struct ReplaceAnswer {
  std::string id;
  int prior_state = -1;
  bool written = false;
};

// The answers (in the rows' order) and, as for an insert, the written rows
// due soon in the inserter's own slots (`mine`) and the database's clock.
struct ReplaceResult {
  std::vector<ReplaceAnswer> answers;
  InsertResult inserted;
};

// The largest notification payload sent; a wake-up for more slots than fit
// is sent as "*" (every listening owner loads). PostgreSQL's limit is 8,000
// bytes.
inline constexpr int64_t kMaxNotifyPayloadBytes = 7000;

// What `DrainNotifications()` appends for a "*" notification: all slots.
inline constexpr int kAllSlots = -1;

// A task moved to RUNNING for one attempt.
struct Started {
  DurableTask task;
  int slot = 0;
  int64_t epoch = 0;
  int64_t version = 0;
  int64_t started_us = 0;  // The fire, on the database's clock.
};

// The result of the fire statement: the attempts to run now, and the tasks
// the database says are not due yet (the process's clock ran ahead).
struct FireResult {
  std::vector<Started> started;
  std::vector<WheelEntry> not_due;
  int64_t db_now_us = 0;
};

// An attempt whose handler has started (counted by `Store::MarkStarted()`).
struct StartMark {
  std::string id;
  int64_t version = 0;
  int attempt = 0;
};

// How an attempt ended.
// kSnooze: run again after `backoff_us`, this attempt not counted.
enum class Outcome : int16_t {
  kSuccess = 0,
  kRetry = 1,
  kFailed = 2,
  kSnooze = 3,
};

struct Completion {
  std::string id;
  int64_t version = 0;
  int attempt = 0;  // The attempt that ran (counted as started).
  int slot = 0;     // The task's slot (not written: the process's books).
  Outcome outcome = Outcome::kSuccess;
  int64_t backoff_us = 0;  // kRetry, kSnooze: due again this much later.
  std::string error;       // For kRetry and kFailed (and a kSnooze that
                           // says why: it becomes the last error).
  int64_t started_us = 0;  // The attempt's fire (for its history record).
};

// Who writes completions, for the attempt history (tw_attempt): the node
// id recorded with each attempt, and whether to record them at all.
struct AttemptLog {
  std::string node_id;
  bool record = false;
};

struct CompleteResult {
  int64_t written = 0;              // Rows whose version still matched:
  int64_t succeeded = 0;            //   now SUCCESS,
  int64_t failed = 0;               //   now FAILED,
  int64_t retried = 0;              //   retries (SCHEDULED or PENDING).
  std::vector<WheelEntry> retries;  // Retries due within the horizon,
  int64_t db_now_us = 0;            // already SCHEDULED for this owner.
};

// StoreApi
//
// The statements of the durable tier, one call each (see the file comment
// for the promises every implementation keeps).
class StoreApi {
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
  // Records that `node` runs the tasks of `kinds`, so that clients may
  // schedule them. A registered kind is never removed.
  virtual absl::Status RegisterKinds(const std::string& node,
                                     absl::Span<const std::string> kinds) = 0;

  // StoreApi::Renew()
  //
  // One lease round of a live owner, as one statement: records `node`'s
  // heartbeat, extends the leases of `owned` that are still this node's
  // under the same epoch (and unexpired) by `ttl_us`, recording the owner's
  // `horizon_us` in them (inserters notify it of rows due within it), and
  // counts the live nodes (heartbeat within `ttl_us`, this one included).
  // The owned slots not in `renewed` are lost.
  virtual absl::StatusOr<Renewal> Renew(const std::string& node,
                                        absl::Span<const SlotEpoch> owned,
                                        int64_t ttl_us, int64_t horizon_us) = 0;

  // StoreApi::Acquire()
  //
  // Takes up to `count` free or expired slots, giving each a new epoch
  // (above the lease's and above every epoch its SCHEDULED and RUNNING tasks
  // carry), re-stamping their RUNNING tasks as PENDING under it (those whose
  // attempts are used up become FAILED), and recording the owner's
  // `horizon_us`. Atomic. Their SCHEDULED tasks keep the former epoch (no
  // fire of the former owner matches them any more) until the new owner's
  // `ClaimDue()` claims them: one write per task moved, not two.
  virtual absl::StatusOr<std::vector<SlotEpoch>> Acquire(
      const std::string& node, int count, int64_t ttl_us, int max_attempts,
      int64_t horizon_us) = 0;

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

  // StoreApi::StartRunning()
  //
  // Fire: moves the given SCHEDULED tasks that are due on the store's clock
  // to RUNNING if this node holds their slot, under a valid lease, in the
  // epoch they were claimed in (a takeover increments the slot's epoch, so
  // a former owner matches nothing); the ones not due yet come back in
  // `not_due`. Atomic. `db_now_us` is read after the due check. Each started
  // task's `attempt` is the next one; the row counts it only once
  // `MarkStarted()` or `Complete()` records it.
  virtual absl::StatusOr<FireResult> StartRunning(
      const std::string& node, absl::Span<const WheelEntry> entries) = 0;

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
  // `stops` (may be null) receives the ids of running tasks that
  // `CancelTask()` deleted.
  virtual absl::Status DrainNotifications(
      std::vector<int>* slots, std::vector<std::string>* stops = nullptr) = 0;

  // StoreApi::conn()
  //
  // The PostgreSQL connection, for the recurring schedules' transactions
  // (schedule_store.h); null for a store that is not PostgreSQL's, where
  // those fail with `kNeedsPostgres`.
  virtual PGconn* conn() = 0;
};

// StoreFactory: opens one store (one connection); for building a
// scheduler over stores a test provides (durable/testing/store_injection.h).
using StoreFactory = std::function<absl::StatusOr<std::unique_ptr<StoreApi>>()>;

// The error of a recurring-schedule call on a store without a connection.
inline constexpr char kNeedsPostgres[] =
    "recurring schedules need the PostgreSQL store";

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_STORE_API_H_
