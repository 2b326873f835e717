// Copyright 2026 The timingwheel Authors.
//
// output.h
// -----------------------------------------------------------------------------
//
// How twctl prints: tables for people, JSON for scripts, and the one way it
// shows bytes (task ids, payloads, errors) in either. This file defines:
//
//   * `EscapeBytes()` / `UnescapeBytes()`: printable ASCII as-is, a
//     backslash as `\\`, every other byte as `\xNN`; and back (ids given on
//     the command line use the same form, so what twctl prints can be
//     pasted back).
//   * `HexBytes()`: lowercase hex of raw bytes (JSON's exact `*_hex` fields).
//   * `JsonWriter`: compact JSON with correct string escaping.
//   * `Table`: columns aligned with two spaces, for people.
//   * `UtcTime()`, `FormatAge()`: RFC 3339 UTC with microseconds; a
//     duration truncated to the millisecond.
//   * `KindLabel()`, `TruncatedBytes()`: a task kind, and a long error, in
//     a table cell.
// Tested by tests/tools/twctl/output_test.cc.
//
// Thread safety: values of these types are thread-compatible.

#ifndef TIMINGWHEEL_TOOLS_TWCTL_OUTPUT_H_
#define TIMINGWHEEL_TOOLS_TWCTL_OUTPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace twctl {

// EscapeBytes()
//
// Bytes 0x20..0x7e as-is except `\` (as `\\`); every other byte as `\xNN`
// (lowercase hex). The result is printable ASCII and never holds a newline.
std::string EscapeBytes(absl::string_view bytes);

// UnescapeBytes()
//
// The inverse of `EscapeBytes()`: `\\` and `\xNN` are decoded, other
// characters kept. InvalidArgument for any other escape.
absl::StatusOr<std::string> UnescapeBytes(absl::string_view text);

// HexBytes()
//
// Two lowercase hex digits per byte.
std::string HexBytes(absl::string_view bytes);

// JsonQuote()
//
// `text` as a JSON string literal: `"` `\` and control characters escaped
// (`\n`, `\t`, ..., `\u00XX`), valid UTF-8 kept, each byte of invalid UTF-8
// replaced by U+FFFD.
std::string JsonQuote(absl::string_view text);

// JsonWriter
//
// Builds one compact JSON document. Keys and values are written in order;
// commas are placed for the caller. Example:
//   JsonWriter j;
//   j.BeginObject().Key("id").String("a").Key("n").Int(3).EndObject();
//   j.str() == R"({"id":"a","n":3})"
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(absl::string_view key);
  JsonWriter& String(absl::string_view text);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // A time as `UtcTime()`'s string.
  JsonWriter& Time(absl::Time t);

  const std::string& str() const { return out_; }

 private:
  void BeforeValue();

  std::string out_;
  std::vector<bool> first_;  // Per open container: nothing written yet.
  bool after_key_ = false;
};

// WriteBytesField()
//
// Writes `bytes` into the open object `j` twice: as `name` (escaped by
// `EscapeBytes()`, for people) and as `name` + "_hex" (exact).
void WriteBytesField(JsonWriter& j, absl::string_view name,
                     absl::string_view bytes);

// Table
//
// Rows of cells printed as aligned columns (two spaces apart), the header
// first (none when the header is empty). Cells should be printable (use
// `EscapeBytes()` for bytes).
class Table {
 public:
  explicit Table(std::vector<std::string> header)
      : header_(std::move(header)) {}

  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size(); }

  // The table, one line per row, each ending in '\n'; trailing spaces
  // trimmed.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// OccurrenceLabel()
//
// For the task id of a recurring schedule's occurrence (a byte \x1b, then
// "tw-schedule:...", durable/recurrence/occurrence_id.h), "NAME @
// 2026-12-05T03:00:00Z" with the name's bytes escaped as `EscapeBytes()` does;
// "" for any other id. The id itself stays what twctl prints and takes back.
std::string OccurrenceLabel(absl::string_view id);

// KindLabel()
//
// A task kind in a table: "-" for the default kind "", else
// `EscapeBytes(kind)`. (JSON carries the kind exactly.)
std::string KindLabel(absl::string_view kind);

// TruncatedBytes()
//
// `EscapeBytes()` of the first `max_bytes` bytes of `bytes`, and "..." when
// there were more: a long error in one table cell (`--json` has it whole).
std::string TruncatedBytes(absl::string_view bytes, size_t max_bytes);

// UtcTime()
//
// "2026-12-02T01:00:00.123456Z" (UTC, microseconds).
std::string UtcTime(absl::Time t);

// FormatAge()
//
// `d` truncated to the millisecond, as "1m3.5s", "-2h", "0".
std::string FormatAge(absl::Duration d);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_OUTPUT_H_
