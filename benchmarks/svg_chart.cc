// Copyright 2026 The timingwheel Authors.

#include "benchmarks/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "absl/strings/str_format.h"

namespace timingwheel {
namespace bench {

bool WriteBarChartSvg(const std::string& path, const std::string& title,
                      const std::vector<std::pair<std::string, double>>& bars) {
  constexpr int kLeft = 170, kRight = 90, kTop = 40, kBar = 22, kGap = 8;
  constexpr int kPlot = 480;
  const int height = kTop + static_cast<int>(bars.size()) * (kBar + kGap) + 40;
  const int width = kLeft + kPlot + kRight;
  double max_value = 1;
  for (const auto& bar : bars) max_value = std::max(max_value, bar.second);
  const int decades =
      std::max(1, static_cast<int>(std::ceil(std::log10(max_value))));
  // log10(1 + v) so that 0 has no bar and 1 has a visible one.
  auto x = [&](double value) {
    return kLeft + kPlot * std::log10(1 + value) / decades;
  };
  std::ofstream out(path);
  if (!out) return false;
  out << absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>\n",
      width, height, kLeft, title);
  const int axis_y = kTop + static_cast<int>(bars.size()) * (kBar + kGap);
  for (int d = 0; d <= decades; ++d) {
    const double gx = kLeft + kPlot * static_cast<double>(d) / decades;
    out << absl::StrFormat(
        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n"
        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
        gx, kTop - 6, gx, axis_y, gx, axis_y + 16,
        absl::StrFormat("%.0f", std::pow(10.0, d)));
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    const int y = kTop + static_cast<int>(i) * (kBar + kGap);
    const double end = x(bars[i].second);
    out << absl::StrFormat(
        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n"
        "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
        "fill=\"%s\"/>\n"
        "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
        kLeft - 8, y + kBar / 2 + 4, bars[i].first, kLeft, y, end - kLeft, kBar,
        i == 0 ? "#2a7" : "#789", end + 6, y + kBar / 2 + 4,
        absl::StrFormat("%.0f", bars[i].second));
  }
  out << "</svg>\n";
  return static_cast<bool>(out);
}

}  // namespace bench
}  // namespace timingwheel
