// Copyright 2026 The timingwheel Authors.
//
// scheduler_metrics.h
// -----------------------------------------------------------------------------
//
// The histograms a `DurableScheduler` keeps beside its `DurableMetrics`
// counters, and the rendering of both as Prometheus text (prometheus.h).
// Every metric is named `timingwheel_durable_*` and carries a `node` label
// (the scheduler's node id); durable/README.md ("Metrics") lists them.
//
// This file defines:
//
//   * `StatementKind`: the store statements the maintenance thread runs,
//     one `statement` label value each.
//   * `SchedulerHistograms`: fire lateness, handler duration, statement
//     duration by kind.
//   * `RenderSchedulerMetrics()`: one scrape's text.
//
// Tests: tests/durable/scheduler_metrics_test.cc.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULER_METRICS_H_
#define TIMINGWHEEL_DURABLE_SCHEDULER_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "durable/durable_scheduler.h"
#include "durable/prometheus.h"

namespace timingwheel {
namespace durable_internal {

// StatementKind
//
// The maintenance thread's store statements, as timed.
enum class StatementKind : int {
  kLeaseRound = 0,  // Heartbeat, renewals, acquisitions and releases.
  kClaimDue,        // The horizon load.
  kStartRunning,    // The fire of a batch (SCHEDULED -> RUNNING).
  kMarkStarted,     // Recording that attempts' handlers started.
  kComplete,        // The outcomes of a batch.
  kDeleteFinished,  // Cleanup of finished rows.
  kRequeueOrphans,  // Putting abandoned attempts back to PENDING.
};
inline constexpr int kStatementKinds = 7;

// StatementName()
//
// The `statement` label value of `kind` ("lease_round", "claim_due", ...).
const char* StatementName(StatementKind kind);

// SchedulerHistograms
//
// What the scheduler observes into; each histogram is thread-safe.
//   * `fire_lateness`: seconds from a task's due time (database clock) to
//     its handler's start (estimated on the database clock: the fire
//     statement's `now()` plus the process-clock time since its reply, so
//     at most a round trip short of the truth). Zero for a task fired
//     early, which the fire statement never allows.
//   * `handler_duration`: seconds a handler ran (real clock).
//   * `statement_duration[kind]`: seconds a maintenance statement took,
//     reply included, successful or not (real clock).
struct SchedulerHistograms {
  // `kind_names`: the label of each KindTable index ("" for the default
  // kind, index 0), in index order. Without `default_kind_handled` (no
  // `DurableOptions::handler`), the default kind's series are not
  // rendered: this scheduler runs none of its tasks.
  explicit SchedulerHistograms(std::vector<std::string> kind_names = {""},
                               bool default_kind_handled = true);

  // One kind's handlers: their outcomes (Outcome's order: success, retry,
  // failed, snooze), as the handlers returned them, and how long they ran.
  struct KindSeries {
    explicit KindSeries(std::string kind_name);
    std::string name;
    bool rendered = true;
    std::array<std::atomic<int64_t>, 4> outcomes{};
    prometheus::Histogram duration;
  };

  // SchedulerHistograms::ObserveHandler()
  //
  // Records a handler of KindTable index `kind` that ran `seconds` and
  // returned `outcome` (an index past the named kinds is ignored).
  void ObserveHandler(int kind, int outcome, double seconds);

  prometheus::Histogram fire_lateness;
  prometheus::Histogram handler_duration;
  std::vector<std::unique_ptr<KindSeries>> kinds;
  std::array<std::unique_ptr<prometheus::Histogram>, kStatementKinds>
      statement_duration;

  // SchedulerHistograms::ObserveStatement()
  //
  // Records a statement of `kind` that began at `started` (steady clock).
  void ObserveStatement(StatementKind kind,
                        std::chrono::steady_clock::time_point started);
};

// RenderSchedulerMetrics()
//
// The Prometheus text of one scheduler: every `DurableMetrics` field (the
// counts as `_total` counters, the "now" fields as gauges) and the
// histograms, each labelled `node="<node>"` (escaped).
std::string RenderSchedulerMetrics(absl::string_view node,
                                   const DurableMetrics& metrics,
                                   const SchedulerHistograms& histograms);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SCHEDULER_METRICS_H_
