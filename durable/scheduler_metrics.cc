// Copyright 2026 The timingwheel Authors.

#include "durable/scheduler_metrics.h"

#include <cassert>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// Lateness is a wheel wake-up plus a round trip when all is well (well under
// a millisecond to a few), and seconds under backpressure or after a
// takeover: 100 us to about 100 s.
std::vector<double> LatenessBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
          0.25,   0.5,     1,      2.5,   5,      10,    30,   60,    120};
}

// Handlers: 100 us to 5 minutes.
std::vector<double> HandlerBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
          0.25,   0.5,     1,      2.5,   5,      10,    30,   60,    300};
}

// Statements: 50 us (an empty probe is ~90 us here) to the longest
// statement_timeout that makes sense (seconds).
std::vector<double> StatementBounds() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10};
}

constexpr char kPrefix[] = "timingwheel_durable_";

}  // namespace

const char* StatementName(StatementKind kind) {
  switch (kind) {
    case StatementKind::kLeaseRound:
      return "lease_round";
    case StatementKind::kClaimDue:
      return "claim_due";
    case StatementKind::kStartRunning:
      return "start_running";
    case StatementKind::kMarkStarted:
      return "mark_started";
    case StatementKind::kComplete:
      return "complete";
    case StatementKind::kDeleteFinished:
      return "delete_finished";
    case StatementKind::kRequeueOrphans:
      return "requeue_orphans";
  }
  return "unknown";
}

SchedulerHistograms::KindSeries::KindSeries(std::string kind_name)
    : name(std::move(kind_name)), duration(HandlerBounds()) {}

SchedulerHistograms::SchedulerHistograms(std::vector<std::string> kind_names,
                                         bool default_kind_handled)
    : fire_lateness(LatenessBounds()), handler_duration(HandlerBounds()) {
  for (auto& h : statement_duration) {
    h = std::make_unique<prometheus::Histogram>(StatementBounds());
  }
  for (std::string& name : kind_names) {
    kinds.push_back(std::make_unique<KindSeries>(std::move(name)));
  }
  if (!kinds.empty()) kinds[0]->rendered = default_kind_handled;
}

void SchedulerHistograms::ObserveHandler(int kind, int outcome,
                                         double seconds) {
  handler_duration.Observe(seconds);
  if (kind < 0 || kind >= static_cast<int>(kinds.size())) return;
  KindSeries& series = *kinds[kind];
  if (outcome >= 0 && outcome < static_cast<int>(series.outcomes.size())) {
    series.outcomes[outcome].fetch_add(1, std::memory_order_relaxed);
  }
  series.duration.Observe(seconds);
}

void SchedulerHistograms::ObserveStatement(
    StatementKind kind, std::chrono::steady_clock::time_point started) {
  const int index = static_cast<int>(kind);
  assert(index >= 0 && index < kStatementKinds);
  statement_duration[index]->Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count());
}

