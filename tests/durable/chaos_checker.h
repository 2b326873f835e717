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
  // An occurrence of a recurring schedule (added by the checker for the
  // ids the handlers saw): it may be absent or unfinished at the end.
  bool recurring = false;
  // The start of an admin Retry() of the FAILED task (0: none): the runs
  // after it are a new round of attempts.
  int64_t admin_retry_us = 0;
  // An admin Discard() (of a FAILED task) was called: it may be absent.
  bool discarded = false;
  // A replace call began after the task's first run: it may run again.
  bool may_run_again = false;
};

// One call of the replace family on a task id (ScheduleOrReplace in a
// mode, or Reschedule), with its absolute due time and what it answered.
struct ChaosReplaceCall {
  enum Mode { kReplace = 0, kKeepEarlier = 1, kKeepLater = 2, kReschedule = 3 };
  std::string id;
  Mode mode = kReplace;
  int64_t due_us = 0;
  int64_t begin_us = 0;  // Wall clock when called and when it returned.
  int64_t end_us = 0;
  // The `ScheduleOutcome` as an int; -1 for an error (applied or not).
  int outcome = -1;
};

// One handler call (test_runs), the database's clock as it was recorded.
struct ChaosRun {
  std::string id;
  std::string node;
  int attempt = 0;
  int64_t at_us = 0;
  // Set by the checker: the earliest the handler may have started.
  int64_t start_us = 0;
  // With the workload's handler (scheduler_process --verdicts): the kind,
  // the verdict it returned ("ok", "fail", "snooze", "retry", "discard",
  // "park", "nap", "stopped"; empty: never returned) and when it returned
  // (0: never), and the process ("node-pid") that ran it.
  std::string kind = "";
  std::string verdict = "";
  int64_t end_us = 0;
  std::string process = "";
};

// A due time a task row got: the due time of attempt `attempt` + 1.
struct ChaosDue {
  std::string id;
  int slot = 0;
  int attempt = 0;
  int64_t due_us = 0;
  int64_t at_us = 0;  // When the row got it (database clock, uncommitted).
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
  std::vector<ChaosReplaceCall> replaces;
  // Calls that answered an error no fault of the test explains.
  std::vector<std::string> call_errors;
  // Each kind's limit per scheduler process (TaskKind::max_in_flight).
  std::map<std::string, int> kind_limits;
};

struct ChaosLimits {
  int max_attempts = 3;
  // Runs of one task at most (a bound on the damage of repeated fences).
  int max_runs = 6;
  // How much earlier than its logged time a run may have started (the
  // handler records its call after it started).
  int64_t start_slack_us = 500000;
  // The places of a scheduler (DurableOptions::max_in_flight), and how late
  // a task of a kind without a limit may start while its scheduler has a
  // free place and no fault struck its node, the server or its slot since
  // the due time less `late_fault_window_us` (0: not checked).
  int max_in_flight = 16;
  int64_t late_bound_us = 0;
  int64_t late_fault_window_us = 0;
  // Whether the rules that fail on today's code because of a known defect
  // of issue 37 count as violations (else they are `known_defect_findings`):
  // rule 3's "two runs at once in one process" (defect 5: a scheduler that
  // takes its own expired slot back re-runs its live attempts) and rule 9
  // (defect 3: FireQueue waits for a quarter of max_in_flight).
  bool defect3_fails = false;
  bool defect5_fails = false;
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
  int64_t replace_ids_checked = 0;    // Final due time matched the model.
  int64_t replace_ids_unchecked = 0;  // A call overlapped a run.
  int64_t kind_peak = 0;              // Most runs of one limited kind at once.
  int64_t late_max_us = 0;            // The latest start checked (rule 9).
  // Findings of the rules that defect3_fails and defect5_fails gate, when
  // they are off.
  std::vector<std::string> known_defect_findings;
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
// Runs are ordered by attempt, then by their start: the logged time less
// `start_slack_us`, or the "stop" before a "cont" logged up to 4 slacks
// before the run.
//   6. No slot taken from a live lease (lease_takeovers is empty).
// With the workload's history (chaos_model.cc):
//   7. Replace modes: for each id touched only by the replace family, the
//      due time it had when it first ran is what the modes' rules give over
//      the calls, in some serial order consistent with real time (a call
//      that returned before another began comes first) and with the outcome
//      each caller got (an errored call may or may not have applied; one
//      that ran while a reply to the producer was lost may answer as
//      applied twice: the client sent it again).
//   8. No kind over its limit: in each scheduler process, the runs of a
//      limited kind overlapping at any instant (logged start to logged
//      return, both inside the real attempt) never exceed its limit.
//   9. No free place idle: a run of a kind without a limit starts at most
//      `late_bound_us` after its due time, unless its process had all its
//      places but one busy at some instant meanwhile (a place looks free
//      while its outcome is written) or a fault struck since shortly
//      before the due time.
// A snooze does not count its attempt: a run after a run that snoozed may
// repeat its attempt; a run after an admin Retry() starts a new round.
ChaosReport CheckChaos(const ChaosHistory& history, const ChaosLimits& limits);

// CheckWorkload()
//
// Rules 7 to 9 (called by CheckChaos(); `runs_by_id` ordered by start).
void CheckWorkload(
    const ChaosHistory& history, const ChaosLimits& limits,
    const std::map<std::string, std::vector<ChaosRun>>& runs_by_id,
    ChaosReport* report);

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_CHAOS_CHECKER_H_
