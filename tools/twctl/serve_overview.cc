// Copyright 2026 The timingwheel Authors.
//
// The dashboard's store-wide pages (serve_pages.h): the overview (what is
// wrong first), slots and owners, recurring schedules.

#include "absl/strings/str_cat.h"
#include "tools/twctl/serve_html.h"
#include "tools/twctl/serve_pages.h"
#include "tools/twctl/serve_parts.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr int kFailed = static_cast<int>(TaskState::kFailed);

std::string Row(absl::string_view key, absl::string_view value_html) {
  return absl::StrCat("<tr><th>", key, "</th><td>", value_html, "</td></tr>\n");
}

std::string OwnerName(absl::string_view owner) {
  return owner.empty() ? std::string("<span class=\"note\">none</span>")
                       : HtmlEscape(owner);
}

// What is wrong, each kind of trouble in its own table; "No problems" when
// nothing is.
std::string ProblemsSection(const StatusSummary& sum) {
  if (sum.healthy()) {
    return "<section class=\"problems healthy\" id=\"problems\" "
           "data-healthy=\"yes\"><p>No problems: every node heartbeats, "
           "every slot is under a valid lease, nothing is overdue or "
           "FAILED.</p></section>\n";
  }
  std::string out =
      "<section class=\"problems\" id=\"problems\" data-healthy=\"no\">\n";
  if (!sum.stale_nodes.empty()) {
    absl::StrAppend(
        &out, "<h2>Stale nodes (no heartbeat for over ",
        ShowDuration(sum.stale_after),
        ", the lease TTL)</h2>\n<table id=\"stale-nodes\"><tr><th>node</th>"
        "<th>last heartbeat</th><th>slots still under a valid lease</th>"
        "</tr>\n");
    for (const StaleNode& n : sum.stale_nodes) {
      absl::StrAppend(&out, "<tr data-node=\"", HexEncode(n.node_id),
                      "\"><td class=\"node\">", HtmlEscape(n.node_id),
                      "</td><td class=\"stale\">",
                      ShowDuration(n.since_heartbeat), " ago</td><td class=\"",
                      "held\">", n.slots_held, "</td></tr>\n");
    }
    out += "</table>\n";
  }
  if (!sum.lapsed_owners.empty()) {
    absl::StrAppend(&out, "<h2>", sum.slots_without_lease,
                    " slots without a valid lease</h2>\n<table id=\"lapsed\">"
                    "<tr><th>last held by</th><th>slots</th></tr>\n");
    for (const OwnerSlots& o : sum.lapsed_owners) {
      absl::StrAppend(&out, "<tr data-owner=\"", HexEncode(o.owner),
                      "\"><td class=\"owner\">",
                      o.owner.empty() ? "<span class=\"note\">nobody (never "
                                        "held, or released)</span>"
                                      : HtmlEscape(o.owner),
                      "</td><td class=\"count\">", o.lapsed, "</td></tr>\n");
    }
    out += "</table>\n";
  }
  if (!sum.overdue_kinds.empty()) {
    out +=
        "<h2>Overdue tasks by kind</h2>\n<table id=\"overdue-kinds\"><tr>"
        "<th>kind</th><th>overdue</th></tr>\n";
    for (const AdminKind& k : sum.overdue_kinds) {
      absl::StrAppend(&out, "<tr data-kind=\"", HexEncode(k.kind),
                      "\"><td class=\"kind\">", KindLink(k.kind),
                      "</td><td class=\"count\">", k.overdue, "</td></tr>\n");
    }
    out += "</table>\n";
  }
  if (!sum.failing_kinds.empty()) {
    out +=
        "<h2>Failing kinds</h2>\n<table id=\"failing-kinds\"><tr><th>kind"
        "</th><th>FAILED</th></tr>\n";
    for (const AdminKind& k : sum.failing_kinds) {
      absl::StrAppend(
          &out, "<tr data-kind=\"", HexEncode(k.kind), "\"><td class=\"kind\">",
          KindLink(k.kind),
          "</td><td class=\"count\"><a href=\"/tasks?kindx=", HexEncode(k.kind),
          "&amp;state=FAILED&amp;occurrences=include\">", k.counts[kFailed],
          "</a></td></tr>\n");
    }
    out += "</table>\n";
  }
  if (!sum.unhandled_kinds.empty()) {
    out +=
        "<h2>Kinds without a handler</h2>\n<table "
        "id=\"unhandled-kinds\"><tr><th>kind</th><th>unfinished</th>"
        "<th>put off: no handler where fired</th></tr>\n";
    for (const AdminKind& k : sum.unhandled_kinds) {
      absl::StrAppend(
          &out, "<tr data-kind=\"", HexEncode(k.kind), "\"><td class=\"kind\">",
          KindLink(k.kind), "</td><td class=\"count\">", k.unfinished(),
          "</td><td class=\"count\">", k.put_off_no_handler, "</td></tr>\n");
    }
    out += "</table>\n";
  }
  out += "</section>\n";
  return out;
}

