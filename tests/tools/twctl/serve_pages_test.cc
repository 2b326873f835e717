// Copyright 2026 The timingwheel Authors.
//
// twctl serve's pages and charts (tools/twctl/serve_pages.h,
// serve_chart.h): what each shows, that user bytes (ids, errors, node ids)
// are escaped everywhere, and that actions appear only when writable and
// never carry the token. No database.

#include "tools/twctl/serve_pages.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/twctl/serve_chart.h"
#include "tools/twctl/serve_html.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr char kHostile[] = "<script>alert(1)</script>";

bool Has(const std::string& html, const std::string& part) {
  return html.find(part) != std::string::npos;
}

TaskList List(std::optional<TaskState> state, std::optional<std::string> kind) {
  TaskList list;
  list.state = state;
  list.kind = std::move(kind);
  return list;
}

TaskDetail FailedTask() {
  TaskDetail t;
  t.id = std::string("id") + kHostile;
  t.state = TaskState::kFailed;
  t.attempt = 3;
  t.due = absl::FromUnixSeconds(1764637323);
  t.db_now = t.due + absl::Minutes(1);
  t.last_error = std::string("boom ") + kHostile + " \"quoted\"";
  t.finished = t.db_now;
  t.slot_owner = std::string("node") + kHostile;
  t.payload_bytes = 3;
  t.payload_head = "<p>";
  return t;
}

TEST(ServePagesTest, FailedPageEscapesIdsAndErrors) {
  TaskPage page;
  const std::string html = FailedPage({FailedTask()}, page, 50, true);
  EXPECT_FALSE(Has(html, "<script>")) << html;
  EXPECT_TRUE(Has(html, "id&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(Has(
      html, "boom &lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot;"));
  // The row names the exact bytes in hex; the Retry form posts them.
  const std::string hex = HexEncode(FailedTask().id);
  EXPECT_TRUE(Has(html, "<tr data-idx=\"" + hex + "\">"));
  EXPECT_TRUE(Has(html, "<form method=\"post\" action=\"/retry\""));
  EXPECT_TRUE(Has(html, "name=\"idx\" value=\"" + hex + "\""));
  EXPECT_TRUE(Has(html, "type=\"password\" name=\"token\""));
  EXPECT_TRUE(Has(html,
                  "<td class=\"state\"><span class=\"badge "
                  "st-failed\">FAILED</span></td>"));
  EXPECT_TRUE(Has(html, "<th>kind</th>"));
  TaskDetail invoice = FailedTask();
  invoice.kind = "invoice";
  const std::string with_kind = FailedPage({invoice}, page, 50, true);
  EXPECT_TRUE(Has(with_kind, "<td class=\"kind\"><a href=\"/tasks?kindx=" +
                                 HexEncode("invoice") + "\">invoice</a>"))
      << with_kind;
}

TEST(ServePagesTest, ReadOnlyPagesHaveNoForms) {
  TaskPage page;
  const std::string failed = FailedPage({FailedTask()}, page, 50, false);
  EXPECT_FALSE(Has(failed, "<form"));
  EXPECT_TRUE(Has(failed, "Read-only"));
  EXPECT_FALSE(Has(TaskDetailPage(FailedTask(), false), "<form"));
}

TEST(ServePagesTest, TaskDetailShowsEverythingEscaped) {
  const std::string html = TaskDetailPage(FailedTask(), true);
  EXPECT_FALSE(Has(html, "<script>")) << html;
  EXPECT_FALSE(Has(html, "<p>\n"));  // The payload head is text.
  EXPECT_TRUE(Has(html, "&lt;p&gt;"));
  EXPECT_TRUE(Has(html,
                  "<span class=\"state\"><span class=\"badge "
                  "st-failed\">FAILED</span></span>"));
  EXPECT_TRUE(Has(html, "node&lt;script&gt;"));
  EXPECT_TRUE(Has(html, "action=\"/retry\""));
  EXPECT_FALSE(Has(html, "action=\"/cancel\""));
  EXPECT_TRUE(Has(html, "(1m ago)")) << html;  // Not "-1m from now".
  TaskDetail pending = FailedTask();
  pending.state = TaskState::kPending;
  const std::string pending_html = TaskDetailPage(pending, true);
  EXPECT_TRUE(Has(pending_html, "action=\"/cancel\""));
  EXPECT_FALSE(Has(pending_html, "action=\"/retry\""));
}

