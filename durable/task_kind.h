// Copyright 2026 The timingwheel Authors.
//
// task_kind.h
// -----------------------------------------------------------------------------
//
// What runs a durable task: `DurableHandler`, and `TaskKind`, a named
// handler with its own limit on running attempts. A task names its kind
// (`ScheduleRequest::kind`); the default kind (empty) is run by
// `DurableOptions::handler`.

#ifndef TIMINGWHEEL_DURABLE_TASK_KIND_H_
#define TIMINGWHEEL_DURABLE_TASK_KIND_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "durable/task.h"

namespace timingwheel {

// DurableHandler
//
// Runs one attempt of a task. Returning a non-OK status, or throwing, fails
// the attempt (retried per `RetryPolicy`). It may instead return
// `Snooze(d)` (again after d, the attempt not counted), `Discard(reason)`
// (FAILED at once) or `RetryAfter(d, reason)` (a failed attempt retried
// after d): see handler_outcome.h (tests: HandlerOutcomeTest.*). Called on
// the scheduler's executor, at most `max_in_flight` at a time (and at most
// its kind's `TaskKind::max_in_flight`), concurrently for different tasks.
using DurableHandler = std::function<absl::Status(const DurableTask&)>;

// TaskKind
//
// A named handler (`DurableOptions::kinds`). A scheduler registers its
// kinds in the store when it starts (`tw_kind`); from then on any client
// may schedule tasks of them, and scheduling a kind no scheduler
// registered fails with NotFound. Schedulers confirm their kinds every 10
// minutes; a kind none confirmed for `DurableOptions::forget_kinds_after`
// (7 days) is forgotten, and its stored tasks stay.
// A task fired by an owner that has no handler for its kind (another
// scheduler registered it: a rolling deploy) is snoozed, not lost: it is
// due again `DurableOptions::unknown_kind_delay` later, its attempt not
// counted, with the last error saying which node lacked the handler
// (tests: TaskKindsTest.*).
struct TaskKind {
  // 1 to kMaxKindBytes bytes of printable ASCII (0x20 to 0x7e).
  std::string name;
  DurableHandler handler;  // Required.
  // At most this many attempts of the kind run at once in this scheduler
  // (within `DurableOptions::max_in_flight`); due tasks of the kind wait
  // meanwhile without holding up other kinds. 0: no limit of its own.
  int max_in_flight = 0;
};

namespace durable_internal {

// CheckKindName()
//
// OK for an empty name (the default kind) and for 1 to kMaxKindBytes bytes
// of printable ASCII; InvalidArgument otherwise.
absl::Status CheckKindName(absl::string_view name);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TASK_KIND_H_
