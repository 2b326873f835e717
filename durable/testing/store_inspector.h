// Copyright 2026 The timingwheel Authors.
//
// store_inspector.h
// -----------------------------------------------------------------------------
//
// Read (and, where a test must fake a fault, force) the durable store's
// tables from a test, without the test knowing them. Tests and benchmarks
// ask the same questions of the database again and again: how many tasks
// are in a state, who holds a slot, which epoch a lease is at, what the
// attempt history of a task says. `StoreInspector` answers them by name;
// it is the one place test code knows the schema (`tw_timer`,
// `tw_slot_lease`, `tw_node`, `tw_attempt`, `tw_kind`, `tw_schedule`), so a
// change of the schema is a change here, not in every test. Every
// statement is constant text with its values passed as parameters
// (`PQexecParams`, binary), so an id may hold any byte.
//
// For tests only (the target is `testonly`); production code reads the
// store through `Store`, `AdminStore` and `ScheduleStore`.
//
// This file defines:
//
//   * `TaskMatch`: which tasks a count or summary covers (state, id, id
//     prefix, payload, attempt, epoch), each condition optional, all of
//     them ANDed.
//   * `TaskSummary`: count, attempt, due-time and slot aggregates over the
//     matching tasks, with the database's clock at the same instant.
//   * `TaskRow`: one task's row, with its slot's lease owner.
//   * `LeaseMatch`, `LeaseSummary`, `LeaseRow`: the same for slot leases.
//   * `AttemptRow`: one row of a task's attempt history.
//   * `InsertedTask`: a row written straight into the task table (no
//     notification: only a load finds it).
//   * `StoreInspector`: the questions, and the few named writes that fake
//     a fault (a lease run out, a node's heartbeat lost, a row deleted
//     under its owner).
//
// Its companion `StoreLock` (store_lock.h) holds a table or a row locked.
//
// Example:
//
//   StoreInspector store(db->conninfo());
//   EXPECT_EQ(*store.CountTasks(TaskMatch().State(TaskState::kSuccess)), 8);
//   EXPECT_EQ(*store.CountSlots(LeaseMatch().Owner("node-a")), 0);
//
// Thread safety: thread-safe. Every call opens a connection of its own and
// closes it; the inspector keeps nothing but its connection string.

#ifndef TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_H_
#define TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "durable/task.h"

namespace timingwheel {
namespace durable_testing {

// TaskMatch
//
// The tasks a count or summary covers: every condition set is required
// (AND); none set matches every task. Set with the chained setters:
// `TaskMatch().State(TaskState::kSuccess).Attempt(1)`.
struct TaskMatch {
  // TaskMatch::Id(): the one task `id` (bytes).
  TaskMatch& Id(std::string value) {
    id = std::move(value);
    return *this;
  }
  // TaskMatch::IdPrefix(): ids that start with `prefix` (bytes).
  TaskMatch& IdPrefix(std::string prefix) {
    id_prefix = std::move(prefix);
    return *this;
  }
  // TaskMatch::Payload(): whose payload is `payload` (bytes).
  TaskMatch& Payload(std::string value) {
    payload = std::move(value);
    return *this;
  }
  // TaskMatch::State(): in `state`.
  TaskMatch& State(TaskState value) {
    state = value;
    return *this;
  }
  // TaskMatch::NotState(): in any state but `state`.
  TaskMatch& NotState(TaskState value) {
    not_state = value;
    return *this;
  }
  // TaskMatch::StateBefore(): in a state numbered below `state`
  // (`StateBefore(TaskState::kSuccess)`: not finished).
  TaskMatch& StateBefore(TaskState value) {
    state_before = value;
    return *this;
  }
  // TaskMatch::StateAtLeast(): in `state` or a state numbered above it
  // (`StateAtLeast(TaskState::kSuccess)`: finished).
  TaskMatch& StateAtLeast(TaskState value) {
    state_at_least = value;
    return *this;
  }
  // TaskMatch::Attempt(): whose attempt counter is `n`.
  TaskMatch& Attempt(int n) {
    attempt = n;
    return *this;
  }
  // TaskMatch::NotAttempt(): whose attempt counter is not `n`.
  TaskMatch& NotAttempt(int n) {
    not_attempt = n;
    return *this;
  }
  // TaskMatch::AttemptAbove(): whose attempt counter is above `n`.
  TaskMatch& AttemptAbove(int n) {
    attempt_above = n;
    return *this;
  }
  // TaskMatch::NotClaimedUnder(): PENDING, or stamped with an epoch below
  // `epoch` (not claimed by an owner of that epoch or later).
  TaskMatch& NotClaimedUnder(int64_t epoch) {
    not_claimed_under = epoch;
    return *this;
  }
  // TaskMatch::AtLeaseEpoch(): stamped with its slot lease's current epoch.
  TaskMatch& AtLeaseEpoch() {
    at_lease_epoch = true;
    return *this;
  }
  // TaskMatch::FinishedAfter(): finished (SUCCESS or FAILED) after
  // `unix_us` (database clock, microseconds).
  TaskMatch& FinishedAfter(int64_t unix_us) {
    finished_after_us = unix_us;
    return *this;
  }

