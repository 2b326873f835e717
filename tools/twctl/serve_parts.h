// Copyright 2026 The timingwheel Authors.
//
// serve_parts.h
// -----------------------------------------------------------------------------
//
// The pieces the dashboard's pages (serve_pages.h) share: links to tasks
// and kinds, state badges, readable occurrence ids. Internal to the
// serve_pages library. Every value from the store is escaped here
// (serve_html.h). Pure functions; thread-safe.

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_PARTS_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_PARTS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "durable/task.h"

namespace timingwheel {
namespace twctl {

// The task states in their order (TaskState 0..4).
inline constexpr TaskState kPageStates[] = {
    TaskState::kPending, TaskState::kScheduled, TaskState::kRunning,
    TaskState::kSuccess, TaskState::kFailed};

// ShowTaskId()
//
// A task id for people, escaped: an occurrence of a recurring schedule
// (occurrence_id.h) as `<span class="occurrence">NAME @ 2026-12-05
// 01:02:03 UTC</span>` (the instant in UTC, fractions only when it has
// them); any other id as `HtmlEscape(id)`. Display only: links and forms
// carry the stored id as hex.
std::string ShowTaskId(absl::string_view id);

// TaskLink()
//
// `<a href="/task?idx=HEX">` around `ShowTaskId(id)`.
std::string TaskLink(absl::string_view id);

// KindLink()
//
// A kind as a link to its tasks (`kindx`: hex, exact); the default kind ""
// shows as "default".
std::string KindLink(absl::string_view kind);

// PostForm()
//
// A POST form to `/action` carrying `field` = `HexEncode(value)` and the
// token field to fill in, with one button `label`; class "action ACTION".
std::string PostForm(absl::string_view action, absl::string_view label,
                     absl::string_view field, absl::string_view value);

// StateBadge()
//
// `<span class="badge st-failed">FAILED</span>`: the state's name, its
// colour by class.
std::string StateBadge(TaskState state);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_PARTS_H_
