// Copyright 2026 The timingwheel Authors.

#include "durable/prometheus.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace prometheus {
namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0.
size_t Utf8SequenceLength(absl::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) {
    return i < s.size() && (byte(i) & 0xC0) == 0x80;
  };
  const unsigned char b = byte(0);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return continuation(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (b == 0xE0 && byte(1) < 0xA0) return 0;   // Overlong.
    if (b == 0xED && byte(1) >= 0xA0) return 0;  // Surrogates.
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (b == 0xF0 && byte(1) < 0x90) return 0;   // Overlong.
    if (b == 0xF4 && byte(1) >= 0x90) return 0;  // Past U+10FFFF.
    return 4;
  }
  return 0;
}

std::string RenderLabels(const Labels& labels, absl::string_view le) {
  if (labels.empty() && le.empty()) return "";
  std::string out = "{";
  bool first = true;
  for (const auto& [name, value] : labels) {
    absl::StrAppend(&out, first ? "" : ",", name, "=\"",
                    EscapeLabelValue(value), "\"");
    first = false;
  }
  if (!le.empty()) absl::StrAppend(&out, first ? "" : ",", "le=\"", le, "\"");
  out += "}";
  return out;
}

bool ValidName(absl::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    assert(std::isfinite(bounds_[i]));
    assert(i == 0 || bounds_[i - 1] < bounds_[i]);
  }
}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  // The first bound >= value (`le`); past the last one, the +Inf bucket.
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) -
      bounds_.begin());
  internal::MutexLock lock(mu_);
  ++counts_[bucket];
  sum_ += value;
  ++count_;
}

HistogramSnapshot Histogram::Snapshot() const {
  HistogramSnapshot snapshot;
  snapshot.bounds = bounds_;
  snapshot.cumulative.reserve(bounds_.size());
  internal::MutexLock lock(mu_);
  uint64_t running = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    running += counts_[i];
    snapshot.cumulative.push_back(running);
  }
  snapshot.sum = sum_;
  snapshot.count = count_;
  return snapshot;
}

std::vector<double> ExponentialBounds(double start, double factor, int count) {
  assert(start > 0 && factor > 1 && count >= 0);
  std::vector<double> bounds;
  double bound = start;
  for (int i = 0; i < count; ++i) {
    bounds.push_back(bound);
    bound *= factor;
  }
  return bounds;
}

std::string FormatPrometheusValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

std::string EscapeLabelValue(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  while (!value.empty()) {
    const size_t n = Utf8SequenceLength(value);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD, the replacement character.
      value.remove_prefix(1);
      continue;
    }
    if (n == 1) {
      switch (value[0]) {
        case '\\':
          out += "\\\\";
          break;
        case '"':
          out += "\\\"";
          break;
        case '\n':
          out += "\\n";
          break;
        default:
          out += value[0];
      }
    } else {
      out.append(value.data(), n);
    }
    value.remove_prefix(n);
  }
  return out;
}

std::string EscapeHelp(absl::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PrometheusWriter::BeginFamily(absl::string_view name,
                                   absl::string_view help,
                                   absl::string_view type) {
  assert(ValidName(name));
  (void)ValidName;
  if (name == family_) return;
  assert(std::find(done_.begin(), done_.end(), name) == done_.end());
  family_ = std::string(name);
  done_.push_back(family_);
  absl::StrAppend(&text_, "# HELP ", name, " ", EscapeHelp(help), "\n");
  absl::StrAppend(&text_, "# TYPE ", name, " ", type, "\n");
}

void PrometheusWriter::AddCounter(absl::string_view name,
                                  absl::string_view help, const Labels& labels,
                                  double value) {
  BeginFamily(name, help, "counter");
  absl::StrAppend(&text_, name, RenderLabels(labels, ""), " ",
                  FormatPrometheusValue(value), "\n");
}

void PrometheusWriter::AddGauge(absl::string_view name, absl::string_view help,
                                const Labels& labels, double value) {
  BeginFamily(name, help, "gauge");
  absl::StrAppend(&text_, name, RenderLabels(labels, ""), " ",
                  FormatPrometheusValue(value), "\n");
}

void PrometheusWriter::AddHistogram(absl::string_view name,
                                    absl::string_view help,
                                    const Labels& labels,
                                    const HistogramSnapshot& snapshot) {
  BeginFamily(name, help, "histogram");
  for (size_t i = 0; i < snapshot.bounds.size(); ++i) {
    absl::StrAppend(
        &text_, name, "_bucket",
        RenderLabels(labels, FormatPrometheusValue(snapshot.bounds[i])), " ",
        snapshot.cumulative[i], "\n");
  }
  absl::StrAppend(&text_, name, "_bucket", RenderLabels(labels, "+Inf"), " ",
                  snapshot.count, "\n");
  absl::StrAppend(&text_, name, "_sum", RenderLabels(labels, ""), " ",
                  FormatPrometheusValue(snapshot.sum), "\n");
  absl::StrAppend(&text_, name, "_count", RenderLabels(labels, ""), " ",
                  snapshot.count, "\n");
}

}  // namespace prometheus
}  // namespace timingwheel