TEST(ServePagesTest, TasksPageRowsAndPaging) {
  TaskPage page;
  TaskSummary a;
  a.id = kHostile;
  a.state = TaskState::kScheduled;
  a.attempt = 0;
  a.slot = 7;
  page.tasks.push_back(a);
  page.more = true;
  page.next_after = std::string("\0z", 2);
  const std::string html =
      TasksPage(List(TaskState::kScheduled, std::nullopt), page, 25);
  EXPECT_FALSE(Has(html, "<script>"));
  EXPECT_TRUE(Has(html, "<tr data-idx=\"" + HexEncode(kHostile) + "\">"));
  EXPECT_TRUE(Has(html,
                  "<td class=\"state\"><span class=\"badge "
                  "st-scheduled\">SCHEDULED</span></td>"));
  EXPECT_TRUE(Has(html, "<td class=\"slot\">7</td>"));
  EXPECT_TRUE(Has(html,
                  "href=\"/tasks?state=SCHEDULED&amp;afterx=007a&amp;"
                  "limit=25\""))
      << html;
  page.more = false;
  EXPECT_FALSE(Has(TasksPage({}, page, 25), "id=\"next\""));
  // A kind filter travels in the paging and state links as hex.
  page.more = true;
  const std::string of_kind =
      TasksPage(List(TaskState::kScheduled, std::string("k&")), page, 25);
  EXPECT_TRUE(Has(of_kind,
                  "href=\"/tasks?kindx=6b26&amp;state=SCHEDULED&amp;"
                  "afterx=007a&amp;limit=25\""))
      << of_kind;
  EXPECT_TRUE(Has(of_kind, "href=\"/tasks?kindx=6b26&amp;state=FAILED\""));
  EXPECT_TRUE(Has(of_kind, "name=\"kind\" maxlength=\"128\" value=\"k&amp;\""));
  EXPECT_TRUE(Has(of_kind, "<title>SCHEDULED tasks of kind k&amp;"));
  EXPECT_TRUE(Has(TasksPage(List(std::nullopt, std::string()), page, 25),
                  "showing kind <b>default</b>"));
}

