// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_pages.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "durable/recurrence/occurrence_id.h"
#include "tools/twctl/serve_html.h"
#include "tools/twctl/serve_parts.h"

namespace timingwheel {
namespace twctl {
namespace {

std::string StateName(TaskState state) { return TaskStateName(state); }

// A POST form for `action` on `id`, with the token field to fill in.
std::string ActionForm(absl::string_view action, absl::string_view label,
                       absl::string_view id) {
  return PostForm(action, label, "idx", id);
}

std::string TaskRow(const TaskSummary& t) {
  return absl::StrCat(
      "<tr data-idx=\"", HexEncode(t.id), "\"><td class=\"id\">",
      TaskLink(t.id), "</td><td class=\"state\">", StateBadge(t.state),
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

// For an occurrence of a recurring schedule, a row naming the schedule (a
// link to its occurrences) and the instant; nothing for other ids.
std::string OccurrenceRow(absl::string_view id) {
  std::string name;
  int64_t us = 0;
  if (!durable_internal::ParseOccurrenceId(id, &name, &us)) return "";
  return Row(
      "occurrence",
      absl::StrCat("<span class=\"occurrence\">", ShowTaskId(id),
                   "</span> (<a href=\"/tasks?schedulex=", HexEncode(name),
                   "\">its schedule's occurrences</a>)"));
}

// Links to the same list with recurring occurrences hidden, shown with the
// rest, or alone; `base` is the list's path and its other filters ending
// in '?' or "&amp;".
std::string OccurrenceLinks(const std::string& base, const TaskList& list) {
  if (list.schedule) {
    return absl::StrCat(
        "<p class=\"filters\" id=\"occurrences\">Occurrences of schedule <b>",
        HtmlEscape(*list.schedule), "</b> (<a href=\"", base,
        "\">every task</a>, <a href=\"/schedules\">schedules</a>)</p>\n");
  }
  using O = TaskFilter::Occurrences;
  const std::pair<O, const char*> choices[] = {
      {O::kExclude, "hidden"}, {O::kInclude, "shown"}, {O::kOnly, "only"}};
  const char* params[] = {"", "occurrences=include", "occurrences=only"};
  std::string out =
      "<p class=\"filters\" id=\"occurrences\">Recurring occurrences:";
  for (int i = 0; i < 3; ++i) {
    if (list.occurrences == choices[i].first) {
      absl::StrAppend(&out, " <b data-occurrences=\"", choices[i].second, "\">",
                      choices[i].second, "</b>");
    } else {
      std::string href = absl::StrCat(base, params[i]);
      if (params[i][0] == '\0') {
        // Strip the trailing separator.
        if (absl::EndsWith(href, "&amp;")) href.resize(href.size() - 5);
        if (absl::EndsWith(href, "?")) href.resize(href.size() - 1);
      }
      absl::StrAppend(&out, " <a href=\"", href, "\">", choices[i].second,
                      "</a>");
    }
  }
  out += "</p>\n";
  return out;
}

// The query of `list`'s occurrence filter ("occurrences=include&amp;",
// "schedulex=HEX&amp;" or "").
std::string OccurrenceQuery(const TaskList& list) {
  if (list.schedule) {
    return absl::StrCat("schedulex=", HexEncode(*list.schedule), "&amp;");
  }
  switch (list.occurrences) {
    case TaskFilter::Occurrences::kInclude:
      return "occurrences=include&amp;";
    case TaskFilter::Occurrences::kOnly:
      return "occurrences=only&amp;";
    case TaskFilter::Occurrences::kExclude:
      break;
  }
  return "";
}

}  // namespace

std::string TasksPage(const TaskList& list, const TaskPage& page, int limit,
                      const Refresh& refresh) {
  const std::optional<TaskState>& state = list.state;
  const std::optional<std::string>& kind = list.kind;
  // The kind filter travels in links as `kindx` (hex: any kind, exactly),
  // the occurrence filter as `occurrences` or `schedulex` (hex).
  const std::string kind_query =
      kind ? absl::StrCat("kindx=", HexEncode(*kind), "&amp;") : "";
  const std::string occ_query = OccurrenceQuery(list);
  std::string body = "<p class=\"filters\">State: ";
  absl::StrAppend(&body, state ? absl::StrCat("<a href=\"/tasks?", kind_query,
                                              occ_query, "\">all</a>")
                               : std::string("<b>all</b>"));
  for (TaskState s : kPageStates) {
    if (state && *state == s) {
      absl::StrAppend(&body, " | <b>", StateName(s), "</b>");
    } else {
      absl::StrAppend(&body, " | <a href=\"/tasks?", kind_query, occ_query,
                      "state=", StateName(s), "\">", StateName(s), "</a>");
    }
  }
  body += "</p>\n";
  const std::string state_query =
      state ? absl::StrCat("state=", StateName(*state), "&amp;") : "";
  body +=
      OccurrenceLinks(absl::StrCat("/tasks?", kind_query, state_query), list);
  // A GET form: the kind typed as text (empty: every kind).
  absl::StrAppend(
      &body,
      "<form method=\"get\" action=\"/tasks\" class=\"filter\" "
      "id=\"kind-filter\">",
      state ? absl::StrCat("<input type=\"hidden\" name=\"state\" value=\"",
                           StateName(*state), "\">")
            : std::string(),
      list.schedule
          ? absl::StrCat("<input type=\"hidden\" name=\"schedulex\" value=\"",
                         HexEncode(*list.schedule), "\">")
      : list.occurrences != TaskFilter::Occurrences::kExclude
          ? absl::StrCat("<input type=\"hidden\" name=\"occurrences\" value=\"",
                         list.occurrences == TaskFilter::Occurrences::kOnly
                             ? "only"
                             : "include",
                         "\">")
          : std::string(),
      "<label>Kind <input type=\"text\" name=\"kind\" maxlength=\"",
      kMaxKindBytes, "\" value=\"",
      kind && !kind->empty() ? HtmlEscape(*kind) : std::string(),
      "\"></label> <button type=\"submit\">Filter</button>",
      kind ? absl::StrCat(" <span id=\"kind-shown\">showing kind ",
                          kind->empty()
                              ? std::string("<b>default</b>")
                              : absl::StrCat("<b>", HtmlEscape(*kind), "</b>"),
                          " (<a href=\"/tasks?", occ_query, state_query,
                          "\">every kind</a>)</span>")
           : std::string(),
      "</form>\n");
  body +=
      "<table id=\"tasks\"><tr><th>id</th><th>state</th><th>kind</th>"
      "<th>priority</th><th>due</th><th>attempts</th><th>slot</th>"
      "<th>payload</th></tr>\n";
  for (const TaskSummary& t : page.tasks) body += TaskRow(t);
  body += "</table>\n";
  body += NextLink(absl::StrCat("/tasks?", kind_query, occ_query, state_query),
                   page, limit);
  std::string title =
      state ? absl::StrCat(StateName(*state), " tasks") : std::string("Tasks");
  if (kind) {
    absl::StrAppend(&title, " of kind ",
                    kind->empty() ? std::string("default") : *kind);
  }
  return Layout(title, "Tasks", body, refresh);
}

std::string FailedPage(const std::vector<TaskDetail>& failed,
                       const TaskPage& page, int limit, bool writable,
                       const TaskList& list) {
  std::string body =
      writable ? "<p>Retry runs a task again from attempt 1, due now.</p>\n"
               : "<p class=\"note\">Read-only: start <code>twctl serve</code> "
                 "with <code>--token</code> to retry tasks.</p>\n";
  body += OccurrenceLinks("/failed?", list);
  body +=
      "<table id=\"failed\"><tr><th>id</th><th>kind</th><th>state</th>"
      "<th>attempts</th><th>finished</th><th>last error</th><th></th></tr>\n";
  for (const TaskDetail& t : failed) {
    absl::StrAppend(
        &body, "<tr data-idx=\"", HexEncode(t.id), "\"><td class=\"id\">",
        TaskLink(t.id), "</td><td class=\"kind\">", KindLink(t.kind),
        "</td><td class=\"state\">", StateBadge(t.state),
        "</td><td class=\"attempt\">", t.attempt, "</td><td>",
        t.finished ? ShowTime(*t.finished) : "-", "</td><td class=\"error\">",
        t.last_error ? HtmlEscape(*t.last_error) : "", "</td><td>",
        writable && t.state == TaskState::kFailed
            ? ActionForm("retry", "Retry", t.id)
            : "",
        "</td></tr>\n");
  }
  body += "</table>\n";
  body +=
      NextLink(absl::StrCat("/failed?", OccurrenceQuery(list)), page, limit);
  return Layout("Failed tasks", "Failed", body);
}

std::string TaskDetailPage(const TaskDetail& t, bool writable) {
  std::string body = absl::StrCat(
      "<table id=\"task\" data-idx=\"", HexEncode(t.id), "\">\n",
      Row("id",
          absl::StrCat("<span class=\"id\">", HtmlEscape(t.id), "</span>")),
      OccurrenceRow(t.id),
      Row("state", absl::StrCat("<span class=\"state\">", StateBadge(t.state),
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
