// Copyright 2026 The timingwheel Authors.
//
// A scheduler's Prometheus text (DurableScheduler::RenderPrometheus(),
// durable/scheduler_metrics.h): known values render exactly; a scheduler
// that ran tasks reports counts, and histogram counts, that match what ran,
// and lateness measured from the due time.

#include "durable/scheduler_metrics.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "durable/metrics_http.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/durable/durable_test_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_internal::RenderSchedulerMetrics;
using durable_internal::SchedulerHistograms;
using durable_internal::StatementKind;

// Every sample of `text`: "name{labels}" -> value. Fails the test on a line
// that is neither a comment nor "series value".
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> samples;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    double value = 0;
    if (space == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(space + 1), &value)) {
      ADD_FAILURE() << "not a sample: " << line;
      continue;
    }
    samples[std::string(line.substr(0, space))] = value;
  }
  return samples;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SchedulerMetricsTest, RendersKnownValuesExactly) {
  DurableMetrics m;
  m.attempts = 7;
  m.succeeded = 5;
  m.failed = 1;
  m.in_flight = 2;
  m.slots_owned = 1024;
  SchedulerHistograms h({"", "mail \"x\""});
  h.fire_lateness.Observe(0.0002);
  h.fire_lateness.Observe(90);
  h.ObserveHandler(1, /*outcome=retry*/ 1, 0.003);
  h.ObserveHandler(7, 0, 0.5);  // No such kind: the total only.
  const std::string text = RenderSchedulerMetrics("node \"7\"\n", m, h);

  EXPECT_TRUE(Contains(text,
                       "# HELP timingwheel_durable_attempts_total Attempts "
                       "fired (SCHEDULED -> RUNNING).\n"
                       "# TYPE timingwheel_durable_attempts_total counter\n"
                       "timingwheel_durable_attempts_total{node=\"node "
                       "\\\"7\\\"\\n\"} 7\n"))
      << text;
  EXPECT_TRUE(Contains(text,
                       "# TYPE timingwheel_durable_in_flight gauge\n"
                       "timingwheel_durable_in_flight{node=\"node "
                       "\\\"7\\\"\\n\"} 2\n"))
      << text;
  const std::string late = "timingwheel_durable_fire_lateness_seconds";
  const std::string node = "node=\"node \\\"7\\\"\\n\"";
  EXPECT_TRUE(
      Contains(text, absl::StrCat("# TYPE ", late, " histogram\n", late,
                                  "_bucket{", node, ",le=\"0.0001\"} 0\n", late,
                                  "_bucket{", node, ",le=\"0.00025\"} 1\n")))
      << text;
  EXPECT_TRUE(Contains(
      text, absl::StrCat(late, "_bucket{", node, ",le=\"60\"} 1\n", late,
                         "_bucket{", node, ",le=\"120\"} 2\n", late, "_bucket{",
                         node, ",le=\"+Inf\"} 2\n", late, "_sum{", node,
                         "} 90.0002\n", late, "_count{", node, "} 2\n")))
      << text;
  EXPECT_TRUE(Contains(
      text,
      absl::StrCat("timingwheel_durable_statement_duration_seconds_count{",
                   node, ",statement=\"claim_due\"} 0\n")))
      << text;

  // Every DurableMetrics field, every statement kind; each family's HELP
  // and TYPE once.
  std::map<std::string, double> samples = Samples(text);
  for (const char* name : {"scheduled_total",
                           "loads_total",
                           "loaded_total",
                           "attempts_total",
                           "succeeded_total",
                           "retried_total",
                           "failed_total",
                           "dropped_total",
                           "abandoned_total",
                           "not_due_total",
                           "unknown_kind_total",
                           "db_errors_total",
                           "reconnects_total",
                           "slots_acquired_total",
                           "slots_lost_total",
                           "finished_deleted_total",
                           "statement_timeouts_total",
                           "requeued_total",
                           "late_outcomes_total",
                           "outcomes_refused_total",
                           "held_behind_own_attempt_total",
                           "wheel_pending",
                           "waiting",
                           "in_flight",
                           "slots_owned",
                           "node_id_lost"}) {
    const std::string series =
        absl::StrCat("timingwheel_durable_", name, "{", node, "}");
    EXPECT_EQ(samples.count(series), 1u) << series;
    EXPECT_TRUE(
        Contains(text, absl::StrCat("# HELP timingwheel_durable_", name, " ")));
  }
  EXPECT_EQ(
      samples[absl::StrCat("timingwheel_durable_slots_owned{", node, "}")],
      1024);
  for (const char* statement :
       {"lease_round", "claim_due", "start_running", "mark_started", "complete",
        "delete_finished", "requeue_orphans"}) {
    EXPECT_EQ(samples.count(absl::StrCat(
                  "timingwheel_durable_statement_duration_seconds_count{", node,
                  ",statement=\"", statement, "\"}")),
              1u)
        << statement;
  }
  size_t type_lines = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "# TYPE ")) ++type_lines;
  }
  // Fields, then three histogram families and the two per kind.
  EXPECT_EQ(type_lines, 26u + 5u);
  // Per kind (the default kind's label is empty), escaped.
  const std::string outcomes =
      "timingwheel_durable_kind_handler_outcomes_total";
  EXPECT_EQ(
      samples[absl::StrCat(outcomes, "{", node,
                           ",kind=\"mail \\\"x\\\"\",outcome=\"retried\"}")],
      1)
      << text;
  EXPECT_EQ(samples.count(absl::StrCat(outcomes, "{", node,
                                       ",kind=\"\",outcome=\"succeeded\"}")),
            1u)
      << text;
  EXPECT_EQ(samples[absl::StrCat("timingwheel_durable_handler_duration_"
                                 "seconds_count{",
                                 node, "}")],
            2);
  EXPECT_EQ(samples[absl::StrCat("timingwheel_durable_kind_handler_duration_"
                                 "seconds_count{",
                                 node, ",kind=\"mail \\\"x\\\"\"}")],
            1)
      << text;
}