// A kind, a node id and an attempt's error holding HTML are text on the
// tasks list and the task page; the attempts table lists every record.
TEST(ServePagesTest, KindsAndAttemptErrorsAreEscaped) {
  const std::string hostile_kind = std::string("kind") + kHostile;
  TaskPage page;
  TaskSummary a;
  a.id = "task-1";
  a.kind = hostile_kind;
  a.priority = -3;
  page.tasks.push_back(a);
  TaskSummary d;
  d.id = "task-2";
  page.tasks.push_back(d);
  const std::string list =
      TasksPage(List(std::nullopt, hostile_kind), page, 25);
  EXPECT_FALSE(Has(list, "<script>")) << list;
  EXPECT_TRUE(Has(
      list,
      "<td class=\"kind\"><a href=\"/tasks?kindx=" + HexEncode(hostile_kind) +
          "\">kind&lt;script&gt;alert(1)&lt;/script&gt;</a></td>"
          "<td class=\"priority\">-3</td>"))
      << list;
  EXPECT_TRUE(Has(list,
                  "<td class=\"kind\"><a href=\"/tasks?kindx=\"><span "
                  "class=\"note\">default</span></a></td>"))
      << list;

  TaskDetail t = FailedTask();
  t.kind = hostile_kind;
  t.priority = 12;
  AttemptRecord first;
  first.attempt = 1;
  first.outcome = AttemptOutcome::kRetried;
  first.node_id = std::string("n") + kHostile;
  first.started = absl::FromUnixSeconds(1764637323);
  first.finished = first.started + absl::Milliseconds(1500);
  first.error = std::string("err ") + kHostile + " & \"q\"";
  AttemptRecord second = first;
  second.attempt = 2;
  second.outcome = AttemptOutcome::kFailed;
  second.error = "";
  t.attempts = {first, second};
  t.attempts_total = 7;
  const std::string html = TaskDetailPage(t, true);
  EXPECT_FALSE(Has(html, "<script>")) << html;
  EXPECT_TRUE(Has(html, "kind&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(Has(html, "<span class=\"priority\">12</span>"));
  EXPECT_TRUE(Has(html, "<table id=\"attempts\">"));
  EXPECT_TRUE(Has(html, "The newest 2 of 7 attempts, oldest first."));
  EXPECT_TRUE(Has(html, "data-total=\"7\""));
  EXPECT_TRUE(Has(html,
                  "<tr data-attempt=\"1\"><td class=\"attempt\">1</td>"
                  "<td class=\"outcome\">RETRIED</td><td class=\"node\">"
                  "n&lt;script&gt;alert(1)&lt;/script&gt;</td>"))
      << html;
  EXPECT_TRUE(Has(html,
                  "<td class=\"error\">err &lt;script&gt;alert(1)&lt;/"
                  "script&gt; &amp; &quot;q&quot;</td>"))
      << html;
  EXPECT_TRUE(Has(html, "<td class=\"duration\">" +
                            ShowDuration(absl::Milliseconds(1500)) + "</td>"));
  EXPECT_TRUE(Has(html, "<td class=\"outcome\">FAILED</td>"));
  // The attempts come after the task's table, in order.
  EXPECT_LT(html.find("data-attempt=\"1\""), html.find("data-attempt=\"2\""));

  t.attempts.clear();
  t.attempts_total = 0;
  EXPECT_TRUE(Has(TaskDetailPage(t, false), "No attempt recorded."));

  // The overview's kinds: a registered one (by a hostile node id), one
  // no scheduler registered.
  StoreStatus s;
  AdminKind registered;
  registered.kind = hostile_kind;
  registered.registered = true;
  registered.node_id = std::string("n") + kHostile;
  registered.counts = {1, 2, 3, 4, 5};
  AdminKind orphan;
  orphan.kind = "orphan";
  orphan.counts = {1, 0, 0, 0, 0};
  s.kinds = {registered, orphan};
  const std::string overview =
      OverviewPage(s, Summarize(s), DueHistogram({}, absl::Now()),
                   LatenessHistogram({}, absl::Now()));
  EXPECT_FALSE(Has(overview, "<script>")) << overview;
  EXPECT_TRUE(
      Has(overview, "<tr data-kind=\"" + HexEncode(hostile_kind) +
                        "\"><td class=\"kind\"><a href=\"/tasks?kindx=" +
                        HexEncode(hostile_kind) + "\">kind&lt;script&gt;"))
      << overview;
  EXPECT_TRUE(Has(overview, "<td class=\"node\">n&lt;script&gt;"));
  EXPECT_TRUE(Has(overview,
                  "<td class=\"num\">3</td><td class=\"num overdue\">0</td>"
                  "<td class=\"num failed\">5</td><td class=\"num\">4</td>"
                  "<td class=\"num succeeded-recently\">0</td>"
                  "<td class=\"num failed-recently\">0</td></tr>"))
      << overview;
  EXPECT_TRUE(Has(overview, "not registered"));
}

TEST(ServePagesTest, SlotsPageEscapesOwners) {
  StoreStatus s;
  AdminSlot slot;
  slot.slot = 3;
  slot.owner = kHostile;
  slot.lease_valid = true;
  s.slots.push_back(slot);
  AdminNode node;
  node.node_id = kHostile;
  node.slots_held = 1;
  s.nodes.push_back(node);
  const std::string html = SlotsPage(s, Summarize(s));
  EXPECT_FALSE(Has(html, "<script>"));
  EXPECT_TRUE(Has(html,
                  "<tr data-slot=\"3\"><td>3</td><td class=\"owner\">"
                  "&lt;script&gt;"));
}

