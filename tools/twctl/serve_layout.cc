// Copyright 2026 The timingwheel Authors.
//
// The frame of every dashboard page (navigation bar, auto-refresh) and its
// stylesheet: serve_pages.h's `Layout()` and `kStylesheet`.

#include "absl/strings/str_cat.h"
#include "tools/twctl/serve_html.h"
#include "tools/twctl/serve_pages.h"

namespace timingwheel {
namespace twctl {

// Served at /static/dashboard.css from the binary (the pages' Content
// Security Policy allows style from the dashboard itself only; nothing is
// fetched from elsewhere). A top bar, counts as cards, striped tables,
// states in colour.
const char kStylesheet[] = R"css(
:root { --bar: #1f2d3d; --line: #e3e6ea; --muted: #6b7480; --bg: #f5f6f8;
        --ok: #2e7d32; --warn: #b26a00; --bad: #c62828; --info: #1565c0; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       margin: 0; color: #1d232a; background: var(--bg); }
nav { background: var(--bar); padding: 0 1.5em; display: flex;
      align-items: center; gap: .2em; flex-wrap: wrap; }
nav .brand { color: #fff; font-weight: 600; margin-right: 1.2em;
             padding: .75em 0; }
nav a { color: #c9d3de; text-decoration: none; padding: .75em .8em; }
nav a:hover { color: #fff; background: rgba(255,255,255,.06); }
nav a.active { color: #fff; box-shadow: inset 0 -3px 0 #6fa8dc; }
nav .refresh { margin-left: auto; color: #c9d3de; font-size: 12px; }
nav .refresh a { padding: .2em .4em; color: #9fc5e8; }
main { padding: 1em 1.5em 2em; max-width: 110em; }
h1 { font-size: 1.4em; margin: .4em 0 .6em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
a { color: var(--info); }
table { border-collapse: collapse; margin: .4em 0 1em; background: #fff;
        border: 1px solid var(--line); }
th, td { border-bottom: 1px solid var(--line); padding: .35em .7em;
         text-align: left; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; font-size: 12px;
     text-transform: uppercase; letter-spacing: .03em; color: #46505a; }
tr:nth-child(even) td { background: #fafbfc; }
td.count, td.num, td.held, td.attempt, td.priority, td.slot { text-align: right;
  font-variant-numeric: tabular-nums; }
td.error, pre { white-space: pre-wrap; font-family: ui-monospace, monospace;
                max-width: 60em; overflow-wrap: anywhere; margin: 0; }
td.id, td.kind, td.outcome, td.node, td.owner { font-family: ui-monospace,
  monospace; font-size: 13px; }
.badge { display: inline-block; padding: .05em .55em; border-radius: 1em;
         font: 600 11px/1.6 system-ui, sans-serif; letter-spacing: .03em;
         color: #fff; background: var(--muted); }
.st-pending { background: #78909c; }
.st-scheduled { background: var(--info); }
.st-running { background: #6a1b9a; }
.st-success { background: var(--ok); }
.st-failed, .bad { background: var(--bad); }
.stale, .invalid { color: var(--bad); font-weight: 600; }
.paused-badge { background: var(--warn); }
.note { color: var(--muted); }
.occurrence { color: #37474f; }
table.counts { display: flex; flex-wrap: wrap; gap: .8em; border: 0;
               background: none; }
table.counts tbody { display: contents; }
table.counts tr.head { display: none; }
table.counts tr { display: flex; flex-direction: column-reverse;
                  min-width: 9em; background: #fff; border: 1px solid
                  var(--line); border-radius: 6px; border-top: 4px solid
                  var(--muted); }
table.counts tr[data-state="PENDING"] { border-top-color: #78909c; }
table.counts tr[data-state="SCHEDULED"] { border-top-color: var(--info); }
table.counts tr[data-state="RUNNING"] { border-top-color: #6a1b9a; }
table.counts tr[data-state="SUCCESS"] { border-top-color: var(--ok); }
table.counts tr[data-state="FAILED"] { border-top-color: var(--bad); }
table.counts tr.warn { border-top-color: var(--warn); }
table.counts th, table.counts td { border: 0; background: none !important;
  text-align: left; padding: .2em .9em; }
table.counts td.count, table.counts td.num-card { font-size: 1.9em; font-weight: 600; padding-top: .4em; }
section.problems { background: #fff; border: 1px solid var(--line);
  border-left: 5px solid var(--bad); border-radius: 6px; padding: .4em 1em;
  margin: .4em 0 1.2em; }
section.healthy { border-left-color: var(--ok); }
section.problems h2 { margin-top: .5em; }
form.action { display: inline; }
form.action input { width: 8em; }
form.filter { margin: .5em 0; }
button { background: var(--info); color: #fff; border: 0; border-radius: 4px;
         padding: .3em .8em; cursor: pointer; }
form.retry button { background: var(--bad); }
p.filters a, p.filters b { margin: 0 .2em; }
.chart { background: #fff; border: 1px solid var(--line); }
.chart .bar { fill: #4a78b5; }
.chart .chart-axis { stroke: #888; }
.chart text { font-size: 11px; fill: #444; }
.chart .chart-title { font-size: 13px; fill: #222; }
)css";

std::string Layout(absl::string_view title, absl::string_view active,
                   absl::string_view body, const Refresh& refresh) {
  std::string nav = "<span class=\"brand\">timingwheel</span>";
  const std::pair<const char*, const char*> links[] = {
      {"/", "Overview"},     {"/schedules", "Schedules"}, {"/tasks", "Tasks"},
      {"/failed", "Failed"}, {"/slots", "Slots"},
  };
  for (const auto& [href, label] : links) {
    absl::StrAppend(&nav, "<a href=\"", href, "\"",
                    label == active ? " class=\"active\"" : "", ">", label,
                    "</a>");
  }
  std::string meta;
  if (!refresh.self.empty()) {
    const std::string self = HtmlEscape(refresh.self);
    const char* sep =
        refresh.self.find('?') == std::string::npos ? "?" : "&amp;";
    if (refresh.seconds > 0) {
      meta = absl::StrCat("<meta http-equiv=\"refresh\" content=\"",
                          refresh.seconds, "\">");
      absl::StrAppend(&nav,
                      "<span class=\"refresh\" id=\"refresh\" data-seconds=\"",
                      refresh.seconds, "\">auto-refresh every ",
                      refresh.seconds, " s <a id=\"refresh-off\" href=\"", self,
                      sep, "refresh=off\">stop</a></span>");
    } else {
      absl::StrAppend(&nav,
                      "<span class=\"refresh\" id=\"refresh\" "
                      "data-seconds=\"0\">auto-refresh off <a "
                      "id=\"refresh-on\" href=\"",
                      self, sep, "refresh=", kDefaultRefreshSeconds,
                      "\">start</a></span>");
    }
  }
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", meta,
      "<title>", HtmlEscape(title),
      " - twctl</title>"
      "<link rel=\"stylesheet\" href=\"/static/dashboard.css\"></head>\n"
      "<body><nav>",
      nav, "</nav>\n<main><h1>", HtmlEscape(title), "</h1>\n", body,
      "</main></body></html>\n");
}

}  // namespace twctl
}  // namespace timingwheel
