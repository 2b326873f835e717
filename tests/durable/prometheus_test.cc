// Copyright 2026 The timingwheel Authors.
//
// The Prometheus text format (durable/prometheus.h): exact output for known
// values, escaping, number formatting, and the histogram under concurrent
// observers. No database.

#include "durable/prometheus.h"

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace timingwheel {
namespace prometheus {
namespace {

TEST(PrometheusTest, FormatsNumbersShortestAndExact) {
  EXPECT_EQ(FormatPrometheusValue(0), "0");
  EXPECT_EQ(FormatPrometheusValue(12), "12");
  EXPECT_EQ(FormatPrometheusValue(-3), "-3");
  EXPECT_EQ(FormatPrometheusValue(0.005), "0.005");
  EXPECT_EQ(FormatPrometheusValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatPrometheusValue(2.5), "2.5");
  EXPECT_EQ(FormatPrometheusValue(1e-4), "0.0001");
  EXPECT_EQ(FormatPrometheusValue(1e20), "1e+20");
  EXPECT_EQ(FormatPrometheusValue(std::numeric_limits<double>::infinity()),
            "+Inf");
  EXPECT_EQ(FormatPrometheusValue(-std::numeric_limits<double>::infinity()),
            "-Inf");
  EXPECT_EQ(FormatPrometheusValue(std::nan("")), "NaN");
}

TEST(PrometheusTest, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabelValue("plain-node_1"), "plain-node_1");
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  // Valid UTF-8 passes; bytes that are not UTF-8 become U+FFFD.
  EXPECT_EQ(EscapeLabelValue("h\xC3\xA9llo"), "h\xC3\xA9llo");
  EXPECT_EQ(EscapeLabelValue("x\xFFy"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(EscapeLabelValue("\xC3"), "\xEF\xBF\xBD");  // Truncated.
  EXPECT_EQ(EscapeLabelValue("\xED\xA0\x80"),           // A surrogate.
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(EscapeLabelValue(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(PrometheusTest, EscapesHelp) {
  EXPECT_EQ(EscapeHelp("one\\two\nthree \"quoted\""),
            "one\\\\two\\nthree \"quoted\"");
}

TEST(PrometheusTest, WriterRendersCountersAndGaugesExactly) {
  PrometheusWriter w;
  w.AddCounter("app_requests_total", "Requests.", {{"node", "a"}}, 12);
  w.AddCounter("app_requests_total", "Requests.", {{"node", "b\"q"}}, 3);
  w.AddGauge("app_in_flight", "Now.\nSecond line.", {}, 2.5);
  EXPECT_EQ(w.text(),
            "# HELP app_requests_total Requests.\n"
            "# TYPE app_requests_total counter\n"
            "app_requests_total{node=\"a\"} 12\n"
            "app_requests_total{node=\"b\\\"q\"} 3\n"
            "# HELP app_in_flight Now.\\nSecond line.\n"
            "# TYPE app_in_flight gauge\n"
            "app_in_flight 2.5\n");
}

TEST(PrometheusTest, WriterRendersHistogramsExactly) {
  Histogram h({0.005, 0.1, 1});
  // Binary fractions, so that the sum is exact.
  h.Observe(0.00390625);
  h.Observe(0.0048828125);
  h.Observe(0.0625);
  h.Observe(7);
  PrometheusWriter w;
  w.AddHistogram("app_latency_seconds", "Latency.",
                 {{"node", "n1"}, {"statement", "claim_due"}}, h.Snapshot());
  EXPECT_EQ(w.text(),
            "# HELP app_latency_seconds Latency.\n"
            "# TYPE app_latency_seconds histogram\n"
            "app_latency_seconds_bucket{node=\"n1\",statement=\"claim_due\","
            "le=\"0.005\"} 2\n"
            "app_latency_seconds_bucket{node=\"n1\",statement=\"claim_due\","
            "le=\"0.1\"} 3\n"
            "app_latency_seconds_bucket{node=\"n1\",statement=\"claim_due\","
            "le=\"1\"} 3\n"
            "app_latency_seconds_bucket{node=\"n1\",statement=\"claim_due\","
            "le=\"+Inf\"} 4\n"
            "app_latency_seconds_sum{node=\"n1\",statement=\"claim_due\"} "
            "7.0712890625\n"
            "app_latency_seconds_count{node=\"n1\",statement=\"claim_due\"} "
            "4\n");
}

TEST(PrometheusTest, WriterRendersAnEmptyUnlabelledHistogram) {
  Histogram h({1});
  PrometheusWriter w;
  w.AddHistogram("x_seconds", "X.", {}, h.Snapshot());
  EXPECT_EQ(w.text(),
            "# HELP x_seconds X.\n"
            "# TYPE x_seconds histogram\n"
            "x_seconds_bucket{le=\"1\"} 0\n"
            "x_seconds_bucket{le=\"+Inf\"} 0\n"
            "x_seconds_sum 0\n"
            "x_seconds_count 0\n");
}

TEST(PrometheusTest, HistogramBucketsAreCumulativeAndIgnoreNaN) {
  Histogram h({1, 2, 4});
  for (double v : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, -1.0}) h.Observe(v);
  h.Observe(std::nan(""));
  HistogramSnapshot s = h.Snapshot();
  EXPECT_EQ(s.bounds, (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(s.cumulative, (std::vector<uint64_t>{3, 5, 7}));
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.sum, 16.0);
}

TEST(PrometheusTest, HistogramBucketsWithoutBoundsHaveOnlyInf) {
  Histogram h({});
  h.Observe(3);
  HistogramSnapshot s = h.Snapshot();
  EXPECT_TRUE(s.cumulative.empty());
  EXPECT_EQ(s.count, 1u);
}

TEST(PrometheusTest, HistogramObservedFromManyThreads) {
  Histogram h({0.5});
  constexpr int kThreads = 4;
  constexpr int kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < kEach; ++i) h.Observe(t % 2 == 0 ? 0.25 : 1.0);
    });
  }
  // A snapshot taken meanwhile is consistent: the +Inf count is the total.
  for (int i = 0; i < 100; ++i) {
    HistogramSnapshot s = h.Snapshot();
    EXPECT_LE(s.cumulative[0], s.count);
    EXPECT_DOUBLE_EQ(
        s.sum, 0.25 * s.cumulative[0] + 1.0 * (s.count - s.cumulative[0]));
  }
  for (auto& t : threads) t.join();
  HistogramSnapshot s = h.Snapshot();
  EXPECT_EQ(s.count, static_cast<uint64_t>(kThreads) * kEach);
  EXPECT_EQ(s.cumulative[0], static_cast<uint64_t>(kThreads / 2) * kEach);
}

TEST(PrometheusTest, ExponentialBounds) {
  std::vector<double> bounds = ExponentialBounds(0.25, 2, 4);
  EXPECT_EQ(bounds, (std::vector<double>{0.25, 0.5, 1, 2}));
}

}  // namespace
}  // namespace prometheus
}  // namespace timingwheel