TEST(ServePagesTest, OverviewCountsEveryState) {
  StoreStatus s;
  s.counts = {1, 2, 3, 4, 5};
  s.next_due = absl::FromUnixSeconds(1764637323);
  s.next_due_id = kHostile;
  const std::string html =
      OverviewPage(s, Summarize(s), DueHistogram({}, absl::Now()),
                   LatenessHistogram({}, absl::Now()));
  EXPECT_FALSE(Has(html, "<script>"));
  EXPECT_TRUE(Has(html,
                  "<tr data-state=\"FAILED\"><th><a "
                  "href=\"/tasks?state=FAILED\">FAILED</a></th><td "
                  "class=\"count\">5</td></tr>"));
  EXPECT_TRUE(Has(html, "<svg"));
  EXPECT_TRUE(Has(html, "id=\"due-chart\""));
  EXPECT_TRUE(Has(html, "id=\"lateness-chart\""));
  // No script, and nothing fetched from elsewhere.
  EXPECT_FALSE(Has(html, "<script"));
  EXPECT_FALSE(Has(html, "http://"));
  EXPECT_FALSE(Has(html, "https://"));
}

TEST(ServePagesTest, MessageLinesBreakInsteadOfShowingEscapes) {
  const std::string html = MessagePage("Store unavailable", "a<b\nDETAIL: c");
  EXPECT_TRUE(Has(html, "a&lt;b<br>\nDETAIL: c")) << html;
  EXPECT_FALSE(Has(html, "\\x0A")) << html;
}

TEST(ServePagesTest, MessagesAreEscaped) {
  EXPECT_FALSE(Has(MessagePage(kHostile, kHostile), "<script>"));
  ActionResult r;
  r.message = kHostile;
  EXPECT_FALSE(Has(ActionPage("Retry", kHostile, r), "<script>"));
  EXPECT_TRUE(Has(ActionPage("Retry", "x", r), "data-outcome=\"done\""));
}

TEST(ServeChartTest, DueHistogramBucketsPerMinute) {
  const absl::Time now = absl::FromUnixSeconds(1000000);
  BarChart c =
      DueHistogram({now, now + absl::Seconds(59), now + absl::Minutes(1),
                    now + absl::Minutes(59) + absl::Seconds(59),
                    now + absl::Minutes(60), now - absl::Seconds(1)},
                   now);
  ASSERT_EQ(c.values.size(), 60u);
  EXPECT_EQ(c.values[0], 2);
  EXPECT_EQ(c.values[1], 1);
  EXPECT_EQ(c.values[59], 1);
  int64_t total = 0;
  for (int64_t v : c.values) total += v;
  EXPECT_EQ(total, 4);  // The hour's end and the past are not counted.
}

TEST(ServeChartTest, LatenessHistogramBuckets) {
  const absl::Time now = absl::FromUnixSeconds(1000000);
  BarChart c =
      LatenessHistogram({now, now - absl::Seconds(5), now - absl::Seconds(10),
                         now - absl::Minutes(5), now - absl::Minutes(30),
                         now - absl::Hours(2), now + absl::Seconds(1)},
                        now);
  EXPECT_EQ(c.values, (std::vector<int64_t>{1, 1, 1, 1, 1, 1}));
}

TEST(ServeChartTest, SvgHasOneBarPerValueWithItsCount) {
  BarChart c;
  c.title = kHostile;
  c.id = "c";
  c.labels = {"a", "<b>"};
  c.values = {3, 0};
  const std::string svg = BarChartSvg(c);
  EXPECT_FALSE(Has(svg, "<script>"));
  EXPECT_FALSE(Has(svg, "<b>"));
  EXPECT_TRUE(Has(svg, "data-label=\"a\" data-value=\"3\""));
  EXPECT_TRUE(Has(svg, "data-label=\"&lt;b&gt;\" data-value=\"0\""));
  size_t bars = 0;
  for (size_t p = svg.find("<rect"); p != std::string::npos;
       p = svg.find("<rect", p + 1)) {
    ++bars;
  }
  EXPECT_EQ(bars, 2u);
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
