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
// `Store` implements `StoreApi` (store_api.h), which states the contracts
// of its methods (the state machine, fencing by epoch, idempotence by id).
//
// Thread safety: a `Store` is thread-compatible (one thread at a time; the
// scheduler guards each of its stores with a mutex).

#ifndef TIMINGWHEEL_DURABLE_SQL_STORE_H_
#define TIMINGWHEEL_DURABLE_SQL_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/sql/migrations.h"
#include "durable/sql/store_api.h"
#include "durable/task.h"

namespace timingwheel {
namespace durable_internal {

class PgParams;
class PgResult;

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

// KnownKinds
//
// Kinds a connection found registered, trusted without asking again for
// `trusted_for_us` after the set was last emptied (a kind forgotten
// meanwhile is refused once that has passed).
struct KnownKinds {
  absl::flat_hash_set<std::string> kinds;
  int64_t since_us = 0;  // When `kinds` was last emptied (absl::Now()).
  int64_t trusted_for_us = 60 * 1000 * 1000;
};

// CheckKinds()
//
// OK when every row's kind is empty or registered (tw_kind); NotFound
// naming the first unknown kind otherwise. Kinds found are added to
// `known` (may be null), which later calls consult first.
absl::Status CheckKinds(PGconn* conn, absl::Span<const InsertRow> rows,
                        KnownKinds* known);

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
// With `transaction_pooler`, the connection goes through a pooler in
// transaction mode (PgBouncer's pool_mode = transaction), where a session's
// state does not outlive a transaction: no settings are made (the limits
// are ignored) and statements are sent unnamed (PQexecParams), never
// prepared by name.
struct SessionLimits {
  int64_t statement_timeout_ms = 0;
  int64_t lock_timeout_ms = 0;
  bool transaction_pooler = false;
  // The session's `application_name` (not set when empty): a scheduler
  // tags every connection of one process with one tag, so that a
  // replacement ending a stale holder ends all of its sessions, and a
  // reconnecting process tells its own former session from another
  // process. ASCII, at most 63 bytes.
  std::string application_name;
  // How long a kind found registered is trusted without asking again
  // (KnownKinds).
  int64_t known_kinds_for_ms = 60 * 1000;
};

// Store
//
// One connection to the database and the statements of the durable tier:
// `StoreApi` over PostgreSQL. Thread-compatible.
class Store final : public StoreApi {
 public:
  // Store::Connect()
  //
  // Connects to `conninfo`; `absl::UnavailableError` (without the password)
  // when the database cannot be reached.
  static absl::StatusOr<std::unique_ptr<Store>> Connect(
      const std::string& conninfo, SessionLimits limits = SessionLimits());

