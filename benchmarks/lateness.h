// Copyright 2026 The timingwheel Authors.
//
// lateness.h
// -----------------------------------------------------------------------------
//
// `Lateness`: how late a set of timers fired, summarized the way the
// benchmarks report it (mean, p99, max in milliseconds; how many fired early,
// that is before their due time; how many never fired).

#ifndef TIMINGWHEEL_BENCHMARKS_LATENESS_H_
#define TIMINGWHEEL_BENCHMARKS_LATENESS_H_

#include <cstdint>
#include <vector>

namespace timingwheel {
namespace bench {

// Lateness
//
// Summary of `fired - due` over the timers that fired.
struct Lateness {
  double mean_ms = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  int64_t early = 0;   // Fired before due.
  int64_t missed = 0;  // Never fired.
};

// kNotFired: the fire time of a timer that never fired.
inline constexpr int64_t kNotFired = INT64_MIN;

// SummarizeLateness()
//
// Summarizes timers with due times `due_ns` and fire times `fired_ns`
// (`kNotFired` for none), both in nanoseconds on the same clock.
// Percentiles are nearest-rank.
Lateness SummarizeLateness(const std::vector<int64_t>& due_ns,
                           const std::vector<int64_t>& fired_ns);

// Percentile()
//
// The nearest-rank `p`-th percentile (0 < p <= 100) of sorted `values`.
double Percentile(const std::vector<double>& sorted_values, double p);

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_LATENESS_H_
