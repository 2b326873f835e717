// Copyright 2026 The timingwheel Authors.
//
// serve_pages.h
// -----------------------------------------------------------------------------
//
// The HTML of `twctl serve`'s pages, from what `AdminStore` returned. Pure
// functions (no database, no HTTP), so that every page is tested for what
// it shows and for its escaping: every value from the store goes through
// `HtmlEscape()` (serve_html.h), and ids travel in links and forms as hex,
// so that any bytes round-trip. Pages carry no script; a mutating action is
// a POST form whose `token` field the operator fills in (the token is never
// written into a page). Every task row is `<tr data-idx="HEX">` with cells
// of classes `id`, `state`, `due`, `attempt`, `slot`, so that a test reads
// a page back exactly (and `kind`, `priority` since schema version 4).
// A state shows as a coloured badge inside its cell. A recurring
// schedule's occurrence shows as "NAME @ INSTANT UTC" (serve_parts.h).
//
// This file defines:
//
//   * `Refresh`, `Layout()`: the frame of every page (title, top
//     navigation bar, stylesheet, auto-refresh); serve_layout.cc.
//   * `OverviewPage()`, `SlotsPage()`, `SchedulesPage()`
//     (serve_overview.cc), `TaskList`, `TasksPage()`, `FailedPage()`,
//     `TaskDetailPage()`, `ActionPage()`, `MessagePage()` (serve_pages.cc).
//   * `kStylesheet`: the CSS served at /static/dashboard.css.
//
// Tests: tests/tools/twctl/serve_pages_test.cc (ServePagesTest.*) and
// serve_overview_test.cc (ServeOverviewTest.*).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_PAGES_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_PAGES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "durable/admin_store.h"
#include "durable/recurring.h"
#include "tools/twctl/serve_chart.h"
#include "tools/twctl/status_summary.h"

namespace timingwheel {
namespace twctl {

// The auto-refresh period when the request does not say (seconds).
inline constexpr int kDefaultRefreshSeconds = 10;

// Refresh: a page's auto-refresh. `self` empty: the page offers none (pages
// with forms: a reload would lose a token being typed). Otherwise the page
// reloads itself every `seconds` (a `<meta http-equiv="refresh">`, no
// script; 0: off) and the navigation bar says so, with a link to stop
// (`self` + `refresh=off`) or start it again. `self` is the page's path
// and query without `refresh`, URL-encoded.
struct Refresh {
  int seconds = 0;
  std::string self;
};

// Layout()
//
// A whole HTML document: `title` (escaped), the navigation bar with
// `active` marked, `body` (already HTML), and `refresh`.
// Test: ServeOverviewTest.AutoRefreshCanBeStopped.
std::string Layout(absl::string_view title, absl::string_view active,
                   absl::string_view body, const Refresh& refresh = {});

// OverviewPage()
//
// What is wrong first (`<section id="problems">`, from `summary`: stale
// nodes `<table id="stale-nodes">`, slots without a valid lease by last
// holder `<table id="lapsed">`, overdue tasks by kind `<table
// id="overdue-kinds">`, failing kinds `<table id="failing-kinds">`, kinds
// nobody registered; or "No problems"), then counts by state as cards
// (each a link to its task list), next due, oldest overdue, slots per owner
// (`<table id="owners">`, a `<tr data-owner="HEX">` per owner), the kinds
// (`<table id="kinds">`, a `<tr data-kind="HEX">` per kind: who registered
// it, its tasks by state, overdue) and the two charts. `summary` is
// `Summarize(status, ...)`, the figures `twctl status` prints.
// Tests: ServePagesTest.OverviewCountsEveryState,
// ServePagesTest.KindsAndAttemptErrorsAreEscaped,
// ServeOverviewTest.ProblemsComeFirst.
std::string OverviewPage(const StoreStatus& status,
                         const StatusSummary& summary, const BarChart& due,
                         const BarChart& lateness, const Refresh& refresh = {});

// SlotsPage()
//
// Slots per owner (as the overview), the nodes with their heartbeats
// (stale ones marked), then every slot: owner, epoch, lease until, valid
// or not, horizon.
std::string SlotsPage(const StoreStatus& status, const StatusSummary& summary,
                      const Refresh& refresh = {});

// SchedulesPage()
//
// Every recurring schedule (`<table id="schedules">`, a `<tr
// data-schedule="HEX">` per schedule) with cells `name`, `kind`,
// `recurrence`, `policy`, `paused`, `last-run`, `next-run` (as
// `AdminStore::Schedules()` reports them) and a link to its occurrences
// (`/tasks?schedulex=HEX`); when `writable`, an `action` cell with a Pause
// form (POST /pause-schedule, field `namex`), or Resume for a paused one,
// and no auto-refresh (a token being typed would be lost).
// Test: ServeOverviewTest.SchedulesPage.
std::string SchedulesPage(const std::vector<ScheduleInfo>& schedules,
                          absl::Time db_now, const Refresh& refresh = {},
                          bool writable = false);

// ScheduleActionPage()
//
// What a Pause or Resume of schedule `name` did (`found`: false when no
// schedule has that name).
std::string ScheduleActionPage(absl::string_view action, absl::string_view name,
                               bool found);

// TaskList: what a task list shows: tasks in `state` (or all), of `kind`
// (or every kind); recurring schedules' occurrences left out, listed with
// the rest or alone (`occurrences`), or only those of `schedule`.
struct TaskList {
  std::optional<TaskState> state;
  std::optional<std::string> kind;
  TaskFilter::Occurrences occurrences = TaskFilter::Occurrences::kExclude;
  std::optional<std::string> schedule;
};

// TasksPage()
//
// One page of tasks as `list` says, each row with its kind (a link to that
// kind's tasks, `kindx` hex) and priority; a GET form to filter by kind
// (`kind`, text); links to show occurrences (`occurrences=include|only`,
// default left out) or hide them; a link to the next page (`next_after`
// as `afterx`, hex) that keeps the filters.
// Tests: ServePagesTest.TasksPageRowsAndPaging,
// ServePagesTest.KindsAndAttemptErrorsAreEscaped,
// ServeOverviewTest.OccurrencesAreReadableAndFiltered.
std::string TasksPage(const TaskList& list, const TaskPage& page, int limit,
                      const Refresh& refresh = {});

// FailedPage()
//
// FAILED tasks with their last errors and, when `writable`, a Retry form
// each (POST /retry with `idx` and a `token` field to fill in).
std::string FailedPage(const std::vector<TaskDetail>& failed,
                       const TaskPage& page, int limit, bool writable,
                       const TaskList& list = {});

// TaskDetailPage()
//
// Everything `Show()` returned, kind and priority too, and the attempt
// history (`<table id="attempts">`, a `<tr data-attempt="N">` per record,
// cells `outcome`, `node`, `started`, `finished`, `duration`, `error`); a
// Retry form for a FAILED task and a Cancel form for a PENDING or
// SCHEDULED one, when `writable`.
// Test: ServePagesTest.KindsAndAttemptErrorsAreEscaped.
std::string TaskDetailPage(const TaskDetail& task, bool writable);

// ActionPage()
//
// What a Retry or Cancel did.
std::string ActionPage(absl::string_view action, absl::string_view id,
                       const ActionResult& result);

// MessagePage()
//
// A page with one message (errors, refusals); both escaped.
std::string MessagePage(absl::string_view title, absl::string_view message);

extern const char kStylesheet[];

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_PAGES_H_