  std::optional<std::string> id;
  std::string id_prefix;  // Empty: any id.
  std::optional<std::string> payload;
  std::optional<TaskState> state;
  std::optional<TaskState> not_state;
  std::optional<TaskState> state_before;
  std::optional<TaskState> state_at_least;
  std::optional<int> attempt;
  std::optional<int> not_attempt;
  std::optional<int> attempt_above;
  std::optional<int64_t> not_claimed_under;
  bool at_lease_epoch = false;
  std::optional<int64_t> finished_after_us;
};

// TaskSummary
//
// Aggregates over the tasks a `TaskMatch` covers. The minima and maxima
// are 0 (`min_finished_us`: -1) when no task matches.
struct TaskSummary {
  int64_t count = 0;
  int64_t max_attempt = 0;
  int64_t min_due_us = 0;  // Database clock, Unix microseconds.
  int64_t max_due_us = 0;
  int64_t min_finished_us = -1;  // Of the finished ones; -1 when none.
  int64_t distinct_slots = 0;
  int64_t now_us = 0;  // The database's clock when the summary was taken.
};

// TaskRow
//
// One task's row, as stored. Times are Unix microseconds on the database's
// clock.
struct TaskRow {
  std::string id;
  int slot = 0;
  TaskState state = TaskState::kPending;
  int64_t due_us = 0;
  int64_t version = 0;
  int64_t epoch = 0;
  int attempt = 0;
  std::string payload;
  std::optional<std::string> last_error;
  std::optional<int64_t> finished_us;
  std::string kind;
  int priority = 0;
  std::optional<std::string> owner;  // Its slot's lease owner, if any.
  int64_t lease_epoch = 0;           // Its slot lease's epoch now.
  int64_t now_us = 0;  // The database's clock when the row was read.
};

// LeaseMatch
//
// The slot leases a count or summary covers; as `TaskMatch`, all conditions
// set are required.
struct LeaseMatch {
  // LeaseMatch::Owner(): held (live or not) by `node`.
  LeaseMatch& Owner(std::string node) {
    owner = std::move(node);
    return *this;
  }
  // LeaseMatch::NotOwner(): not recorded as held by `node` (free, or
  // another's).
  LeaseMatch& NotOwner(std::string node) {
    not_owner = std::move(node);
    return *this;
  }
  // LeaseMatch::Owned(): recorded as held by some node (live or not).
  LeaseMatch& Owned() {
    owned = true;
    return *this;
  }
  // LeaseMatch::Touched(): ever taken: an owner recorded or an epoch above 0.
  LeaseMatch& Touched() {
    touched = true;
    return *this;
  }
  // LeaseMatch::FreeOrExpired(): no owner, or a lease that has run out on
  // the database's clock.
  LeaseMatch& FreeOrExpired() {
    free_or_expired = true;
    return *this;
  }
  // LeaseMatch::LeaseBeyond(): a lease that runs out more than `us`
  // microseconds after the database's now.
  LeaseMatch& LeaseBeyond(int64_t us) {
    lease_beyond_us = us;
    return *this;
  }

  std::optional<std::string> owner;
  std::optional<std::string> not_owner;
  bool owned = false;
  bool touched = false;
  bool free_or_expired = false;
  std::optional<int64_t> lease_beyond_us;
};

// LeaseSummary
//
// Aggregates over the slot leases a `LeaseMatch` covers (epochs: 0 when
// none matches).
struct LeaseSummary {
  int64_t count = 0;
  int64_t distinct_owners = 0;  // Recorded owners, NULL not counted.
  int64_t min_epoch = 0;
  int64_t max_epoch = 0;
};

// LeaseRow
//
// One slot's lease row.
struct LeaseRow {
  int slot = 0;
  std::optional<std::string> owner;
  int64_t epoch = 0;
  int64_t lease_until_us = 0;
  int64_t horizon_us = 0;
};

// AttemptRow
//
// One row of a task's attempt history, as `tw_attempt` stores it.
struct AttemptRow {
  int attempt = 0;
  int outcome = 0;  // The stored number of the attempt's outcome.
  std::string node_id;
  int64_t started_us = 0;
  int64_t finished_us = 0;
  std::optional<std::string> error;
};

// InsertedTask
//
// A task row `StoreInspector::InsertTask()` writes straight into the table.
// `due_in_us` is relative to the database's now (absolute with
// `due_absolute`); a finished row (as the owner's cleanup would find it)
// sets `finished_us` or `finished_now`. The version comes from the store's
// sequence, as an insert of its own would take it.
struct InsertedTask {
  std::string id;
  int slot = 0;
  int64_t due_in_us = 0;
  bool due_absolute = false;  // `due_in_us` is a Unix time, not a delay.
  TaskState state = TaskState::kPending;
  std::string payload = "p";
  int64_t epoch = 0;
  bool epoch_of_lease = false;  // Its slot lease's epoch instead of `epoch`.
  int attempt = 0;
  std::string kind;
  int priority = 0;
  std::optional<std::string> last_error;
  std::optional<int64_t> finished_us;  // Unix microseconds.
  bool finished_now = false;           // finished_us = the database's now.
};

// StoreInspector
//
// The questions tests ask of the store's tables, one statement each on a
// connection of its own to `conninfo`. Every method returns the database's
// error as a status (connection refused, schema missing).
class StoreInspector {
 public:
  explicit StoreInspector(std::string conninfo)
      : conninfo_(std::move(conninfo)) {}

