// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_parts.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/recurrence/occurrence_id.h"
#include "tools/twctl/serve_html.h"

namespace timingwheel {
namespace twctl {

std::string ShowTaskId(absl::string_view id) {
  std::string name;
  int64_t us = 0;
  if (!durable_internal::ParseOccurrenceId(id, &name, &us)) {
    return HtmlEscape(id);
  }
  const absl::Time at = absl::FromUnixMicros(us);
  return absl::StrCat(
      "<span class=\"occurrence\" title=\"an occurrence of schedule ",
      HtmlEscape(name), "\">", HtmlEscape(name), " @ ",
      absl::FormatTime("%Y-%m-%d %H:%M:%E*S UTC", at, absl::UTCTimeZone()),
      "</span>");
}

std::string TaskLink(absl::string_view id) {
  return absl::StrCat("<a href=\"/task?idx=", HexEncode(id), "\">",
                      ShowTaskId(id), "</a>");
}

std::string KindLink(absl::string_view kind) {
  return absl::StrCat(
      "<a href=\"/tasks?kindx=", HexEncode(kind), "\">",
      kind.empty() ? "<span class=\"note\">default</span>" : HtmlEscape(kind),
      "</a>");
}

std::string PostForm(absl::string_view action, absl::string_view label,
                     absl::string_view field, absl::string_view value) {
  return absl::StrCat(
      "<form method=\"post\" action=\"/", action, "\" class=\"action ", action,
      "\"><input type=\"hidden\" name=\"", field, "\" value=\"",
      HexEncode(value),
      "\"><input type=\"password\" name=\"token\" placeholder=\"token\" "
      "autocomplete=\"off\" required aria-label=\"token\">"
      "<button type=\"submit\">",
      label, "</button></form>");
}

std::string StateBadge(TaskState state) {
  const std::string name = TaskStateName(state);
  return absl::StrCat("<span class=\"badge st-", absl::AsciiStrToLower(name),
                      "\">", name, "</span>");
}

}  // namespace twctl
}  // namespace timingwheel
