// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_pages.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/twctl/serve_html.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr TaskState kStates[] = {TaskState::kPending, TaskState::kScheduled,
                                 TaskState::kRunning, TaskState::kSuccess,
                                 TaskState::kFailed};

std::string StateName(TaskState state) { return TaskStateName(state); }

std::string TaskLink(absl::string_view id) {
  return absl::StrCat("<a href=\"/task?idx=", HexEncode(id), "\">",
                      HtmlEscape(id), "</a>");
}

// A POST form for `action` on `id`, with the token field to fill in.
std::string ActionForm(absl::string_view action, absl::string_view label,
                       absl::string_view id) {
  return absl::StrCat(
      "<form method=\"post\" action=\"/", action, "\" class=\"action ", action,
      "\"><input type=\"hidden\" name=\"idx\" value=\"", HexEncode(id),
      "\"><input type=\"password\" name=\"token\" placeholder=\"token\" "
      "autocomplete=\"off\" required aria-label=\"token\">"
      "<button type=\"submit\">",
      label, "</button></form>");
}

// A kind as a link to its tasks (`kindx`: hex, exact); the default kind
// "" shows as "default".
std::string KindLink(absl::string_view kind) {
  return absl::StrCat(
      "<a href=\"/tasks?kindx=", HexEncode(kind), "\">",
      kind.empty() ? "<span class=\"note\">default</span>" : HtmlEscape(kind),
      "</a>");
}

std::string TaskRow(const TaskSummary& t) {
  return absl::StrCat(
      "<tr data-idx=\"", HexEncode(t.id), "\"><td class=\"id\">",
      TaskLink(t.id), "</td><td class=\"state\">", StateName(t.state),
      "</td><td class=\"kind\">", KindLink(t.kind),
      "</td><td class=\"priority\">", t.priority, "</td><td class=\"due\">",
      ShowTime(t.due), "</td><td class=\"attempt\">", t.attempt,
      "</td><td class=\"slot\">", t.slot, "</td><td class=\"payload\">",
      t.payload_bytes, " B</td></tr>\n");
}

std::string NextLink(const std::string& base, const TaskPage& page, int limit) {
  if (!page.more) return "<p class=\"paging\">End of list.</p>\n";
  return absl::StrCat("<p class=\"paging\"><a id=\"next\" href=\"", base,
                      "afterx=", HexEncode(page.next_after),
                      "&amp;limit=", limit, "\">Next page</a></p>\n");
}

std::string Row(absl::string_view key, absl::string_view value_html) {
  return absl::StrCat("<tr><th>", key, "</th><td>", value_html, "</td></tr>\n");
}

// The attempt history: one `<tr data-attempt="N">` per record, oldest
// first, cells of classes `attempt`, `outcome`, `node`, `started`,
// `finished`, `duration`, `error` (whole, escaped).
std::string AttemptsTable(const TaskDetail& t) {
  std::string out = absl::StrCat(
      "<h2>Attempts</h2>\n<p class=\"note\" id=\"attempts-count\" "
      "data-total=\"",
      t.attempts_total, "\">");
  if (t.attempts.empty()) {
    out += "No attempt recorded.</p>\n";
    return out;
  }
  if (t.attempts_total > static_cast<int64_t>(t.attempts.size())) {
    absl::StrAppend(&out, "The newest ", t.attempts.size(), " of ",
                    t.attempts_total, " attempts, oldest first.</p>\n");
  } else {
    absl::StrAppend(&out, t.attempts_total, " attempt",
                    t.attempts_total == 1 ? "" : "s", ", oldest first.</p>\n");
  }
  out +=
      "<table id=\"attempts\"><tr><th>attempt</th><th>outcome</th>"
      "<th>node</th><th>started</th><th>finished</th><th>duration</th>"
      "<th>error</th></tr>\n";
  for (const AttemptRecord& a : t.attempts) {
    absl::StrAppend(
        &out, "<tr data-attempt=\"", a.attempt, "\"><td class=\"attempt\">",
        a.attempt, "</td><td class=\"outcome\">", AttemptOutcomeName(a.outcome),
        "</td><td class=\"node\">", HtmlEscape(a.node_id),
        "</td><td class=\"started\">", ShowTime(a.started),
        "</td><td class=\"finished\">", ShowTime(a.finished),
        "</td><td class=\"duration\">", ShowDuration(a.finished - a.started),
        "</td><td class=\"error\">", HtmlEscape(a.error), "</td></tr>\n");
  }
  out += "</table>\n";
  return out;
}

