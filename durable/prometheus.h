// Copyright 2026 The timingwheel Authors.
//
// prometheus.h
// -----------------------------------------------------------------------------
//
// Metrics in Prometheus's text exposition format, version 0.0.4, without a
// client library: a fixed-bucket histogram that many threads observe into,
// and a writer that renders counters, gauges and histograms as text that a
// Prometheus server scrapes. The format, in short:
//
//   # HELP timingwheel_durable_attempts_total Attempts started.
//   # TYPE timingwheel_durable_attempts_total counter
//   timingwheel_durable_attempts_total{node="a"} 12
//   # HELP timingwheel_durable_fire_lateness_seconds ...
//   # TYPE timingwheel_durable_fire_lateness_seconds histogram
//   timingwheel_durable_fire_lateness_seconds_bucket{node="a",le="0.001"} 7
//   ...
//   timingwheel_durable_fire_lateness_seconds_bucket{node="a",le="+Inf"} 12
//   timingwheel_durable_fire_lateness_seconds_sum{node="a"} 0.0121
//   timingwheel_durable_fire_lateness_seconds_count{node="a"} 12
//
// Label values are escaped (backslash, double quote, newline) and made
// valid UTF-8 (a node id is bytes); HELP text escapes backslash and newline.
// Numbers are printed in the shortest form that reads back as the same
// double ("0.005", not "0.0050000000000000001"); infinities as "+Inf" and
// "-Inf", NaN as "NaN".
//
// This file defines:
//
//   * `Histogram`: fixed upper bounds, observed from any thread.
//   * `HistogramSnapshot`: its cumulative bucket counts, sum and count.
//   * `PrometheusWriter`: renders metric families into one text.
//   * `FormatPrometheusValue()`, `EscapeLabelValue()`: the pieces, exposed
//     for tests.
//
// Tests: tests/durable/prometheus_test.cc (PrometheusTest.*).

#ifndef TIMINGWHEEL_DURABLE_PROMETHEUS_H_
#define TIMINGWHEEL_DURABLE_PROMETHEUS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"

namespace timingwheel {
namespace prometheus {

namespace internal {

// Mutex / MutexLock: `std::mutex` declared as a capability, so that clang's
// -Wthread-safety checks `ABSL_GUARDED_BY` (ThreadSanitizer still sees a
// plain `std::mutex`). Thread-safe / thread-compatible.
class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_.Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace internal

// Labels
//
// (name, value) pairs, rendered in the given order. Names must match
// [a-zA-Z_][a-zA-Z0-9_]* and must not be "le" on a histogram; values are any
// bytes.
using Labels = std::vector<std::pair<std::string, std::string>>;

// HistogramSnapshot
//
// A histogram at one instant: `bounds[i]` is the i-th upper bound (the
// implicit +Inf bucket is not listed), `cumulative[i]` the number of
// observations <= bounds[i]; `count` includes those above the last bound.
struct HistogramSnapshot {
  std::vector<double> bounds;
  std::vector<uint64_t> cumulative;
  double sum = 0;
  uint64_t count = 0;
};

// Histogram
//
// Counts observations into buckets with fixed upper bounds (a value lands
// in the first bucket whose bound is >= the value, as Prometheus's `le`
// says), keeping their sum and count. Thread-safe: `Observe()` and
// `Snapshot()` may be called from any thread, concurrently (one short
// critical section each). PrometheusTest.HistogramBuckets*,
// PrometheusTest.HistogramObservedFromManyThreads.
class Histogram {
 public:
  // Histogram::Histogram()
  //
  // `bounds` must be finite and strictly increasing (checked in debug
  // builds); it may be empty (one +Inf bucket).
  explicit Histogram(std::vector<double> bounds);

  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Histogram::Observe()
  //
  // Records `value` (NaN is ignored).
  void Observe(double value);

  // Histogram::Snapshot()
  //
  // A consistent copy: every observation is either wholly in it or not.
  HistogramSnapshot Snapshot() const;

  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  mutable internal::Mutex mu_;
  // counts_[i]: observations in bucket i only (not cumulative); the last
  // one is the +Inf bucket.
  std::vector<uint64_t> counts_ ABSL_GUARDED_BY(mu_);
  double sum_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t count_ ABSL_GUARDED_BY(mu_) = 0;
};

// ExponentialBounds()
//
// `count` bounds `start`, `start * factor`, ... (start > 0, factor > 1).
std::vector<double> ExponentialBounds(double start, double factor, int count);

// PrometheusWriter
//
// Builds one exposition text. Each `Add*()` call adds one sample (or, for a
// histogram, its bucket/sum/count series) to the family `name`; the first
// sample of a family writes its `# HELP` and `# TYPE` lines. All samples of
// a family must be added one after the other (the format requires it; a
// family added again after another one is a programming error, checked in
// debug builds). Counter names should end in `_total`; units are base units
// (`_seconds`, `_bytes`). Thread-compatible. PrometheusTest.Writer*.
class PrometheusWriter {
 public:
  void AddCounter(absl::string_view name, absl::string_view help,
                  const Labels& labels, double value);
  void AddGauge(absl::string_view name, absl::string_view help,
                const Labels& labels, double value);
  void AddHistogram(absl::string_view name, absl::string_view help,
                    const Labels& labels, const HistogramSnapshot& snapshot);

  // PrometheusWriter::text()
  //
  // Everything added so far; each line ends in "\n".
  const std::string& text() const { return text_; }

 private:
  void BeginFamily(absl::string_view name, absl::string_view help,
                   absl::string_view type);

  std::string text_;
  std::string family_;             // The family being written.
  std::vector<std::string> done_;  // Families written (debug check).
};

// FormatPrometheusValue()
//
// `value` as the format wants it: the shortest decimal that reads back as
// the same double, "+Inf", "-Inf", "NaN".
std::string FormatPrometheusValue(double value);

// EscapeLabelValue()
//
// `value` with `\` as `\\`, `"` as `\"`, newline as `\n`, and every byte
// that is not part of valid UTF-8 replaced by U+FFFD.
std::string EscapeLabelValue(absl::string_view value);

// EscapeHelp()
//
// `help` with `\` as `\\` and newline as `\n`.
std::string EscapeHelp(absl::string_view help);

// kContentType
//
// The Content-Type of a response that carries the text.
inline constexpr absl::string_view kContentType =
    "text/plain; version=0.0.4; charset=utf-8";

}  // namespace prometheus
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_PROMETHEUS_H_
