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
//
// This file defines:
//
//   * `Layout()`: the frame of every page (title, navigation, stylesheet).
//   * `OverviewPage()`, `SlotsPage()`, `TasksPage()`, `FailedPage()`,
//     `TaskDetailPage()`, `ActionPage()`, `MessagePage()`.
//   * `kStylesheet`: the CSS served at /static/dashboard.css.
//
// Tests: tests/tools/twctl/serve_pages_test.cc (ServePagesTest.*).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_PAGES_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_PAGES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "durable/admin_store.h"
#include "tools/twctl/serve_chart.h"

namespace timingwheel {
namespace twctl {

// Layout()
//
// A whole HTML document: `title` (escaped), the navigation with `active`
// marked, and `body` (already HTML).
std::string Layout(absl::string_view title, absl::string_view active,
                   absl::string_view body);

// OverviewPage()
//
// Counts by state (each a link to its task list), nodes, next due, oldest
// overdue, the kinds (`<table id="kinds">`, a `<tr data-kind="HEX">` per
// kind: who registered it, its tasks), and the two charts.
// Tests: ServePagesTest.OverviewCountsEveryState,
// ServePagesTest.KindsAndAttemptErrorsAreEscaped.
std::string OverviewPage(const StoreStatus& status, const BarChart& due,
                         const BarChart& lateness);

// SlotsPage()
//
// Every slot: owner, epoch, lease until, valid or not, horizon; and the
// nodes with their heartbeats.
std::string SlotsPage(const StoreStatus& status);

// TasksPage()
//
// One page of tasks (in `state`, or all; of `kind`, or every kind), each
// row with its kind (a link to that kind's tasks, `kindx` hex) and
// priority; a GET form to filter by kind (`kind`, text); a link to the
// next page (`next_after` as `afterx`, hex) that keeps the filters.
// Test: ServePagesTest.TasksPageRowsAndPaging,
// ServePagesTest.KindsAndAttemptErrorsAreEscaped.
std::string TasksPage(std::optional<TaskState> state,
                      const std::optional<std::string>& kind,
                      const TaskPage& page, int limit);

// FailedPage()
//
// FAILED tasks with their last errors and, when `writable`, a Retry form
// each (POST /retry with `idx` and a `token` field to fill in).
std::string FailedPage(const std::vector<TaskDetail>& failed,
                       const TaskPage& page, int limit, bool writable);

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
