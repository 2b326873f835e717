// Copyright 2026 The timingwheel Authors.
//
// The dashboard's overview, schedules page, occurrence ids and
// auto-refresh (tools/twctl/serve_pages.h): trouble comes first, schedule
// names and ids are escaped, occurrences show as "NAME @ UTC time" while
// links carry the stored id. No database.

#include <string>
#include <vector>

#include "durable/recurrence/occurrence_id.h"
#include "gtest/gtest.h"
#include "tools/twctl/serve_chart.h"
#include "tools/twctl/serve_html.h"
#include "tools/twctl/serve_pages.h"
#include "tools/twctl/status_summary.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr char kHostile[] = "<script>alert(1)</script>";

bool Has(const std::string& html, const std::string& part) {
  return html.find(part) != std::string::npos;
}

std::string Overview(const StoreStatus& s, const Refresh& refresh = {}) {
  return OverviewPage(s, Summarize(s, absl::Seconds(10)),
                      DueHistogram({}, s.db_now),
                      LatenessHistogram({}, s.db_now), refresh);
}

TEST(ServeOverviewTest, ProblemsComeFirst) {
  StoreStatus s;
  s.db_now = absl::FromUnixSeconds(1764637323);
  const std::string stale = std::string("node") + kHostile;
  AdminNode node;
  node.node_id = stale;
  node.since_heartbeat = absl::Seconds(42);
  s.nodes = {node};
  for (int i = 0; i < 3; ++i) {
    AdminSlot slot;
    slot.slot = i;
    slot.owner = stale;
    slot.epoch = 7;
    s.slots.push_back(slot);
  }
  s.slots_unowned = 3;
  AdminKind mail;
  mail.kind = "mail";
  mail.overdue = 4;
  mail.counts = {4, 0, 0, 0, 2};
  s.kinds = {mail};
  const std::string html = Overview(s);
  EXPECT_FALSE(Has(html, "<script>")) << html;
  const size_t problems = html.find("id=\"problems\" data-healthy=\"no\"");
  ASSERT_NE(problems, std::string::npos) << html;
  // Before the counts and the owners.
  EXPECT_LT(problems, html.find("id=\"counts\""));
  EXPECT_LT(problems, html.find("id=\"owners\""));
  EXPECT_TRUE(Has(html, "<table id=\"stale-nodes\">"));
  EXPECT_TRUE(Has(html, "<tr data-node=\"" + HexEncode(stale) +
                            "\"><td class=\"node\">node&lt;script&gt;"))
      << html;
  EXPECT_TRUE(Has(html, "<td class=\"stale\">42s ago</td>")) << html;
  EXPECT_TRUE(Has(html, "<h2>3 slots without a valid lease</h2>"));
  EXPECT_TRUE(Has(html, "<tr data-owner=\"" + HexEncode(stale) +
                            "\"><td class=\"owner\">node&lt;script&gt;"
                            "alert(1)&lt;/script&gt;</td><td class=\"count\">"
                            "3</td></tr>"))
      << html;
  EXPECT_TRUE(Has(html, "<table id=\"overdue-kinds\">"));
  EXPECT_TRUE(Has(html, "\">mail</a></td><td class=\"count\">4</td>"));
  EXPECT_TRUE(Has(html, "<table id=\"failing-kinds\">"));
  EXPECT_TRUE(Has(html, "state=FAILED&amp;occurrences=include\">2</a>"));
  // Slots per owner: one row per owner, not one per slot.
  EXPECT_TRUE(Has(html, "<table id=\"owners\">"));
  EXPECT_FALSE(Has(html, "data-slot=")) << html;

  StoreStatus healthy;
  const std::string fine = Overview(healthy);
  EXPECT_TRUE(Has(fine, "data-healthy=\"yes\"")) << fine;
  EXPECT_FALSE(Has(fine, "stale-nodes"));
}

TEST(ServeOverviewTest, SchedulesPage) {
  ScheduleInfo every;
  every.definition.name = std::string("tick") + kHostile;
  every.definition.kind = "report";
  every.definition.policy.overlap = Overlap::kRunAnyway;
  every.definition.policy.catch_up = CatchUp::kSkipMissed;
  every.definition.policy.grace = absl::Seconds(30);
  every.definition.policy.max_runs = 2;
  every.spec = "every 3s";
  const absl::Time now = absl::FromUnixSeconds(1764637323);
  every.last_run = now - absl::Seconds(2);
  every.next_run = now + absl::Seconds(1);
  ScheduleInfo paused;
  paused.definition.name = "nightly";
  paused.spec = "0 3 * * * in UTC";
  paused.paused = true;
  const std::string html = SchedulesPage({every, paused}, now);
  EXPECT_FALSE(Has(html, "<script>")) << html;
  const std::string hex = HexEncode(every.definition.name);
  EXPECT_TRUE(Has(html, "<tr data-schedule=\"" + hex +
                            "\"><td class=\"name\">tick&lt;script&gt;"))
      << html;
  EXPECT_TRUE(Has(html, "<td class=\"recurrence\">every 3s</td>"));
  EXPECT_TRUE(Has(html,
                  "<td class=\"policy\">skip missed (grace 30s, at most 2); "
                  "may overlap</td>"))
      << html;
  EXPECT_TRUE(Has(html, "<td class=\"paused\">no</td>"));
  EXPECT_TRUE(Has(html, "<td class=\"last-run\">" +
                            ShowTime(now - absl::Seconds(2)) +
                            " <span class=\"note\">(2s ago)</span></td>"))
      << html;
  EXPECT_TRUE(Has(html, "<td class=\"next-run\">" +
                            ShowTime(now + absl::Seconds(1)) +
                            " <span class=\"note\">(in 1s)</span></td>"));
  EXPECT_TRUE(Has(html, "href=\"/tasks?schedulex=" + hex + "\">occurrences"));
  // Paused: no next run.
  EXPECT_TRUE(Has(
      html, "<td class=\"paused\"><span class=\"badge paused-badge\">paused"));
  EXPECT_TRUE(Has(html, "<td class=\"next-run\">-</td>"));
  EXPECT_TRUE(Has(html, "run once; skip while running"));
  // Read-only: no forms. Writable: Pause, or Resume for a paused one.
  EXPECT_FALSE(Has(html, "<form"));
  const std::string writable = SchedulesPage({every, paused}, now, {}, true);
  EXPECT_TRUE(Has(writable,
                  "<form method=\"post\" action=\"/pause-schedule\""
                  " class=\"action pause-schedule\"><input "
                  "type=\"hidden\" name=\"namex\" value=\"" +
                      hex + "\">"))
      << writable;
  EXPECT_TRUE(Has(writable, "action=\"/resume-schedule\""));
  const Refresh every_10s{10, "/schedules"};
  EXPECT_TRUE(Has(SchedulesPage({every}, now, every_10s), "http-equiv"));
  EXPECT_FALSE(Has(SchedulesPage({every}, now, every_10s, true), "http-equiv"))
      << "a token being typed would be lost";
  EXPECT_TRUE(Has(writable, "value=\"" + HexEncode("nightly") + "\">"));
}