// Slots per owner: held under a valid lease, lapsed, epochs, the owner's
// heartbeat.
std::string OwnersTable(const StatusSummary& sum) {
  std::string out =
      "<table id=\"owners\"><tr><th>owner</th><th>valid leases</th><th>"
      "lapsed</th><th>epochs</th><th>lease left (min)</th><th>heartbeat"
      "</th></tr>\n";
  for (const OwnerSlots& o : sum.owners) {
    absl::StrAppend(
        &out, "<tr data-owner=\"", HexEncode(o.owner),
        "\"><td class=\"owner\">", OwnerName(o.owner),
        "</td><td class=\"held\">", o.valid, "</td><td class=\"num",
        o.lapsed > 0 && !o.owner.empty() ? " invalid" : "", "\">", o.lapsed,
        "</td><td>",
        o.min_epoch == o.max_epoch
            ? absl::StrCat(o.min_epoch)
            : absl::StrCat(o.min_epoch, "-", o.max_epoch),
        "</td><td>", o.min_lease_left ? ShowDuration(*o.min_lease_left) : "-",
        "</td><td", o.stale ? " class=\"stale\"" : "", ">",
        o.owner.empty() ? std::string("-")
        : !o.has_node   ? std::string("<span class=\"note\">no node "
                                        "row</span>")
                        : absl::StrCat(ShowDuration(o.since_heartbeat), " ago",
                                     o.stale ? " (stale)" : ""),
        "</td></tr>\n");
  }
  out += "</table>\n";
  return out;
}

// The kinds: registered (by which node, when) or carried by tasks, with
// their tasks by state and overdue; each kind links to its tasks.
std::string KindsTable(const StoreStatus& s) {
  if (s.kinds.empty()) return "";
  std::string out =
      "<h2>Kinds</h2>\n<table id=\"kinds\"><tr><th>kind</th><th>registered "
      "by</th><th>registered</th><th>pending</th><th>scheduled</th>"
      "<th>running</th><th>overdue</th><th>failed</th><th>succeeded</th>"
      "<th>succeeded, last 5 min</th><th>failed, last 5 min</th></tr>\n";
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
        "</td><td class=\"num\">", k.counts[0], "</td><td class=\"num\">",
        k.counts[1], "</td><td class=\"num\">", k.counts[2],
        "</td><td class=\"num overdue\">", k.overdue,
        "</td><td class=\"num failed\">", k.counts[kFailed],
        "</td><td class=\"num\">", k.counts[3],
        "</td><td class=\"num succeeded-recently\">", k.succeeded_recently,
        "</td><td class=\"num failed-recently\">", k.failed_recently,
        "</td></tr>\n");
  }
  out += "</table>\n";
  return out;
}

std::string PolicyText(const RecurrencePolicy& p) {
  std::string out;
  switch (p.catch_up) {
    case CatchUp::kSkipMissed:
      out = absl::StrCat("skip missed (grace ", ShowDuration(p.grace),
                         ", at most ", p.max_runs, ")");
      break;
    case CatchUp::kRunOnce:
      out = "run once";
      break;
    case CatchUp::kRunEachMissed:
      out = absl::StrCat("run each missed (at most ", p.max_runs, ")");
      break;
  }
  absl::StrAppend(
      &out, "; ",
      p.overlap == Overlap::kRunAnyway ? "may overlap" : "skip while running");
  return out;
}

std::string WhenOrDash(absl::Time t, absl::Time now) {
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast()) return "-";
  return absl::StrCat(ShowTime(t), " <span class=\"note\">(",
                      ShowRelative(t - now), ")</span>");
}

}  // namespace

std::string OverviewPage(const StoreStatus& s, const StatusSummary& sum,
                         const BarChart& due, const BarChart& lateness,
                         const Refresh& refresh) {
  std::string body = ProblemsSection(sum);
  body +=
      "<table class=\"counts\" id=\"counts\"><tr class=\"head\"><th>state"
      "</th><th>tasks</th></tr>\n";
  for (TaskState state : kPageStates) {
    const std::string name = TaskStateName(state);
    absl::StrAppend(&body, "<tr data-state=\"", name,
                    "\"><th><a href=\"/tasks?state=", name, "\">", name,
                    "</a></th><td class=\"count\">",
                    s.counts[static_cast<int>(state)], "</td></tr>\n");
  }
  absl::StrAppend(&body, "<tr class=\"warn\" id=\"overdue-card\"><th>overdue",
                  "</th><td class=\"num-card\">", s.overdue, "</td></tr>\n",
                  "<tr class=\"warn\" id=\"unowned-card\"><th>slots without "
                  "lease</th><td class=\"num-card\">",
                  s.slots_unowned, "</td></tr>\n</table>\n");
  body += "<table>";
  body += Row("database time",
              absl::StrCat(ShowTime(s.db_now), "; schema v", s.schema_version,
                           ", ", s.slot_count, " slots"));
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
  body += Row("nodes", absl::StrCat(s.nodes.size(), ", ",
                                    sum.stale_nodes.size(), " stale"));
  body += "</table>\n<h2>Slots per owner</h2>\n";
  body += OwnersTable(sum);
  body += "<p><a href=\"/slots\">Every slot</a></p>\n";
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
  return Layout("Overview", "Overview", body, refresh);
}

