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
// store through `Store` and `AdminStore`.
//
// This file defines `StoreInspector`; the values it takes and returns are
// in store_inspector_types.h:
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
#include "durable/testing/store_inspector_types.h"

namespace timingwheel {
namespace durable_testing {

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