  const std::string& conninfo() const { return conninfo_; }

  // Tasks -------------------------------------------------------------------

  // StoreInspector::CountTasks()
  //
  // The number of tasks `match` covers (every task by default).
  absl::StatusOr<int64_t> CountTasks(const TaskMatch& match = {}) const;

  // StoreInspector::SummarizeTasks()
  //
  // Count, attempt, due-time and slot aggregates of the tasks `match`
  // covers, in one statement.
  absl::StatusOr<TaskSummary> SummarizeTasks(const TaskMatch& match = {}) const;

  // StoreInspector::Task()
  //
  // Task `id`'s row; NotFound when there is none.
  absl::StatusOr<TaskRow> Task(const std::string& id) const;

  // StoreInspector::Tasks()
  //
  // The rows of the tasks `match` covers, in id order (by due time with
  // `by_due`).
  absl::StatusOr<std::vector<TaskRow>> Tasks(const TaskMatch& match = {},
                                             bool by_due = false) const;

  // StoreInspector::DueTimes()
  //
  // Each covered task's due time by id (one column read: cheap for large
  // tables).
  absl::StatusOr<std::map<std::string, int64_t>> DueTimes(
      const TaskMatch& match = {}) const;

  // StoreInspector::DbNowUs()
  //
  // The database's clock, as the store reads it (Unix microseconds).
  absl::StatusOr<int64_t> DbNowUs() const;

  // Slot leases and nodes ---------------------------------------------------

  // StoreInspector::CountSlots()
  //
  // The number of slot lease rows `match` covers.
  absl::StatusOr<int64_t> CountSlots(const LeaseMatch& match = {}) const;

  // StoreInspector::SummarizeLeases()
  //
  // Count, owner and epoch aggregates of the leases `match` covers.
  absl::StatusOr<LeaseSummary> SummarizeLeases(
      const LeaseMatch& match = {}) const;

  // StoreInspector::Lease()
  //
  // Slot `slot`'s lease row; NotFound when the slot does not exist.
  absl::StatusOr<LeaseRow> Lease(int slot) const;

  // StoreInspector::SlotsPerOwner()
  //
  // How many slots each recorded owner holds (free slots under "").
  absl::StatusOr<std::map<std::string, int64_t>> SlotsPerOwner() const;

  // StoreInspector::CountNodes()
  //
  // The number of registered nodes (live or not: the rows of `tw_node`).
  absl::StatusOr<int64_t> CountNodes() const;

  // StoreInspector::HasNode()
  //
  // Whether `node` is registered.
  absl::StatusOr<bool> HasNode(const std::string& node) const;

  // StoreInspector::CountNodesExcept()
  //
  // The number of registered nodes other than `node`.
  absl::StatusOr<int64_t> CountNodesExcept(const std::string& node) const;

  // Attempt history, kinds, schedules ---------------------------------------

  // StoreInspector::Attempts()
  //
  // Task `id`'s attempt history, oldest first (by finish, then attempt).
  absl::StatusOr<std::vector<AttemptRow>> Attempts(const std::string& id) const;

  // StoreInspector::CountAttempts()
  //
  // The number of attempt-history rows of every task, or of task `id`.
  absl::StatusOr<int64_t> CountAttempts() const;
  absl::StatusOr<int64_t> CountAttempts(const std::string& id) const;

  // StoreInspector::CountKinds()
  //
  // The number of kinds reserved by `node`.
  absl::StatusOr<int64_t> CountKinds(const std::string& node) const;

  // StoreInspector::CountSchedules()
  //
  // The number of recurring schedules stored.
  absl::StatusOr<int64_t> CountSchedules() const;