TEST(ServeOverviewTest, OccurrencesAreReadableAndFiltered) {
  const std::string name = std::string("s") + kHostile;
  // 2025-12-02 00:42:03.5 UTC.
  const int64_t us = int64_t{1764636123} * 1000000 + 500000;
  const std::string id = durable_internal::OccurrenceId(name, us);
  TaskPage page;
  TaskSummary t;
  t.id = id;
  page.tasks.push_back(t);
  TaskList only;
  only.occurrences = TaskFilter::Occurrences::kOnly;
  const std::string html = TasksPage(only, page, 25);
  EXPECT_FALSE(Has(html, "<script>")) << html;
  // Shown as the schedule's name and the instant; linked by the stored id.
  EXPECT_TRUE(
      Has(html, "<a href=\"/task?idx=" + HexEncode(id) +
                    "\"><span class=\"occurrence\" title=\"an occurrence "
                    "of schedule s&lt;script&gt;alert(1)&lt;/script&gt;\">"
                    "s&lt;script&gt;alert(1)&lt;/script&gt; @ 2025-12-02 "
                    "00:42:03.5 UTC</span></a>"))
      << html;
  EXPECT_FALSE(Has(html, "tw-schedule")) << html;
  // The filter links: hidden (the default) and shown, "only" in bold.
  EXPECT_TRUE(Has(html, "<b data-occurrences=\"only\">only</b>"));
  EXPECT_TRUE(Has(html, "<a href=\"/tasks\">hidden</a>")) << html;
  EXPECT_TRUE(Has(html, "<a href=\"/tasks?occurrences=include\">shown</a>"));
  EXPECT_TRUE(Has(html,
                  "<input type=\"hidden\" name=\"occurrences\" "
                  "value=\"only\">"));
  TaskList by_schedule;
  by_schedule.schedule = name;
  by_schedule.occurrences = TaskFilter::Occurrences::kOnly;
  by_schedule.state = TaskState::kPending;
  page.more = true;
  page.next_after = id;
  const std::string one = TasksPage(by_schedule, page, 25);
  EXPECT_TRUE(Has(one, "Occurrences of schedule <b>s&lt;script&gt;")) << one;
  EXPECT_TRUE(Has(one, "href=\"/tasks?schedulex=" + HexEncode(name) +
                           "&amp;state=PENDING&amp;afterx=" + HexEncode(id)))
      << one;
  // The default hides them and says so.
  const std::string hidden = TasksPage({}, TaskPage(), 25);
  EXPECT_TRUE(Has(hidden, "<b data-occurrences=\"hidden\">hidden</b>"));
  // The task page names the schedule and the instant too.
  TaskDetail detail;
  detail.id = id;
  const std::string task = TaskDetailPage(detail, false);
  EXPECT_TRUE(Has(task,
                  "00:42:03.5 UTC</span></span> (<a "
                  "href=\"/tasks?schedulex=" +
                      HexEncode(name)))
      << task;
}

TEST(ServeOverviewTest, AutoRefreshCanBeStopped) {
  StoreStatus s;
  Refresh on{15, "/tasks?state=PENDING"};
  const std::string html = Overview(s, on);
  EXPECT_TRUE(Has(html, "<meta http-equiv=\"refresh\" content=\"15\">"));
  EXPECT_TRUE(Has(html, "href=\"/tasks?state=PENDING&amp;refresh=off\">stop"))
      << html;
  Refresh off{0, "/"};
  const std::string stopped = Overview(s, off);
  EXPECT_FALSE(Has(stopped, "http-equiv=\"refresh\""));
  EXPECT_TRUE(Has(stopped, "href=\"/?refresh=10\">start")) << stopped;
  // Pages without `self` (forms) offer none.
  EXPECT_FALSE(Has(Overview(s), "refresh"));
  // The navigation bar names the schedules page.
  EXPECT_TRUE(Has(html, "<a href=\"/schedules\">Schedules</a>"));
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
