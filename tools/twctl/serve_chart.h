// Copyright 2026 The timingwheel Authors.
//
// serve_chart.h
// -----------------------------------------------------------------------------
//
// The dashboard's charts, drawn on the server as inline SVG (no script, no
// library, nothing fetched): bar charts of counts, and the bucketing of due
// times that feeds them. Pure functions. This file defines:
//
//   * `BarChart` and `BarChartSvg()`: counts as bars, each with a tooltip.
//   * `DueHistogram()`: tasks due over the next hour, per minute.
//   * `LatenessHistogram()`: how far overdue unstarted tasks are.
//
// Tests: tests/tools/twctl/serve_pages_test.cc (ServeChartTest.*).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_CHART_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_CHART_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace timingwheel {
namespace twctl {

// BarChart: one bar per label.
struct BarChart {
  std::string title;                // Shown above; escaped.
  std::string id;                   // The svg element's id (plain).
  std::vector<std::string> labels;  // Bar labels; escaped.
  std::vector<int64_t> values;      // Same length as labels.
};

// BarChartSvg()
//
// An `<svg>` element: bars scaled to the largest value, every bar a
// `<rect>` with a `<title>` "label: value" (and `data-value`), axis labels
// at the first, middle and last bar. Every text is escaped.
std::string BarChartSvg(const BarChart& chart);

// DueHistogram()
//
// `dues` counted into 60 one-minute buckets from `now`: bucket i holds due
// times in [now + i min, now + (i + 1) min). Others are not counted.
BarChart DueHistogram(const std::vector<absl::Time>& dues, absl::Time now);

// LatenessHistogram()
//
// Overdue due times (at or before `now`) counted by how late they are:
// < 1 s, 1-10 s, 10-60 s, 1-10 min, 10-60 min, >= 1 h. Others are not
// counted.
BarChart LatenessHistogram(const std::vector<absl::Time>& dues, absl::Time now);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_CHART_H_
