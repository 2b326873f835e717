// Copyright 2026 The timingwheel Authors.
//
// chaos_checker.h
// -----------------------------------------------------------------------------
//
// The checker of the randomized fault test (chaos_test.cc): the history of a
// run (what the test asked for, what the handlers logged, what the table and
// the lease rows went through) and the invariants it must satisfy.
//
//   * `InstallChaosWatch()`: once the schema exists, triggers that log every
//     due time a task row gets (chaos_due: on insert, and each retry's) and
//     every change of a slot's owner or epoch (chaos_lease), with the
//     database's clock.
//   * `LoadChaosHistory()`: reads test_runs, chaos_due, chaos_lease,
//     tw_timer and lease_takeovers.
//   * `CheckChaos()`: the invariants (see its comment); one message per
//     violation, naming the task and the rows involved.
//
// A "fence" of a run R is a takeover of R's slot from R's node after that
// node's lease ran out (the epoch grows, the old lease had expired on the
// database's clock), logged between R's start and the later run: the
// process was killed, stopped past its lease, or cut off long enough. It is
// the only thing that excuses a second run of a task.

#ifndef TIMINGWHEEL_TESTS_DURABLE_CHAOS_CHECKER_H_
#define TIMINGWHEEL_TESTS_DURABLE_CHAOS_CHECKER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace timingwheel {
namespace durable_test {

// What the test asked for, per task id.
struct ChaosIntent {
  enum class Cancel { kNone, kTrue, kFalse, kUnknown };
  bool meant_to_fail = false;
  // Schedule returned OK (false: its outcome is unknown, an error after
  // retries).
  bool scheduled = true;
  Cancel cancel = Cancel::kNone;
  int64_t cancel_returned_us = 0;  // Wall clock (the database's host).
};

// One handler call (test_runs), the database's clock as it was recorded.
struct ChaosRun {
  std::string id;
  std::string node;
  int attempt = 0;
  int64_t at_us = 0;
  // Set by the checker: the earliest the handler may have started.
  int64_t start_us = 0;
};

// A due time a task row got: the due time of attempt `attempt` + 1.
struct ChaosDue {
  std::string id;
  int slot = 0;
  int attempt = 0;
  int64_t due_us = 0;
};

// A change of a slot's owner or epoch.
struct ChaosLease {
  int slot = 0;
  std::string old_owner;  // Empty: none.
  std::string new_owner;
  int64_t old_epoch = 0;
  int64_t new_epoch = 0;
  int64_t old_lease_until_us = 0;
  int64_t at_us = 0;
};

struct ChaosRow {
  int state = 0;
  int attempt = 0;
  int slot = 0;
};

// An injected fault, for the summary; the checker's verdicts rest on the
// table's own log, except that a "stop" ... "cont" of a node moves the start
// of a run it logged just after the "cont" back to the "stop".
struct ChaosFault {
  int64_t at_us = 0;
  std::string kind;
  std::string target;  // A node id, a proxy, or "server".
};

struct ChaosHistory {
  std::map<std::string, ChaosIntent> intents;
  std::vector<ChaosRun> runs;
  std::vector<ChaosDue> dues;
  std::vector<ChaosLease> leases;
  std::map<std::string, ChaosRow> rows;
  std::vector<ChaosFault> faults;
  int64_t early_takeovers = 0;  // lease_takeovers rows.
};

struct ChaosLimits {
  int max_attempts = 3;
  // Runs of one task at most (a bound on the damage of repeated fences).
  int max_runs = 6;
  // How much earlier than its logged time a run may have started (the
  // handler records its call after it started).
  int64_t start_slack_us = 500000;
};

struct ChaosReport {
  std::vector<std::string> violations;
  int64_t runs = 0;
  int64_t doubles = 0;
  std::map<std::string, int64_t> double_causes;  // Fault kind -> count.
  std::vector<std::string> double_details;       // One line per double.
  int64_t succeeded = 0;
  int64_t failed = 0;
  int64_t cancelled = 0;
  std::string Summary() const;
};

// InstallChaosWatch()
//
// Creates chaos_due and chaos_lease and their triggers on tw_timer and
// tw_slot_lease (the schema must exist). Returns an error message, empty on
// success.
std::string InstallChaosWatch(const std::string& conninfo);

// LoadChaosHistory()
//
// Fills runs, dues, leases, rows and early_takeovers of `history`. Returns
// an error message, empty on success.
std::string LoadChaosHistory(const std::string& conninfo,
                             ChaosHistory* history);

// CheckChaos()
//
// The invariants, for every task the test scheduled:
//   1. None lost: a task scheduled (OK) and not cancelled (true or unknown)
//      ends SUCCESS; one meant to fail ends FAILED with the attempts
//      1..max_attempts each run; one not meant to fail ends FAILED only when
//      its attempt max_attempts ran and was fenced.
//   2. None early: each run's logged time >= the due time of its attempt (the
//      latest due time the row got while its attempt was below the run's).
//   3. None twice outside the window: a run of an attempt that ran before,
//      or a run after a successful run, needs a fence of the earlier run;
//      and no task runs more than `max_runs` times.
//   4. Attempts count started attempts: the row's final attempt is the
//      highest attempt a handler was called with, or one less only if that
//      run was fenced.
//   5. Cancelled means cancelled: no run started after a Cancel() that
//      returned true, and no row at the end.
// Runs are ordered by their start: the logged time less `start_slack_us`,
// or the "stop" before a "cont" logged up to 4 slacks before the run.
//   6. No slot taken from a live lease (lease_takeovers is empty).
ChaosReport CheckChaos(const ChaosHistory& history, const ChaosLimits& limits);

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_CHAOS_CHECKER_H_
