// Copyright 2026 The timingwheel Authors.
//
// statement_gate.h
// -----------------------------------------------------------------------------
//
// Test-only: holds one SQL statement inside the server, at its start, until
// the test lets it go, so that a test can run something else "in the middle"
// of that statement (commit a row it will not see, take a lease it depends
// on) without sleeping and hoping. This file defines:
//
//   * `StatementGate`: a BEFORE ... FOR EACH STATEMENT trigger on one table
//     that makes the first statement whose text contains a given substring
//     wait on an advisory lock the gate holds on its own connection.
//
// What the held statement has done when it waits: it was parsed, planned and
// took its snapshot (READ COMMITTED: the statement's own snapshot), it holds
// its table locks (ROW EXCLUSIVE for a write: other writers and readers go
// on), and it has read no row yet. Rows committed meanwhile are invisible to
// it once it runs, and rows it will update are re-read if changed (the usual
// READ COMMITTED re-check). A data-modifying CTE fires the statement trigger
// of each of its modifying parts, each when that part starts; the gate holds
// the first of them that reaches the gate's table and event.
//
// The match is on `current_query()`, the whole text the client sent
// (a simple query's text, or a prepared statement's Parse text), as an exact
// substring (`position()`, not LIKE). A comment in the statement makes a
// handy unique marker: `UPDATE t SET ... /* held */`.

#ifndef TIMINGWHEEL_DURABLE_TESTING_STATEMENT_GATE_H_
#define TIMINGWHEEL_DURABLE_TESTING_STATEMENT_GATE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace durable_testing {

// StatementGate
//
// One gate: one trigger, its function and its one-shot counter (a sequence),
// named `tw_gate_<random hex>` so that several gates coexist in one database
// (on one table too: each holds its own statement). Thread-safe: the methods
// may be called from any thread, typically the test's main thread while
// another thread's statement waits.
class StatementGate {
 public:
  // StatementGate::Install()
  //
  // Connects to `conninfo`, takes the gate's advisory lock there (the gate is
  // armed from the moment this returns), and creates the trigger on `table`
  // (an SQL name as written, e.g. `t` or `public.t`) for `event` ("INSERT",
  // "UPDATE" or "DELETE"). Only the first statement on `table` for `event`
  // whose text contains `sql_substring` waits; later ones pass. Fails on a
  // bad event, a failed connection or a failed CREATE.
  //
  // With `when` = kAfterWrite the trigger is an AFTER ... FOR EACH
  // STATEMENT one: the statement waits once it has written (and locked)
  // every row it changes and every row its other parts lock, before it
  // returns and commits.
  enum class When { kBeforeWrite, kAfterWrite };
  static absl::StatusOr<std::unique_ptr<StatementGate>> Install(
      const std::string& conninfo, const std::string& table,
      const std::string& event, const std::string& sql_substring,
      When when = When::kBeforeWrite);

  // Releases the statement (if held), then drops the trigger, its function
  // and the sequence (waiting, up to 30 s of lock_timeout, for transactions
  // on the table to end).
  ~StatementGate();

  StatementGate(const StatementGate&) = delete;
  StatementGate& operator=(const StatementGate&) = delete;

  // StatementGate::WaitBlocked()
  //
  // Polls pg_locks (every 2 ms, up to `timeout`) until a statement waits at
  // the gate. Returns true once one has been seen waiting (also on later
  // calls, after Release()); false on timeout or a failed query.
  bool WaitBlocked(absl::Duration timeout);

  // StatementGate::Release()
  //
  // Lets the held statement (and any statement later reaching the gate) go
  // on. Idempotent.
  void Release();

 private:
  StatementGate(PGconn* conn, std::string name, std::string table, int64_t key);

  // Runs `sql` on conn_; mu_ held.
  absl::Status Exec(const std::string& sql);

  std::mutex mu_;
  PGconn* const conn_;  // Used under mu_ only.
  const std::string name_;
  const std::string table_;
  const int64_t key_;  // The advisory lock, in [1, 2^31).
  // Guarded by mu_.
  bool blocked_seen_ = false;
  bool released_ = false;
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_STATEMENT_GATE_H_
