// Copyright 2026 The timingwheel Authors.
//
// svg_chart.h
// -----------------------------------------------------------------------------
//
// `WriteBarChartSvg()`: a horizontal bar chart on a log scale, as a small
// standalone SVG file, for results that span orders of magnitude (wake-ups:
// 10 against 20,000) and so read badly in a table.

#ifndef TIMINGWHEEL_BENCHMARKS_SVG_CHART_H_
#define TIMINGWHEEL_BENCHMARKS_SVG_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace timingwheel {
namespace bench {

// WriteBarChartSvg()
//
// Writes `bars` (label, value >= 0) to `path` under `title`, the value axis
// in powers of ten. Returns whether the file was written.
bool WriteBarChartSvg(const std::string& path, const std::string& title,
                      const std::vector<std::pair<std::string, double>>& bars);

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_SVG_CHART_H_