// The kinds: registered (by which node, when) or carried by tasks, with
// their unfinished tasks; each kind links to its tasks.
std::string KindsTable(const StoreStatus& s) {
  if (s.kinds.empty()) return "";
  std::string out =
      "<h2>Kinds</h2>\n<table id=\"kinds\"><tr><th>kind</th><th>registered "
      "by</th><th>registered</th><th>pending</th><th>scheduled</th>"
      "<th>running</th><th>finished</th></tr>\n";
  for (const AdminKind& k : s.kinds) {
    absl::StrAppend(
        &out, "<tr data-kind=\"", HexEncode(k.kind), "\"><td class=\"kind\">",
        KindLink(k.kind), "</td><td class=\"node\">",
        k.registered     ? HtmlEscape(k.node_id)
        : k.kind.empty() ? std::string("<span class=\"note\">default "
                                       "handler</span>")
                         : std::string("<span class=\"invalid\">not "
                                       "registered</span>"),
        "</td><td>", k.registered ? ShowTime(k.registered_at) : "-",
        "</td><td>", k.counts[0], "</td><td>", k.counts[1], "</td><td>",
        k.counts[2], "</td><td>", k.counts[3] + k.counts[4], "</td></tr>\n");
  }
  out += "</table>\n";
  return out;
}

}  // namespace

