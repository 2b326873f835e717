// Copyright 2026 The timingwheel Authors.
//
// store_lock.h
// -----------------------------------------------------------------------------
//
// `StoreLock`: a lock on part of the durable store's tables, held by a
// transaction of its own until released, so that a test can make the
// store's statements wait (or skip the locked rows) without naming the
// tables. The companion of `StoreInspector` (store_inspector.h), which
// reads the tables; both are for tests only.
//
// Example:
//
//   auto lock = StoreLock::LockTable(conninfo, StoreLock::Table::kTasks);
//   ASSERT_TRUE(lock.ok()) << lock.status();
//   ...  // Statements on the task table wait now.
//   lock->reset();  // Released.
//
// Thread safety: thread-compatible (one connection, one thread at a time).

#ifndef TIMINGWHEEL_DURABLE_TESTING_STORE_LOCK_H_
#define TIMINGWHEEL_DURABLE_TESTING_STORE_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace durable_testing {

// StoreLock
//
// An open transaction holding one lock; destroying it ends the transaction
// (nothing was written) and releases the lock.
class StoreLock {
 public:
  // The tables a test may lock whole.
  enum class Table {
    kTasks,   // The tasks (every insert, claim, fire and completion).
    kLeases,  // The slot leases (acquire, renew, release, the loads).
  };

  // StoreLock::LockTable()
  //
  // Takes `table` in ACCESS EXCLUSIVE mode: every other statement on it,
  // reads included, waits until the lock is released.
  static absl::StatusOr<std::unique_ptr<StoreLock>> LockTable(
      const std::string& conninfo, Table table);

  // StoreLock::LockTask()
  //
  // Locks task `id`'s row FOR UPDATE (a statement that skips locked rows
  // passes it by; one that waits, waits). NotFound when there is no row.
  static absl::StatusOr<std::unique_ptr<StoreLock>> LockTask(
      const std::string& conninfo, const std::string& id);

  // StoreLock::LockLease()
  //
  // Locks slot `slot`'s lease row FOR UPDATE. NotFound when there is no
  // such slot.
  static absl::StatusOr<std::unique_ptr<StoreLock>> LockLease(
      const std::string& conninfo, int slot);

  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

  // Ends the transaction (ROLLBACK), releasing the lock.
  ~StoreLock();

 private:
  explicit StoreLock(PGconn* conn) : conn_(conn) {}

  // Opens a transaction on a new connection and runs `sql` in it, with
  // one parameter `param` (binary or text; none when null); fails with
  // NotFound when `expect_row` and the statement locked no row.
  static absl::StatusOr<std::unique_ptr<StoreLock>> Hold(
      const std::string& conninfo, const char* sql, const std::string* param,
      bool binary_param, bool expect_row);

  PGconn* conn_;
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_STORE_LOCK_H_