  ~Store() override;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // StoreApi (see store_api.h for each method's contract). In SQL: stop
  // requests travel on "timingwheel_stop", wake-ups on "timingwheel"
  // (payloads are comma-separated slots, or "*" for all); attempt records
  // go to tw_attempt; `LockNode()` takes a session-level advisory lock;
  // `EnsureSchema()` is serialized by an advisory lock.
  absl::StatusOr<bool> LockNode(const std::string& node) override;
  absl::StatusOr<NodeRelock> RelockNode(const std::string& node) override;
  absl::StatusOr<bool> TakeOverNode(const std::string& node,
                                    int64_t ttl_us) override;
  absl::Status Reconnect() override;
  absl::Status EnsureSchema(int slot_count) override;
  absl::Status CheckSchema(int slot_count) override;
  absl::StatusOr<CancelOutcome> CancelTask(const std::string& id) override;
  absl::StatusOr<ReplaceResult> Replace(
      const Inserter& inserter, absl::Span<const ReplaceRow> rows) override;
  absl::StatusOr<InsertResult> Insert(
      const Inserter& inserter, absl::Span<const InsertRow> rows) override;
  absl::Status NotifyDue(absl::Span<const WheelEntry> entries) override;
  absl::StatusOr<bool> Cancel(const std::string& id) override;
  absl::StatusOr<TaskInfo> Get(const std::string& id) override;
  absl::StatusOr<int64_t> RegisterKinds(const std::string& node,
                                        absl::Span<const std::string> kinds,
                                        int64_t forget_after_us) override;
  absl::StatusOr<Renewal> Renew(const std::string& node,
                                absl::Span<const SlotEpoch> owned,
                                int64_t ttl_us, int64_t horizon_us,
                                bool leaving) override;
  using StoreApi::Acquire;
  absl::StatusOr<std::vector<SlotEpoch>> Acquire(
      const std::string& node, int count, int64_t ttl_us, int max_attempts,
      int64_t horizon_us, absl::Span<const LiveAttempt> live) override;
  absl::Status Release(const std::string& node,
                       absl::Span<const SlotEpoch> slots) override;
  absl::Status RemoveNode(const std::string& node) override;
  absl::StatusOr<int64_t> ForgetStaleNodes(int64_t stale_for_us,
                                           int64_t limit) override;
  absl::StatusOr<int64_t> RequeueOrphans(
      const std::string& node, absl::Span<const SlotEpoch> owned,
      const std::vector<std::string>& running_ids, int max_attempts,
      bool include_scheduled) override;
  absl::StatusOr<int64_t> MarkStarted(
      absl::Span<const StartMark> marks) override;
  using StoreApi::ClaimDue;
  absl::StatusOr<Claimed> ClaimDue(const std::string& node,
                                   absl::Span<const SlotEpoch> owned,
                                   int64_t horizon_us, int64_t limit,
                                   int max_attempts) override;
  absl::StatusOr<int64_t> Unclaim(
      absl::Span<const WheelEntry> entries) override;
  absl::StatusOr<FireResult> StartRunning(
      const std::string& node, absl::Span<const WheelEntry> entries) override;
  // The planned core's read-only load and fire by slot (SQL in
  // store_slot_fire.cc).
  absl::StatusOr<SlotDues> NextDueBySlot(
      const std::string& node, absl::Span<const SlotEpoch> owned) override;
  absl::StatusOr<SlotFire> FireSlots(const std::string& node,
                                     absl::Span<const SlotEpoch> owned,
                                     const KindCapacity& free_by_kind,
                                     int64_t others_free, int64_t limit,
                                     int min_priority) override;
  absl::StatusOr<CompleteResult> Complete(
      absl::Span<const Completion> completions, int64_t horizon_us,
      const AttemptLog& log) override;
  absl::StatusOr<int64_t> DeleteFinished(absl::Span<const SlotEpoch> owned,
                                         int64_t retain_us,
                                         int64_t limit) override;
  absl::Status Listen() override;
  int socket() const override;
  absl::Status DrainNotifications(
      std::vector<int>* slots,
      std::vector<LiveAttempt>* stops = nullptr) override;

  // The recurring schedules (schedule_store_api.h; the SQL in
  // schedule_store.cc).
  absl::StatusOr<ScheduleWrite> CreateSchedule(
      const RecurringSchedule& schedule, int slot,
      const Inserter& inserter) override;
  absl::StatusOr<ScheduleWrite> UpdateSchedule(
      const RecurringSchedule& schedule, const Inserter& inserter) override;
  absl::Status PauseSchedule(const std::string& name) override;
  absl::StatusOr<ScheduleWrite> ResumeSchedule(
      const std::string& name, const Inserter& inserter) override;
  absl::StatusOr<bool> DeleteSchedule(const std::string& name) override;
  absl::StatusOr<std::vector<ScheduleInfo>> ListSchedules() override;
  absl::StatusOr<ScheduleInfo> GetSchedule(const std::string& name) override;
  absl::StatusOr<ScheduleWrite> AdvanceSchedule(
      const std::string& name, const Inserter& inserter) override;
  absl::StatusOr<CompleteAndAdvanceResult> CompleteAndAdvance(
      absl::Span<const Completion> completions, int64_t horizon_us,
      absl::Span<const std::string> names, const Inserter& inserter,
      const AttemptLog& log) override;
  absl::StatusOr<DueScheduleList> DueSchedules(absl::Span<const int> slots,
                                               int64_t horizon_us,
                                               int64_t limit) override;

  // The connection (for tests that read plans, and the schedules' SQL).
  PGconn* conn() { return conn_; }

 private:
  Store(PGconn* conn, std::string redacted, std::vector<std::string> secrets,
        SessionLimits limits)
      : conn_(conn),
        redacted_(std::move(redacted)),
        secrets_(std::move(secrets)),
        limits_(limits) {
    known_kinds_.trusted_for_us = limits_.known_kinds_for_ms * 1000;
  }

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
  KnownKinds known_kinds_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_STORE_H_