const char kStylesheet[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5em 2em; color: #222; }
nav { padding: .6em 0; border-bottom: 1px solid #ccc; margin-bottom: 1em; }
nav a { margin-right: 1em; text-decoration: none; }
nav a.active { font-weight: bold; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ddd; padding: .2em .6em; text-align: left;
         vertical-align: top; }
td.state { font-family: monospace; }
td.error, pre { white-space: pre-wrap; font-family: monospace;
                max-width: 60em; overflow-wrap: anywhere; }
form.action { display: inline; }
form.action input { width: 8em; }
.counts td { text-align: right; }
.chart .bar { fill: #4a78b5; }
.chart .chart-axis { stroke: #888; }
.chart text { font-size: 11px; fill: #444; }
.chart .chart-title { font-size: 13px; fill: #222; }
.invalid { color: #b00; }
.note { color: #666; }
form.filter { margin: .5em 0; }
td.outcome, td.kind { font-family: monospace; }
)css";

std::string Layout(absl::string_view title, absl::string_view active,
                   absl::string_view body) {
  std::string nav;
  const std::pair<const char*, const char*> links[] = {
      {"/", "Overview"},
      {"/slots", "Slots"},
      {"/tasks", "Tasks"},
      {"/failed", "Failed"},
  };
  for (const auto& [href, label] : links) {
    absl::StrAppend(&nav, "<a href=\"", href, "\"",
                    label == active ? " class=\"active\"" : "", ">", label,
                    "</a>");
  }
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>",
      HtmlEscape(title),
      " - twctl</title>"
      "<link rel=\"stylesheet\" href=\"/static/dashboard.css\"></head>\n"
      "<body><nav>",
      nav, "</nav>\n<h1>", HtmlEscape(title), "</h1>\n", body,
      "</body></html>\n");
}

std::string OverviewPage(const StoreStatus& s, const BarChart& due,
                         const BarChart& lateness) {
  std::string body = absl::StrCat(
      "<p>Database time ", ShowTime(s.db_now), "; schema v", s.schema_version,
      ", ", s.slot_count, " slots, ", s.slots_unowned,
      " without a valid lease.</p>\n<table class=\"counts\" id=\"counts\">"
      "<tr><th>state</th><th>tasks</th></tr>\n");
  for (TaskState state : kStates) {
    absl::StrAppend(&body, "<tr data-state=\"", StateName(state),
                    "\"><th><a href=\"/tasks?state=", StateName(state), "\">",
                    StateName(state), "</a></th><td class=\"count\">",
                    s.counts[static_cast<int>(state)], "</td></tr>\n");
  }
  body += "</table>\n<table>";
  body +=
      Row("next due", s.next_due ? absl::StrCat(ShowTime(*s.next_due), " (",
                                                TaskLink(s.next_due_id), ")")
                                 : "none");
  body +=
      Row("overdue, not started",
          absl::StrCat(s.overdue,
                       s.oldest_overdue_due
                           ? absl::StrCat("; oldest due ",
                                          ShowTime(*s.oldest_overdue_due), " (",
                                          TaskLink(s.oldest_overdue_id), ")")
                           : ""));
  body += Row("nodes", absl::StrCat(s.nodes.size(),
                                    " (<a href=\"/slots\">slots and "
                                    "owners</a>)"));
  body += "</table>\n";
  body += KindsTable(s);
  body += "<h2>Due times</h2>\n";
  body += BarChartSvg(due);
  body += "<h2>Lateness</h2>\n";
  body += BarChartSvg(lateness);
  body +=
      "<p class=\"note\">Lateness here is how long PENDING and SCHEDULED "
      "tasks have been due without starting; the schedulers' own lateness "
      "(due to handler start) is the metric "
      "timingwheel_durable_fire_lateness_seconds.</p>\n";
  return Layout("Overview", "Overview", body);
}

std::string SlotsPage(const StoreStatus& s) {
  std::string body =
      "<h2>Nodes</h2>\n<table id=\"nodes\"><tr><th>node</th><th>last "
      "heartbeat</th><th>ago</th><th>slots held</th></tr>\n";
  for (const AdminNode& n : s.nodes) {
    absl::StrAppend(&body, "<tr data-node=\"", HexEncode(n.node_id),
                    "\"><td class=\"node\">", HtmlEscape(n.node_id),
                    "</td><td>", ShowTime(n.heartbeat), "</td><td>",
                    ShowDuration(n.since_heartbeat), "</td><td class=\"held\">",
                    n.slots_held, "</td></tr>\n");
  }
  body +=
      "</table>\n<h2>Slots</h2>\n<table id=\"slots\"><tr><th>slot</th>"
      "<th>owner</th><th>epoch</th><th>lease until</th><th>valid</th>"
      "<th>horizon</th></tr>\n";
  for (const AdminSlot& slot : s.slots) {
    absl::StrAppend(
        &body, "<tr data-slot=\"", slot.slot, "\"><td>", slot.slot,
        "</td><td class=\"owner\">",
        slot.owner.empty() ? "<span class=\"note\">none</span>"
                           : HtmlEscape(slot.owner),
        "</td><td>", slot.epoch, "</td><td>", ShowTime(slot.lease_until),
        "</td><td class=\"valid\">",
        slot.lease_valid ? "yes" : "<span class=\"invalid\">no</span>",
        "</td><td>", ShowDuration(slot.horizon), "</td></tr>\n");
  }
  body += "</table>\n";
  return Layout("Slots and owners", "Slots", body);
}

std::string TasksPage(std::optional<TaskState> state,
                      const std::optional<std::string>& kind,
                      const TaskPage& page, int limit) {
  // The kind filter travels in links as `kindx` (hex: any kind, exactly).
  const std::string kind_query =
      kind ? absl::StrCat("kindx=", HexEncode(*kind), "&amp;") : "";
  std::string body = "<p>State: ";
  absl::StrAppend(
      &body, state ? absl::StrCat("<a href=\"/tasks?", kind_query, "\">all</a>")
                   : std::string("<b>all</b>"));
  for (TaskState s : kStates) {
    if (state && *state == s) {
      absl::StrAppend(&body, " | <b>", StateName(s), "</b>");
    } else {
      absl::StrAppend(&body, " | <a href=\"/tasks?", kind_query,
                      "state=", StateName(s), "\">", StateName(s), "</a>");
    }
  }
  body += "</p>\n";
  // A GET form: the kind typed as text (empty: every kind).
  absl::StrAppend(
      &body,
      "<form method=\"get\" action=\"/tasks\" class=\"filter\" "
      "id=\"kind-filter\">",
      state ? absl::StrCat("<input type=\"hidden\" name=\"state\" value=\"",
                           StateName(*state), "\">")
            : std::string(),
      "<label>Kind <input type=\"text\" name=\"kind\" maxlength=\"",
      kMaxKindBytes, "\" value=\"",
      kind && !kind->empty() ? HtmlEscape(*kind) : std::string(),
      "\"></label> <button type=\"submit\">Filter</button>",
      kind ? absl::StrCat(" <span id=\"kind-shown\">showing kind ",
                          kind->empty()
                              ? std::string("<b>default</b>")
                              : absl::StrCat("<b>", HtmlEscape(*kind), "</b>"),
                          " (<a href=\"/tasks",
                          state ? absl::StrCat("?state=", StateName(*state))
                                : std::string(),
                          "\">every kind</a>)</span>")
           : std::string(),
      "</form>\n");
  body +=
      "<table id=\"tasks\"><tr><th>id</th><th>state</th><th>kind</th>"
      "<th>priority</th><th>due</th><th>attempts</th><th>slot</th>"
      "<th>payload</th></tr>\n";
  for (const TaskSummary& t : page.tasks) body += TaskRow(t);
  body += "</table>\n";
  const std::string base = absl::StrCat(
      "/tasks?", kind_query,
      state ? absl::StrCat("state=", StateName(*state), "&amp;") : "");
  body += NextLink(base, page, limit);
  std::string title =
      state ? absl::StrCat(StateName(*state), " tasks") : std::string("Tasks");
  if (kind) {
    absl::StrAppend(&title, " of kind ",
                    kind->empty() ? std::string("default") : *kind);
  }
  return Layout(title, "Tasks", body);
}

std::string FailedPage(const std::vector<TaskDetail>& failed,
                       const TaskPage& page, int limit, bool writable) {
  std::string body =
      writable ? "<p>Retry runs a task again from attempt 1, due now.</p>\n"
               : "<p class=\"note\">Read-only: start <code>twctl serve</code> "
                 "with <code>--token</code> to retry tasks.</p>\n";
  body +=
      "<table id=\"failed\"><tr><th>id</th><th>kind</th><th>state</th>"
      "<th>attempts</th><th>finished</th><th>last error</th><th></th></tr>\n";
  for (const TaskDetail& t : failed) {
    absl::StrAppend(
        &body, "<tr data-idx=\"", HexEncode(t.id), "\"><td class=\"id\">",
        TaskLink(t.id), "</td><td class=\"kind\">", KindLink(t.kind),
        "</td><td class=\"state\">", StateName(t.state),
        "</td><td class=\"attempt\">", t.attempt, "</td><td>",
        t.finished ? ShowTime(*t.finished) : "-", "</td><td class=\"error\">",
        t.last_error ? HtmlEscape(*t.last_error) : "", "</td><td>",
        writable && t.state == TaskState::kFailed
            ? ActionForm("retry", "Retry", t.id)
            : "",
        "</td></tr>\n");
  }
  body += "</table>\n";
  body += NextLink("/failed?", page, limit);
  return Layout("Failed tasks", "Failed", body);
}

std::string TaskDetailPage(const TaskDetail& t, bool writable) {
  std::string body = absl::StrCat(
      "<table id=\"task\" data-idx=\"", HexEncode(t.id), "\">\n",
      Row("id",
          absl::StrCat("<span class=\"id\">", HtmlEscape(t.id), "</span>")),
      Row("state", absl::StrCat("<span class=\"state\">", StateName(t.state),
                                "</span>")),
      Row("kind",
          absl::StrCat("<span class=\"kind\">", KindLink(t.kind), "</span>")),
      Row("priority",
          absl::StrCat("<span class=\"priority\">", t.priority, "</span>")),
      Row("attempts", absl::StrCat(t.attempt)),
      Row("due", absl::StrCat(ShowTime(t.due), " (",
                              ShowRelative(t.due - t.db_now), ")")));
  body += Row("finished", t.finished ? ShowTime(*t.finished) : "-");
  body += Row("last error",
              t.last_error ? absl::StrCat("<pre class=\"error\">",
                                          HtmlEscape(*t.last_error), "</pre>")
                           : "-");
  body +=
      Row("payload",
          absl::StrCat(
              t.payload_bytes, " bytes",
              t.payload_bytes > 0
                  ? absl::StrCat(
                        "<pre class=\"payload\">", HtmlEscape(t.payload_head),
                        t.payload_bytes >
                                static_cast<int64_t>(t.payload_head.size())
                            ? "..."
                            : "",
                        "</pre>")
                  : ""));
  body += Row("slot", absl::StrCat(t.slot));
  body += Row("version, epoch", absl::StrCat(t.version, ", ", t.epoch));
  body +=
      Row("slot lease",
          t.slot_owner.empty()
              ? std::string("none")
              : absl::StrCat(HtmlEscape(t.slot_owner), ", epoch ", t.slot_epoch,
                             ", until ", ShowTime(t.slot_lease_until),
                             t.slot_lease_valid ? "" : " (expired)"));
  body += "</table>\n";
  if (writable && t.state == TaskState::kFailed) {
    body += ActionForm("retry", "Retry", t.id);
  }
  body += AttemptsTable(t);
  if (writable &&
      (t.state == TaskState::kPending || t.state == TaskState::kScheduled)) {
    body += ActionForm("cancel", "Cancel", t.id);
  }
  return Layout("Task", "", body);
}

std::string ActionPage(absl::string_view action, absl::string_view id,
                       const ActionResult& r) {
  const char* outcome = r.outcome == ActionOutcome::kDone       ? "done"
                        : r.outcome == ActionOutcome::kNotFound ? "not found"
                                                                : "refused";
  std::string body = absl::StrCat(
      "<p id=\"outcome\" data-outcome=\"", outcome, "\">", HtmlEscape(action),
      " of ", TaskLink(id), ": ", outcome, ". ", HtmlEscape(r.message),
      "</p>\n<p><a href=\"/failed\">Failed tasks</a> | <a href=\"/task?idx=",
      HexEncode(id), "\">The task</a></p>\n");
  return Layout(absl::StrCat(action, ": ", outcome), "", body);
}

std::string MessagePage(absl::string_view title, absl::string_view message) {
  return Layout(
      title, "",
      absl::StrCat("<p id=\"message\">",
                   absl::StrJoin(absl::StrSplit(message, '\n'), "<br>\n",
                                 [](std::string* out, absl::string_view line) {
                                   out->append(HtmlEscape(line));
                                 }),
                   "</p>\n"));
}

}  // namespace twctl
}  // namespace timingwheel