std::string RenderSchedulerMetrics(absl::string_view node,
                                   const DurableMetrics& m,
                                   const SchedulerHistograms& histograms) {
  const prometheus::Labels labels = {{"node", std::string(node)}};
  prometheus::PrometheusWriter w;
  struct Series {
    const char* name;  // After the prefix.
    const char* help;
    int64_t value;
  };
  const Series counters[] = {
      {"scheduled_total",
       "Tasks this scheduler's Schedule calls accepted (identical retries "
       "included).",
       m.scheduled},
      {"loads_total", "Horizon load statements run.", m.loads},
      {"loaded_total", "Tasks claimed into the wheel by loads.", m.loaded},
      {"attempts_total", "Attempts fired (SCHEDULED -> RUNNING).", m.attempts},
      {"succeeded_total", "SUCCESS outcomes recorded.", m.succeeded},
      {"retried_total", "Failed attempts that will be retried.", m.retried},
      {"failed_total", "FAILED outcomes recorded (attempts used up).",
       m.failed},
      {"dropped_total",
       "Fires or completions the database refused (cancelled, or fenced).",
       m.dropped},
      {"abandoned_total",
       "Attempts whose handler was not started (the lease ran out or moved).",
       m.abandoned},
      {"not_due_total", "Fires the database found early (re-armed).",
       m.not_due},
      {"unknown_kind_total",
       "Attempts snoozed: this scheduler has no handler for their kind.",
       m.unknown_kind},
      {"held_behind_own_attempt_total",
       "Fires held until an attempt of the same task running here ended.",
       m.held_behind_own_attempt},
      {"db_errors_total", "Statements that failed (retried).", m.db_errors},
      {"reconnects_total", "Successful reconnections.", m.reconnects},
      {"slots_acquired_total", "Slots taken over.", m.slots_acquired},
      {"slots_lost_total", "Slots lost (lease expired or fenced).",
       m.slots_lost},
      {"finished_deleted_total", "Finished rows deleted.", m.finished_deleted},
      {"statement_timeouts_total", "Statements cut by statement_timeout.",
       m.statement_timeouts},
      {"requeued_total", "Rows put back to PENDING by this scheduler.",
       m.requeued},
      {"late_outcomes_total",
       "Outcomes written after the maintenance thread ended.", m.late_outcomes},
      {"outcomes_refused_total",
       "Outcomes the database refused (recorded FAILED instead).",
       m.outcomes_refused},
  };
  for (const Series& s : counters) {
    w.AddCounter(absl::StrCat(kPrefix, s.name), s.help, labels,
                 static_cast<double>(s.value));
  }
  const Series gauges[] = {
      {"wheel_pending", "Tasks in the in-process wheel now.", m.wheel_pending},
      {"waiting", "Fired tasks waiting for a handler slot now.", m.waiting},
      {"in_flight", "Handlers running now.", m.in_flight},
      {"slots_owned", "Slots held now.", m.slots_owned},
      {"node_id_lost",
       "1 once a replacement took this scheduler's node id over: it runs "
       "nothing more.",
       m.node_id_lost},
  };
  for (const Series& s : gauges) {
    w.AddGauge(absl::StrCat(kPrefix, s.name), s.help, labels,
               static_cast<double>(s.value));
  }
  w.AddHistogram(absl::StrCat(kPrefix, "fire_lateness_seconds"),
                 "From a task's due time (database clock) to its handler's "
                 "start.",
                 labels, histograms.fire_lateness.Snapshot());
  w.AddHistogram(absl::StrCat(kPrefix, "handler_duration_seconds"),
                 "How long handlers ran.", labels,
                 histograms.handler_duration.Snapshot());
  static constexpr const char* kOutcomeNames[] = {"succeeded", "retried",
                                                  "failed", "snoozed"};
  for (const auto& kind : histograms.kinds) {
    if (!kind->rendered) continue;
    for (size_t o = 0; o < kind->outcomes.size(); ++o) {
      prometheus::Labels with_kind = labels;
      with_kind.emplace_back("kind", kind->name);
      with_kind.emplace_back("outcome", kOutcomeNames[o]);
      w.AddCounter(absl::StrCat(kPrefix, "kind_handler_outcomes_total"),
                   "Handler returns of each kind (the default kind: "
                   "kind=\"\"), by the outcome they asked for.",
                   with_kind,
                   static_cast<double>(
                       kind->outcomes[o].load(std::memory_order_relaxed)));
    }
  }
  for (const auto& kind : histograms.kinds) {
    if (!kind->rendered) continue;
    prometheus::Labels with_kind = labels;
    with_kind.emplace_back("kind", kind->name);
    w.AddHistogram(absl::StrCat(kPrefix, "kind_handler_duration_seconds"),
                   "How long handlers of each kind ran.", with_kind,
                   kind->duration.Snapshot());
  }
  for (int i = 0; i < kStatementKinds; ++i) {
    prometheus::Labels with_kind = labels;
    with_kind.emplace_back("statement",
                           StatementName(static_cast<StatementKind>(i)));
    w.AddHistogram(absl::StrCat(kPrefix, "statement_duration_seconds"),
                   "How long the maintenance thread's store statements took.",
                   with_kind, histograms.statement_duration[i]->Snapshot());
  }
  return w.text();
}

}  // namespace durable_internal

std::string DurableScheduler::RenderPrometheus() const {
  return durable_internal::RenderSchedulerMetrics(node_id(), Metrics(),
                                                  *histograms_);
}

}  // namespace timingwheel
