// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/output.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "durable/recurrence/occurrence_id.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr char kHex[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The length of the valid UTF-8 sequence at the start of `s`, or 0.
size_t Utf8Length(absl::string_view s) {
  const unsigned char c = static_cast<unsigned char>(s[0]);
  size_t n;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  uint32_t cp = c & (0x7f >> n);
  for (size_t i = 1; i < n; ++i) {
    const unsigned char k = static_cast<unsigned char>(s[i]);
    if ((k & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (k & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

std::string EscapeBytes(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c <= 0x7e) {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

absl::StatusOr<std::string> UnescapeBytes(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      ++i;
      continue;
    }
    if (i + 3 < text.size() && text[i + 1] == 'x' &&
        HexValue(text[i + 2]) >= 0 && HexValue(text[i + 3]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 2]) * 16 +
                                      HexValue(text[i + 3])));
      i += 3;
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "bad escape at byte ", i,
        ": use \\\\ for a backslash and \\xNN for any other byte"));
  }
  return out;
}

std::string HexBytes(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xf]);
  }
  return out;
}

std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else if (c >= 0x80) {
          const size_t n = Utf8Length(text.substr(i));
          if (n == 0) {
            out += "\\ufffd";
            ++i;
            continue;
          }
          out.append(text.data() + i, n);
          i += n;
          continue;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out += "\"";
  return out;
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(absl::string_view key) {
  BeforeValue();
  out_ += JsonQuote(key);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(absl::string_view text) {
  BeforeValue();
  out_ += JsonQuote(text);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Time(absl::Time t) { return String(UtcTime(t)); }

void WriteBytesField(JsonWriter& j, absl::string_view name,
                     absl::string_view bytes) {
  j.Key(name).String(EscapeBytes(bytes));
  j.Key(absl::StrCat(name, "_hex")).String(HexBytes(bytes));
}

std::string Table::Render() const {
  std::vector<size_t> widths(header_.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  std::string out;
  auto render = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line.append(widths[i] - row[i].size() + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out.push_back('\n');
  };
  if (!header_.empty()) render(header_);
  for (const auto& row : rows_) render(row);
  return out;
}

std::string UtcTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

std::string OccurrenceLabel(absl::string_view id) {
  std::string name;
  int64_t us = 0;
  if (!durable_internal::ParseOccurrenceId(id, &name, &us)) return "";
  return absl::StrCat(
      EscapeBytes(name), " @ ",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", absl::FromUnixMicros(us),
                       absl::UTCTimeZone()));
}

std::string KindLabel(absl::string_view kind) {
  return kind.empty() ? std::string("-") : EscapeBytes(kind);
}

std::string TruncatedBytes(absl::string_view bytes, size_t max_bytes) {
  if (bytes.size() <= max_bytes) return EscapeBytes(bytes);
  return absl::StrCat(EscapeBytes(bytes.substr(0, max_bytes)), "...");
}

std::string FormatAge(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(d, absl::Milliseconds(1)));
}

}  // namespace twctl
}  // namespace timingwheel
