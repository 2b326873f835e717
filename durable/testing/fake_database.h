// Copyright 2026 The timingwheel Authors.
//
// fake_database.h
// -----------------------------------------------------------------------------
//
// FakeDatabase: the tables of the durable tier in memory, shared by the
// `FakeStore`s (fake_store.h) that stand for several scheduler and client
// processes on one database. It holds tasks (state, due time, version,
// epoch, attempts, payload, last error), slot leases (owner, epoch, expiry,
// horizon), nodes' heartbeats, registered kinds and recurring schedules,
// and delivers wake-ups
// and stop requests to the stores that listen.
//
// Time is microseconds since the Unix epoch on the database's clock: the
// real clock unless a test injects one (`SetClock()`).
//
// Thread safety: thread-safe; every member may be called from any thread.
// One mutex guards all the tables, so each statement of a `FakeStore` is
// atomic, as one SQL statement is.

#ifndef TIMINGWHEEL_DURABLE_TESTING_FAKE_DATABASE_H_
#define TIMINGWHEEL_DURABLE_TESTING_FAKE_DATABASE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "durable/recurring.h"
#include "durable/sql/store_api.h"
#include "durable/task.h"
#include "timer/internal/mutex.h"

namespace timingwheel {
namespace durable_testing {

class FakeStore;

// FakeDatabase
//
// One database's tables in memory, for the `FakeStore`s over it (share it
// by `std::shared_ptr`). Thread-safe.
class FakeDatabase {
 public:
  FakeDatabase();
  ~FakeDatabase();
  FakeDatabase(const FakeDatabase&) = delete;
  FakeDatabase& operator=(const FakeDatabase&) = delete;

  // FakeDatabase::SetClock()
  //
  // Reads the database's now from `now_us` from here on. Thread-safe.
  void SetClock(std::function<int64_t()> now_us);

  // FakeDatabase::FailNext()
  //
  // The next call of the `FakeStore` method named `method` (on any store
  // over this database) returns `status` and changes nothing
  // (tests/durable/fake_store_test.cc).
  void FailNext(const std::string& method, absl::Status status);

  // FakeDatabase::TaskCount()
  //
  // The number of stored tasks (any state), and of those in `state`.
  int64_t TaskCount();
  int64_t TaskCount(TaskState state);

  // FakeDatabase::WaitingTaskCount()
  //
  // The number of stored tasks waiting for their attempt (PENDING or
  // SCHEDULED), read at one instant; with `not_yet_due`, only those due
  // after the database's clock.
  int64_t WaitingTaskCount(bool not_yet_due);

  // The rows of the tables (tw_timer, tw_slot_lease), and what one
  // listening store has not drained yet.
  struct Task {
    std::string payload;
    int slot = 0;
    int64_t due_us = 0;
    TaskState state = TaskState::kPending;
    int64_t version = 0;
    int64_t epoch = 0;
    int attempt = 0;
    std::string last_error;
    int64_t finished_us = 0;
    std::string kind;
    int priority = 0;
  };
  struct Lease {
    std::string owner;  // Empty: free.
    int64_t epoch = 0;
    int64_t until_us = 0;
    int64_t horizon_us = 0;
  };
  // A row of tw_schedule.
  struct Schedule {
    RecurringSchedule definition;  // As stored (StoredDefinition()).
    int slot = 0;
    bool paused = false;
    int64_t last_us = 0;  // Newest occurrence written or skipped.
    int64_t plan_us = 0;  // AdvancePlan::plan_us (schedule_plan.h).
    int64_t next_us = 0;  // The next run, as reported.
    int64_t version = 0;
    int64_t created_us = 0;
  };
  // What one listening store has not drained yet; `pipe[0]` is its socket.
  struct Listener {
    int pipe[2] = {-1, -1};
    std::vector<int> slots;
    std::vector<durable_internal::LiveAttempt> stops;
  };

  // FakeDatabase::Tasks()
  //
  // A copy of every stored task's row, by id, read at one instant (a test
  // compares versions and epochs before and after a statement).
  std::map<std::string, Task> Tasks();

  // FakeDatabase::Nodes(), SetNodeHeartbeat()
  //
  // The node rows (tw_node: node id -> last heartbeat, on the database's
  // clock), and one written as if its last heartbeat were at
  // `heartbeat_us` (a test ages a node without waiting).
  std::map<std::string, int64_t> Nodes();
  void SetNodeHeartbeat(const std::string& node, int64_t heartbeat_us);

 private:
  friend class FakeStore;

  int64_t NowLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The injected failure for `method`, or OK (and forgets it).
  absl::Status TakeFailure(const std::string& method)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Wakes every listener for `slots` ("*" when empty means nothing).
  void NotifyLocked(const std::set<int>& slots)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopLocked(const std::string& id, int64_t version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether `lease` is `node`'s under `epoch` and still valid at `now_us`.
  static bool Holds(const Lease& lease, const std::string& node, int64_t epoch,
                    int64_t now_us);
  void Signal(Listener& listener);

  internal::Mutex mu_;
  std::function<int64_t()> now_us_ ABSL_GUARDED_BY(mu_);
  int slot_count_ ABSL_GUARDED_BY(mu_) = 0;  // 0: no schema yet.
  int64_t next_version_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<std::string, Task> tasks_ ABSL_GUARDED_BY(mu_);
  std::vector<Lease> leases_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> nodes_ ABSL_GUARDED_BY(mu_);  // Heartbeat.
  // Registered kinds and when each was last registered.
  std::map<std::string, int64_t> kinds_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Schedule> schedules_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> locked_nodes_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const FakeStore*, std::unique_ptr<Listener>> listeners_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Status> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_FAKE_DATABASE_H_