// A scheduler without a default handler runs no task of the default kind:
// no kind="" series, while its named kinds have theirs.
TEST(SchedulerMetricsTest, NoDefaultHandlerRendersNoDefaultKindSeries) {
  SchedulerHistograms h({"", "mail"}, /*default_kind_handled=*/false);
  h.ObserveHandler(1, 0, 0.5);
  const std::string text = RenderSchedulerMetrics("n", DurableMetrics(), h);
  EXPECT_EQ(text.find(",kind=\"\""), std::string::npos) << text;
  EXPECT_NE(text.find("kind=\"mail\",outcome=\"succeeded\"} 1"),
            std::string::npos)
      << text;
}

TEST(SchedulerMetricsTest, ObserveStatementLandsInItsKind) {
  SchedulerHistograms h;
  h.ObserveStatement(StatementKind::kComplete,
                     std::chrono::steady_clock::now());
  EXPECT_EQ(h.statement_duration[static_cast<int>(StatementKind::kComplete)]
                ->Snapshot()
                .count,
            1u);
  EXPECT_EQ(h.statement_duration[static_cast<int>(StatementKind::kClaimDue)]
                ->Snapshot()
                .count,
            0u);
}

class SchedulerMetricsRunTest : public DurableFixture {};

TEST_F(SchedulerMetricsRunTest, CountsAndHistogramsMatchWhatRan) {
  DurableOptions options = Options("metrics-node");
  options.retry.max_attempts = 2;
  recorder_.SetResult([](const DurableTask& task) {
    return task.id == "fails" ? absl::InternalError("no") : absl::OkStatus();
  });
  std::unique_ptr<DurableScheduler> scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        scheduler->Schedule(absl::StrCat("ok-", i), absl::ZeroDuration(), "p")
            .ok());
  }
  ASSERT_TRUE(scheduler->Schedule("fails", absl::ZeroDuration(), "p").ok());
  // Due 90 s ago (the database and this process share the machine's clock):
  // its handler starts about 90 s after its due time.
  ASSERT_TRUE(
      scheduler->ScheduleAt("overdue", absl::Now() - absl::Seconds(90), "p")
          .ok());
  // 6 successes (5 + overdue), and "fails" failed twice: 8 attempts.
  ASSERT_TRUE(WaitFor([&] {
    DurableMetrics m = scheduler->Metrics();
    return m.succeeded == 6 && m.failed == 1 && m.in_flight == 0;
  })) << scheduler->RenderPrometheus();

  const std::string text = scheduler->RenderPrometheus();
  std::map<std::string, double> s = Samples(text);
  const std::string node = "{node=\"metrics-node\"}";
  EXPECT_EQ(s["timingwheel_durable_scheduled_total" + node], 7);
  EXPECT_EQ(s["timingwheel_durable_attempts_total" + node], 8);
  EXPECT_EQ(s["timingwheel_durable_succeeded_total" + node], 6);
  EXPECT_EQ(s["timingwheel_durable_retried_total" + node], 1);
  EXPECT_EQ(s["timingwheel_durable_failed_total" + node], 1);
  EXPECT_EQ(s["timingwheel_durable_in_flight" + node], 0);
  EXPECT_EQ(s["timingwheel_durable_slots_owned" + node], 1);
  EXPECT_EQ(recorder_.size(), 8u);

  // One lateness and one duration per handler that ran.
  const std::string late = "timingwheel_durable_fire_lateness_seconds";
  EXPECT_EQ(s[late + "_count" + node], 8);
  EXPECT_EQ(s["timingwheel_durable_handler_duration_seconds_count" + node], 8);
  // The same, by kind (the default kind: kind=""), by what handlers asked.
  const auto kind_outcome = [&](const char* outcome) {
    return s[absl::StrCat(
        "timingwheel_durable_kind_handler_outcomes_total{node=\"metrics-"
        "node\",kind=\"\",outcome=\"",
        outcome, "\"}")];
  };
  EXPECT_EQ(kind_outcome("succeeded"), 6) << text;
  EXPECT_EQ(kind_outcome("retried"), 1) << text;
  EXPECT_EQ(kind_outcome("failed"), 1) << text;
  EXPECT_EQ(kind_outcome("snoozed"), 0) << text;
  // The overdue task alone is past 60 s late; none is past 120 s.
  EXPECT_EQ(s[late + "_bucket{node=\"metrics-node\",le=\"60\"}"], 7) << text;
  EXPECT_EQ(s[late + "_bucket{node=\"metrics-node\",le=\"120\"}"], 8) << text;
  EXPECT_GE(s[late + "_sum" + node], 90);
  EXPECT_LT(s[late + "_sum" + node], 120);

  // The statements that ran were timed, each under its kind.
  const auto statements = [&](const char* kind) {
    return s[absl::StrCat(
        "timingwheel_durable_statement_duration_seconds_count{node=\"metrics-"
        "node\",statement=\"",
        kind, "\"}")];
  };
  EXPECT_GE(statements("lease_round"), 1);
  EXPECT_GE(statements("claim_due"), 1);
  EXPECT_GE(statements("start_running"), 1);
  EXPECT_GE(statements("complete"), 1);
  // At most one outcome statement per outcome.
  EXPECT_LE(statements("complete"), 8);

  // The same text over HTTP, from the /metrics endpoint.
  MetricsHttpOptions http;
  http.render = [&] { return scheduler->RenderPrometheus(); };
  auto server = MetricsHttpServer::Start(http);
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client("127.0.0.1", (*server)->port());
  auto response = client.Get("/metrics");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_NE(
      response->body.find(
          "timingwheel_durable_attempts_total{node=\"metrics-node\"} 8\n"),
      std::string::npos)
      << response->body;
  (*server)->Stop();  // Before the scheduler goes.
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
