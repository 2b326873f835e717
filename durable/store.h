// Copyright 2026 The timingwheel Authors.
//
// store.h
// -----------------------------------------------------------------------------
//
// Every SQL statement of the durable tier, in one place, over one libpq
// connection. Nothing from a caller reaches SQL text: every statement is
// constant and parameterized (`PQexecParams` with binary parameters; batches
// travel as binary arrays), and ids and payloads are bytes (`bytea`).
//
// The schema (versioned; see `kSchemaVersion` and the forward migrations
// in migrations.h) has four tables:
//   tw_meta(key, value)                  schema_version, slot_count
//   tw_timer(task_id PK, slot, due_us, state, version, epoch, attempt,
//            payload, last_error, finished_us, kind, priority)
//            partial index (slot, due_us) WHERE state < 3 (not finished)
//   tw_slot_lease(slot PK, owner, epoch, lease_until_us, horizon_us)
//   tw_version_seq                       every row version (never reused)
//   tw_node(node_id PK, heartbeat_us)
//   tw_kind(kind PK, node_id, registered_us)   kinds schedulers handle
//   tw_attempt(task_id -> tw_timer ON DELETE CASCADE, attempt, outcome,
//              node_id, started_us, finished_us, error)
//   tw_schedule(name PK, ...)            recurring schedules (schedule_store.h)
// Times are microseconds since the Unix epoch on the database's clock
// (`tw_now_us()`, which reads `clock_timestamp()`), the only time authority.
//
// Errors: `absl::UnavailableError` when the connection is lost (the caller
// may `Reconnect()` and retry), `absl::AlreadyExistsError` for a duplicate
// id, `absl::FailedPreconditionError` for a schema this library cannot use,
// `absl::InternalError` otherwise, `absl::InvalidArgumentError` ("invalid
// connection string") for a connection string libpq cannot parse. No
// message contains the connection string's password (see redact.h; tested
// by StoreConnectTest.ErrorsNeverShowThePassword).
//
// The hot single-task statements (inserting one row, `Cancel()`, `Get()`)
// are prepared once per connection (`PQprepare`) and re-prepared after
// `Reconnect()`; they stay parameterized.
//
// Thread safety: a `Store` is thread-compatible (one thread at a time; the
// scheduler guards each of its stores with a mutex).

#ifndef TIMINGWHEEL_DURABLE_STORE_H_
#define TIMINGWHEEL_DURABLE_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/migrations.h"
#include "durable/task.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace durable_internal {

class PgParams;
class PgResult;

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
};

// What `Store::Renew()` returns.
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

// InsertTasks()
//
// Inserts `rows` on `conn` without opening a transaction (so it joins the
// caller's, if one is open), notifying the owners of rows due within their
// horizons (`pg_notify`, delivered at commit; "*" when the slots do not fit
// in one payload). A row whose id exists already is not an error if it is
// an identical retry (same payload and, for an absolute due time, same due
// time); otherwise returns `absl::AlreadyExistsError` (the rows inserted
// before are not undone: roll back the transaction).
// Every row's kind must be empty or registered in tw_kind (NotFound
// naming the first unknown one, before anything is inserted).
absl::StatusOr<InsertResult> InsertTasks(PGconn* conn, const Inserter& inserter,
                                         absl::Span<const InsertRow> rows);

// CheckKinds()
//
// OK when every row's kind is empty or registered (tw_kind); NotFound
// naming the first unknown kind otherwise. Kinds found are added to
// `known` (may be null), which later calls consult first: a registered
// kind is never removed.
absl::Status CheckKinds(PGconn* conn, absl::Span<const InsertRow> rows,
                        absl::flat_hash_set<std::string>* known);

// NotifyDue()
//
// Wakes (`pg_notify`, at commit) the owners of `entries`' slots whose due
// times fall within the owner's horizon, as the insert statement does for
// the rows it inserts. For wake-ups the insert could not send: identical
// retries, and an inserter's own rows whose lease it cannot vouch for.
absl::Status NotifyDue(PGconn* conn, absl::Span<const WheelEntry> entries);

// RedactedConnInfo()
//
// Describes a connection string without its password (host, port, dbname,
// user), for error messages.
std::string RedactedConnInfo(const std::string& conninfo);