std::string SlotsPage(const StoreStatus& s, const StatusSummary& sum,
                      const Refresh& refresh) {
  std::string body = "<h2>Slots per owner</h2>\n" + OwnersTable(sum);
  body +=
      "<h2>Nodes</h2>\n<table id=\"nodes\"><tr><th>node</th><th>last "
      "heartbeat</th><th>ago</th><th>slots held</th></tr>\n";
  for (const AdminNode& n : s.nodes) {
    const bool stale = n.since_heartbeat > sum.stale_after;
    absl::StrAppend(&body, "<tr data-node=\"", HexEncode(n.node_id),
                    "\"><td class=\"node\">", HtmlEscape(n.node_id),
                    "</td><td>", ShowTime(n.heartbeat), "</td><td",
                    stale ? " class=\"stale\"" : "", ">",
                    ShowDuration(n.since_heartbeat), stale ? " (stale)" : "",
                    "</td><td class=\"held\">", n.slots_held, "</td></tr>\n");
  }
  body +=
      "</table>\n<h2>Slots</h2>\n<table id=\"slots\"><tr><th>slot</th>"
      "<th>owner</th><th>epoch</th><th>lease until</th><th>valid</th>"
      "<th>horizon</th></tr>\n";
  for (const AdminSlot& slot : s.slots) {
    absl::StrAppend(
        &body, "<tr data-slot=\"", slot.slot, "\"><td>", slot.slot,
        "</td><td class=\"owner\">", OwnerName(slot.owner), "</td><td>",
        slot.epoch, "</td><td>", ShowTime(slot.lease_until),
        "</td><td class=\"valid\">",
        slot.lease_valid ? "yes" : "<span class=\"invalid\">no</span>",
        "</td><td>", ShowDuration(slot.horizon), "</td></tr>\n");
  }
  body += "</table>\n";
  return Layout("Slots and owners", "Slots", body, refresh);
}

std::string SchedulesPage(const std::vector<ScheduleInfo>& schedules,
                          absl::Time db_now, const Refresh& refresh,
                          bool writable) {
  std::string body = absl::StrCat(
      "<p>", schedules.size(), " recurring schedule",
      schedules.size() == 1 ? "" : "s",
      ". Their occurrences are ordinary tasks, left out of the task lists "
      "unless asked for.</p>\n<table id=\"schedules\"><tr><th>name</th>"
      "<th>kind</th><th>recurrence</th><th>policy</th><th>paused</th>"
      "<th>last run</th><th>next run</th><th>occurrences</th>",
      writable ? "<th>action</th>" : "", "</tr>\n");
  for (const ScheduleInfo& s : schedules) {
    const RecurringSchedule& d = s.definition;
    absl::StrAppend(
        &body, "<tr data-schedule=\"", HexEncode(d.name),
        "\"><td class=\"name\">", HtmlEscape(d.name),
        "</td><td class=\"kind\">", KindLink(d.kind),
        "</td><td class=\"recurrence\">", HtmlEscape(s.spec),
        "</td><td class=\"policy\">", PolicyText(d.policy),
        "</td><td class=\"paused\">",
        s.paused ? "<span class=\"badge paused-badge\">paused</span>" : "no",
        "</td><td class=\"last-run\">", WhenOrDash(s.last_run, db_now),
        "</td><td class=\"next-run\">", WhenOrDash(s.next_run, db_now),
        "</td><td><a href=\"/tasks?schedulex=", HexEncode(d.name),
        "\">occurrences</a></td>");
    if (writable) {
      absl::StrAppend(
          &body, "<td class=\"action\">",
          s.paused ? PostForm("resume-schedule", "Resume", "namex", d.name)
                   : PostForm("pause-schedule", "Pause", "namex", d.name),
          "</td>");
    }
    body += "</tr>\n";
  }
  body += "</table>\n";
  // With forms, the page does not reload (a token being typed would be
  // lost), as the Failed page.
  return Layout("Recurring schedules", "Schedules", body,
                writable ? Refresh{} : refresh);
}

std::string ScheduleActionPage(absl::string_view action, absl::string_view name,
                               bool found) {
  const char* outcome = found ? "done" : "not found";
  std::string body = absl::StrCat(
      "<p id=\"outcome\" data-outcome=\"", outcome, "\">", HtmlEscape(action),
      " of schedule <b>", HtmlEscape(name), "</b>: ", outcome, ".",
      found && action == "Pause"
          ? " Its waiting occurrences were deleted; a running one finishes."
          : "",
      found && action == "Resume"
          ? " The occurrences due now were written, as its catch-up policy "
            "says."
          : "",
      "</p>\n<p><a href=\"/schedules\">Schedules</a></p>\n");
  return Layout(absl::StrCat(action, ": ", outcome), "", body);
}

}  // namespace twctl
}  // namespace timingwheel