  // StoreInspector::ScheduleWrittenUs()
  //
  // When recurring schedule `name` was last written (its creation or the
  // last advance: the database's clock, Unix microseconds); NotFound when
  // there is no such schedule.
  absl::StatusOr<int64_t> ScheduleWrittenUs(const std::string& name) const;

  // StoreInspector::SchemaExists()
  //
  // Whether the store's schema has been created (its version table exists).
  absl::StatusOr<bool> SchemaExists() const;

  // StoreInspector::SchemaVersion()
  //
  // The schema version the store records.
  absl::StatusOr<int64_t> SchemaVersion() const;

  // StoreInspector::WatchEarlyTakeovers()
  //
  // Once the schema exists: from now on, logs every slot taken from an
  // owner whose lease had not run out on the database's clock (a trigger
  // on the lease table writes the table `lease_takeovers`: slot,
  // old_owner, new_owner, early_us). Call once per database.
  absl::Status WatchEarlyTakeovers() const;

  // StoreInspector::CountEarlyTakeovers()
  //
  // The number of slots taken early since `WatchEarlyTakeovers()` (must
  // stay 0).
  absl::StatusOr<int64_t> CountEarlyTakeovers() const;

  // Writes that fake a fault (tests only) -----------------------------------

  // StoreInspector::ForceSchemaVersion()
  //
  // Records `version` as the schema's version (as a newer or older binary
  // would have left it), changing nothing else.
  absl::Status ForceSchemaVersion(int64_t version) const;

  // StoreInspector::ExpireLeases()
  //
  // Makes every slot's lease run out now (as after an owner's stall), with
  // owners and epochs left as they are. With `skip_locked`, leaves alone
  // (without waiting) the lease rows another transaction holds locked.
  // Returns the rows changed.
  absl::StatusOr<int64_t> ExpireLeases(bool skip_locked = false) const;

  // StoreInspector::SetLeasesOf()
  //
  // Makes the leases `node` holds run out `in_us` microseconds after the
  // database's now. Returns the rows changed.
  absl::StatusOr<int64_t> SetLeasesOf(const std::string& node,
                                      int64_t in_us) const;

  // StoreInspector::ExpireNode()
  //
  // Sets `node`'s heartbeat to the epoch (as if it stopped long ago).
  // Returns the rows changed.
  absl::StatusOr<int64_t> ExpireNode(const std::string& node) const;

  // StoreInspector::ForceState()
  //
  // Sets task `id`'s state (and nothing else), as a fault or an earlier
  // run would have left it. Returns the rows changed.
  absl::StatusOr<int64_t> ForceState(const std::string& id,
                                     TaskState state) const;

  // StoreInspector::ForceClaimed()
  //
  // Sets task `id` SCHEDULED under `epoch` (as a claim by an owner of that
  // epoch would, committed late). Returns the rows changed.
  absl::StatusOr<int64_t> ForceClaimed(const std::string& id,
                                       int64_t epoch) const;

  // StoreInspector::ForceAllSucceeded()
  //
  // Marks every task SUCCESS, finished at the database's now (as if each
  // ran). Returns the rows changed.
  absl::StatusOr<int64_t> ForceAllSucceeded() const;

  // StoreInspector::ForceDueAtEarliest()
  //
  // Moves every task's due time to the earliest one's (one instant for
  // all). Returns the rows changed.
  absl::StatusOr<int64_t> ForceDueAtEarliest() const;

  // StoreInspector::DeleteTask()
  //
  // Deletes task `id`'s row (and with it its attempt history), under its
  // owner, as a raw cleanup would. Returns the rows deleted.
  absl::StatusOr<int64_t> DeleteTask(const std::string& id) const;

  // StoreInspector::InsertTask()
  //
  // Writes `task`'s row straight into the table: no notification is sent,
  // so only a load finds it.
  absl::Status InsertTask(const InsertedTask& task) const;

  // StoreInspector::InsertAttempt()
  //
  // Writes one attempt-history row of task `id` (which must exist).
  absl::Status InsertAttempt(const std::string& id,
                             const AttemptRow& row) const;

  // StoreInspector::DeleteAttempts()
  //
  // Deletes every attempt-history row. Returns the rows deleted.
  absl::StatusOr<int64_t> DeleteAttempts() const;

  // StoreInspector::RegisterKind()
  //
  // Records `kind` as reserved by `node` at `registered_us` (Unix
  // microseconds; by default the database's now).
  absl::Status RegisterKind(
      const std::string& kind, const std::string& node,
      std::optional<int64_t> registered_us = std::nullopt) const;

  // StoreInspector::SetKindAndPriority()
  //
  // Sets task `id`'s kind and priority. Returns the rows changed.
  absl::StatusOr<int64_t> SetKindAndPriority(const std::string& id,
                                             const std::string& kind,
                                             int priority) const;

 private:
  std::string conninfo_;
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_H_
