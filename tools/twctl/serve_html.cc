// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_html.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace timingwheel {
namespace twctl {
namespace {

// The length of the valid UTF-8 sequence of two to four bytes at the start
// of `s`, or 0.
size_t MultiByteLength(absl::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto cont = [&](size_t i) {
    return i < s.size() && (byte(i) & 0xC0) == 0x80;
  };
  const unsigned char b = byte(0);
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (b == 0xE0 && byte(1) < 0xA0) return 0;   // Overlong.
    if (b == 0xED && byte(1) >= 0xA0) return 0;  // Surrogate.
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (b == 0xF0 && byte(1) < 0x90) return 0;   // Overlong.
    if (b == 0xF4 && byte(1) >= 0x90) return 0;  // Past U+10FFFF.
    return 4;
  }
  return 0;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string HtmlEscape(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const unsigned char b = static_cast<unsigned char>(bytes[0]);
    if (b >= 0x80) {
      const size_t n = MultiByteLength(bytes);
      if (n > 0) {
        out.append(bytes.data(), n);
        bytes.remove_prefix(n);
        continue;
      }
      absl::StrAppendFormat(&out, "\\x%02X", b);
      bytes.remove_prefix(1);
      continue;
    }
    switch (b) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += '\t';
        break;
      default:
        if (b < 0x20 || b == 0x7F) {
          absl::StrAppendFormat(&out, "\\x%02X", b);
        } else {
          out += static_cast<char>(b);
        }
    }
    bytes.remove_prefix(1);
  }
  return out;
}

std::string HexEncode(absl::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const unsigned char b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xF];
  }
  return out;
}

std::optional<std::string> HexDecode(absl::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]);
    const int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string UrlEncode(absl::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    const unsigned char b = static_cast<unsigned char>(c);
    const bool plain = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') ||
                       (b >= '0' && b <= '9') || b == '-' || b == '.' ||
                       b == '_' || b == '~';
    if (plain) {
      out += c;
    } else {
      absl::StrAppendFormat(&out, "%%%02X", b);
    }
  }
  return out;
}

std::string ShowTime(absl::Time t) {
  if (t == absl::InfinitePast()) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S UTC", t, absl::UTCTimeZone());
}

std::string ShowDuration(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(d, absl::Milliseconds(1)));
}

std::string ShowRelative(absl::Duration from_now) {
  const absl::Duration d = absl::Trunc(from_now, absl::Milliseconds(1));
  if (d == absl::ZeroDuration()) return "now";
  if (d < absl::ZeroDuration()) return absl::StrCat(ShowDuration(-d), " ago");
  return absl::StrCat("in ", ShowDuration(d));
}

}  // namespace twctl
}  // namespace timingwheel
