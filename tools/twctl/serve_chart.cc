// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_chart.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/twctl/serve_html.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr int kWidth = 720;
constexpr int kHeight = 180;
constexpr int kTop = 24;     // Room for the title.
constexpr int kBottom = 22;  // Room for the axis labels.
constexpr int kLeft = 40;    // Room for the scale.

}  // namespace

std::string BarChartSvg(const BarChart& chart) {
  const size_t n = chart.values.size();
  int64_t max = 0;
  for (int64_t v : chart.values) max = std::max(max, v);
  const double plot_w = kWidth - kLeft - 4;
  const double plot_h = kHeight - kTop - kBottom;
  const double bar_w = n == 0 ? 0 : plot_w / static_cast<double>(n);
  std::string svg = absl::StrFormat(
      "<svg id=\"%s\" class=\"chart\" "
      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
      "aria-label=\"%s\">\n",
      HtmlEscape(chart.id), kWidth, kHeight, kWidth, kHeight,
      HtmlEscape(chart.title));
  absl::StrAppendFormat(&svg,
                        "<text x=\"%d\" y=\"16\" class=\"chart-title\">%s"
                        "</text>\n",
                        kLeft, HtmlEscape(chart.title));
  absl::StrAppendFormat(&svg,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                        "class=\"chart-scale\">%d</text>\n",
                        kLeft - 4, kTop + 10, max);
  absl::StrAppendFormat(&svg,
                        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                        "class=\"chart-axis\"/>\n",
                        kLeft, kTop + static_cast<int>(plot_h), kWidth - 4,
                        kTop + static_cast<int>(plot_h));
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = chart.values[i];
    const double h = max == 0 ? 0 : plot_h * static_cast<double>(v) / max;
    const std::string label = i < chart.labels.size() ? chart.labels[i] : "";
    absl::StrAppendFormat(
        &svg,
        "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
        "height=\"%.1f\" data-label=\"%s\" data-value=\"%d\">"
        "<title>%s: %d</title></rect>\n",
        kLeft + bar_w * static_cast<double>(i) + 0.5, kTop + plot_h - h,
        std::max(1.0, bar_w - 1), h, HtmlEscape(label), v, HtmlEscape(label),
        v);
    if (i == 0 || i == n / 2 || i + 1 == n) {
      // The last label ends at its bar, so that it stays inside the chart.
      const bool last = i + 1 == n && n > 1;
      absl::StrAppendFormat(
          &svg,
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" "
          "class=\"chart-label\">%s</text>\n",
          kLeft + bar_w * (static_cast<double>(i) + (last ? 1.0 : 0.5)),
          kHeight - 6, last ? "end" : "middle", HtmlEscape(label));
    }
  }
  svg += "</svg>\n";
  return svg;
}

BarChart DueHistogram(const std::vector<absl::Time>& dues, absl::Time now) {
  BarChart chart;
  chart.title = "Tasks due in the next hour, per minute";
  chart.id = "due-chart";
  chart.values.assign(60, 0);
  for (int i = 0; i < 60; ++i)
    chart.labels.push_back(absl::StrCat("+", i, "m"));
  for (absl::Time due : dues) {
    if (due < now) continue;
    const int64_t minute = (due - now) / absl::Minutes(1);
    if (minute < 60) ++chart.values[minute];
  }
  return chart;
}

BarChart LatenessHistogram(const std::vector<absl::Time>& dues,
                           absl::Time now) {
  BarChart chart;
  chart.title = "Overdue tasks not yet started, by lateness";
  chart.id = "lateness-chart";
  chart.labels = {"<1s", "1-10s", "10-60s", "1-10m", "10-60m", ">=1h"};
  const absl::Duration edges[] = {absl::Seconds(1), absl::Seconds(10),
                                  absl::Minutes(1), absl::Minutes(10),
                                  absl::Hours(1)};
  chart.values.assign(chart.labels.size(), 0);
  for (absl::Time due : dues) {
    if (due > now) continue;
    const absl::Duration late = now - due;
    size_t bucket = 0;
    while (bucket < 5 && late >= edges[bucket]) ++bucket;
    ++chart.values[bucket];
  }
  return chart;
}

}  // namespace twctl
}  // namespace timingwheel
