// Copyright 2026 The timingwheel Authors.
//
// serve_html.h
// -----------------------------------------------------------------------------
//
// The escaping that every value `twctl serve` shows goes through. Task ids,
// payloads, errors and node ids are user bytes: any of them may hold
// `<script>`, quotes, NUL or bytes that are not UTF-8. This file defines:
//
//   * `HtmlEscape()`: bytes as HTML text or attribute value.
//   * `HexEncode()` / `HexDecode()`: bytes in URLs and form fields, exactly.
//   * `UrlEncode()`: bytes as a query-string value.
//   * `ShowTime()`, `ShowDuration()`, `ShowRelative()`: times for people.
//
// Tests: tests/tools/twctl/serve_html_test.cc (ServeHtmlTest.*).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_HTML_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_HTML_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace twctl {

// HtmlEscape()
//
// `bytes` safe as HTML text and as a double- or single-quoted attribute
// value: `&<>"'` become entities; valid UTF-8 other than control characters
// passes; every control byte (below 0x20 but tab, and 0x7F) and every byte
// that is not part of valid UTF-8 is shown as the text `\xNN`, and a
// backslash as `\\`, so that two different ids never look the same.
std::string HtmlEscape(absl::string_view bytes);

// HexEncode()
//
// Lower-case hex of `bytes` ("ab" -> "6162").
std::string HexEncode(absl::string_view bytes);

// HexDecode()
//
// The bytes of `hex` (either case); nullopt for odd length or a non-hex
// character.
std::optional<std::string> HexDecode(absl::string_view hex);

// UrlEncode()
//
// `bytes` with every byte but [A-Za-z0-9-._~] as %XX.
std::string UrlEncode(absl::string_view bytes);

// ShowTime()
//
// "2026-12-02 01:02:03.456 UTC".
std::string ShowTime(absl::Time t);

// ShowDuration()
//
// "1h2m", "3.5s", "-2m" (before), truncated to milliseconds.
std::string ShowDuration(absl::Duration d);

// ShowRelative()
//
// A due time relative to the database's now, for people: "in 1m30s",
// "24.8s ago", "now"; truncated to milliseconds.
std::string ShowRelative(absl::Duration from_now);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_HTML_H_