// SessionLimits: set on the connection at connect and after every
// reconnect, so that no statement (nor a wait for a lock) can hold a
// process past its lease. Zero or negative: PostgreSQL's default (none).
struct SessionLimits {
  int64_t statement_timeout_ms = 0;
  int64_t lock_timeout_ms = 0;
};

// Store
//
// One connection to the database and the statements of the durable tier.
class Store {
 public:
  // Store::Connect()
  //
  // Connects to `conninfo`; `absl::UnavailableError` (without the password)
  // when the database cannot be reached.
  static absl::StatusOr<std::unique_ptr<Store>> Connect(
      const std::string& conninfo, SessionLimits limits = SessionLimits());

  // Store::LockNode()
  //
  // Takes the session-level advisory lock that marks `node` as held by a
  // live process (released when this connection ends, so a killed
  // process's node id is free as soon as its session ends), waiting up to
  // the session's lock_timeout. False when another live session still
  // holds it then.
  absl::StatusOr<bool> LockNode(const std::string& node);

  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Store::Reconnect()
  //
  // Re-establishes a lost connection (and its LISTEN). Unavailable when the
  // database is still unreachable.
  absl::Status Reconnect();

  // Store::EnsureSchema()
  //
  // Creates the schema with `slot_count` slots, or migrates an older one
  // forward (`MigrateSchema()`, migrations.h), and checks it:
  // FailedPrecondition for a newer schema version or another slot count.
  // Serialized between processes by an advisory lock.
  absl::Status EnsureSchema(int slot_count);

  // Client statements.
  // Store::CancelTask()
  //
  // Deletes the task unless it finished: a PENDING or SCHEDULED one will
  // not run (kCancelled); a RUNNING one's attempt is fenced (its outcome
  // finds no row and is dropped, nothing is retried) and its owner is
  // asked, by a notification on "timingwheel_stop", to tell its handler
  // (kStopRequested). kFinished leaves a SUCCESS or FAILED row alone;
  // kNotFound for an unknown id. (store_cancel.cc; tests: CancelTaskTest.)
  absl::StatusOr<CancelOutcome> CancelTask(const std::string& id);

  // Store::Replace()
  //
  // Inserts, replaces or keeps each row by its rule, in one statement (one
  // transaction); a RUNNING task is never touched. A written row is
  // PENDING with a new version: a SCHEDULED one leaves its owner's wheel
  // (its fire finds it PENDING and is refused) and is claimed again at its
  // new due time; a finished one (SUCCESS or FAILED, not cleaned up yet)
  // becomes a new task (attempts 0, no error). Wakes owners as `Insert()`
  // does (store_replace.cc; tests: ReplaceTest).
  absl::StatusOr<ReplaceResult> Replace(const Inserter& inserter,
                                        absl::Span<const ReplaceRow> rows);

  absl::StatusOr<InsertResult> Insert(const Inserter& inserter,
                                      absl::Span<const InsertRow> rows);
  // See `NotifyDue()` above.
  absl::Status NotifyDue(absl::Span<const WheelEntry> entries);
  // Deletes the task if it is PENDING or SCHEDULED; returns whether it did.
  absl::StatusOr<bool> Cancel(const std::string& id);
  // NotFound when no such task is stored.
  absl::StatusOr<TaskInfo> Get(const std::string& id);

  // Records that `node` runs the tasks of `kinds` (tw_kind), so that
  // clients may schedule them (see CheckKinds()).
  absl::Status RegisterKinds(const std::string& node,
                             absl::Span<const std::string> kinds);

  // Leases. One round of a live owner, in one statement: records `node`'s
  // heartbeat, extends the leases of `owned` that are still this node's
  // under the same epoch by `ttl_us`, recording the owner's `horizon_us` in
  // them (inserters notify it of rows due within it), and counts the live
  // nodes (heartbeat within `ttl_us`, this one included). The slots not
  // renewed are lost.
  absl::StatusOr<Renewal> Renew(const std::string& node,
                                absl::Span<const SlotEpoch> owned,
                                int64_t ttl_us, int64_t horizon_us);
  // Takes up to `count` free or expired slots, incrementing their epochs and
  // re-stamping their SCHEDULED and RUNNING tasks as PENDING under the new
  // epoch (RUNNING ones whose attempts are used up become FAILED), and
  // recording the owner's `horizon_us`. One statement.
  absl::StatusOr<std::vector<SlotEpoch>> Acquire(const std::string& node,
                                                 int count, int64_t ttl_us,
                                                 int max_attempts,
                                                 int64_t horizon_us);
  // Gives `slots` up at once (owner cleared, lease expired).
  absl::Status Release(const std::string& node,
                       absl::Span<const SlotEpoch> slots);
  absl::Status RemoveNode(const std::string& node);
  // Moves this node's RUNNING rows of `owned` (same epochs, still this
  // node's) whose ids are not in `running_ids` back to PENDING (FAILED when
  // their last allowed attempt had started); with `include_scheduled`
  // (after a lost connection) its SCHEDULED rows too, so that rows a
  // statement committed without its reply reaching us are loaded again.
  // Returns how many.
  absl::StatusOr<int64_t> RequeueOrphans(
      const std::string& node, absl::Span<const SlotEpoch> owned,
      const std::vector<std::string>& running_ids, int max_attempts,
      bool include_scheduled);

