// Copyright 2026 The timingwheel Authors.

#include "benchmarks/lateness.h"

#include <algorithm>
#include <cmath>

namespace timingwheel {
namespace bench {

double Percentile(const std::vector<double>& sorted_values, double p) {
  if (sorted_values.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * sorted_values.size());
  const size_t index = std::min(sorted_values.size() - 1,
                                static_cast<size_t>(std::max(1.0, rank)) - 1);
  return sorted_values[index];
}

Lateness SummarizeLateness(const std::vector<int64_t>& due_ns,
                           const std::vector<int64_t>& fired_ns) {
  Lateness result;
  std::vector<double> late_ms;
  late_ms.reserve(due_ns.size());
  double sum = 0;
  for (size_t i = 0; i < due_ns.size(); ++i) {
    if (fired_ns[i] == kNotFired) {
      ++result.missed;
      continue;
    }
    const int64_t late = fired_ns[i] - due_ns[i];
    if (late < 0) ++result.early;
    late_ms.push_back(static_cast<double>(late) / 1e6);
    sum += late_ms.back();
  }
  if (late_ms.empty()) return result;
  std::sort(late_ms.begin(), late_ms.end());
  result.mean_ms = sum / static_cast<double>(late_ms.size());
  result.p50_ms = Percentile(late_ms, 50);
  result.p99_ms = Percentile(late_ms, 99);
  result.max_ms = late_ms.back();
  return result;
}

}  // namespace bench
}  // namespace timingwheel
