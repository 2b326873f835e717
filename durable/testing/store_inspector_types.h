// Copyright 2026 The timingwheel Authors.
//
// store_inspector_types.h
// -----------------------------------------------------------------------------
//
// The questions and answers of `StoreInspector` (store_inspector.h): which
// tasks or leases a count covers (`TaskMatch`, `LeaseMatch`), the
// summaries and rows it returns (`TaskSummary`, `TaskRow`, `LeaseSummary`,
// `LeaseRow`, `AttemptRow`), and a row to write straight into the task
// table (`InsertedTask`). Plain values; thread-compatible.

#ifndef TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_TYPES_H_
#define TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_TYPES_H_