  // Counts attempts whose handlers started: sets each row's `attempt` to
  // the mark's if the row is still RUNNING under the mark's version.
  // Returns how many rows changed.
  absl::StatusOr<int64_t> MarkStarted(absl::Span<const StartMark> marks);

  // Horizon load: claims the PENDING tasks of `owned` (still this node's,
  // same epochs, lease valid) due before now + `horizon_us` as SCHEDULED,
  // up to `limit` of them, in one statement.
  absl::StatusOr<Claimed> ClaimDue(const std::string& node,
                                   absl::Span<const SlotEpoch> owned,
                                   int64_t horizon_us, int64_t limit);

  // Fire: moves the given SCHEDULED tasks that are due on the database's
  // clock to RUNNING if this node holds their slot, under a
  // valid lease, in the epoch they were claimed in (a takeover re-stamps
  // them, so a former owner matches nothing). One statement. `db_now_us`
  // is read after the due check, as late as `ClaimDue()`'s. Each started
  // task's `attempt` is the next one; the row counts it only once
  // `MarkStarted()` or `Complete()` records it.
  absl::StatusOr<FireResult> StartRunning(const std::string& node,
                                          absl::Span<const WheelEntry> entries);

  // Records the outcomes of a batch of attempts (compare-and-set on state
  // RUNNING and version). Retries due within `horizon_us` go straight back
  // to SCHEDULED (same epoch). With `log.record`, writes each written
  // outcome's attempt record (tw_attempt) in the same statement. One
  // statement.
  absl::StatusOr<CompleteResult> Complete(
      absl::Span<const Completion> completions, int64_t horizon_us,
      const AttemptLog& log);

  // Deletes up to `limit` SUCCESS/FAILED rows of `owned` that finished
  // before now - `retain_us`; returns how many.
  absl::StatusOr<int64_t> DeleteFinished(absl::Span<const SlotEpoch> owned,
                                         int64_t retain_us, int64_t limit);

  // Notifications (LISTEN timingwheel; payloads are comma-separated slots,
  // or "*" for all).
  absl::Status Listen();
  // The connection's socket, to poll for notifications (-1 when broken).
  int socket() const;
  // Reads what arrived on the socket; appends the slots notified
  // (`kAllSlots` for a "*").
  // `stops` (may be null) receives the ids of running tasks that
  // `CancelTask()` deleted ("timingwheel_stop").
  absl::Status DrainNotifications(std::vector<int>* slots,
                                  std::vector<std::string>* stops = nullptr);

  PGconn* conn() { return conn_; }

 private:
  Store(PGconn* conn, std::string redacted, std::vector<std::string> secrets,
        SessionLimits limits)
      : conn_(conn),
        redacted_(std::move(redacted)),
        secrets_(std::move(secrets)),
        limits_(limits) {}

  absl::Status ApplyLimits();

  // Runs the constant statement `sql`, prepared on this connection as
  // `name` the first time (and again after a reconnect).
  absl::StatusOr<PgResult> ExecPrepared(const char* name, const char* sql,
                                        const PgParams& params);

  PGconn* conn_;
  const std::string redacted_;
  // What may be the password in the connection string (see redact.h).
  const std::vector<std::string> secrets_;
  const SessionLimits limits_;
  bool listening_ = false;
  // Names of the statements prepared on the current connection.
  absl::flat_hash_set<std::string> prepared_;
  // Kinds found registered (CheckKinds()).
  absl::flat_hash_set<std::string> known_kinds_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_STORE_H_
