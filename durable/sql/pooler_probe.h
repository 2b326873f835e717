// Copyright 2026 The timingwheel Authors.
//
// pooler_probe.h
// -----------------------------------------------------------------------------
//
// `CheckNotPooled()`: whether a connection string reaches PostgreSQL
// directly (or through a session-mode pooler), or through a pooler in
// transaction mode (PgBouncer's pool_mode = transaction), which hands a
// server connection to another client after each transaction, so nothing a
// session sets survives: LISTEN, session advisory locks, session settings.
// A `DurableScheduler` and `twctl` need those, and must not set them on a
// pooled server connection that other clients then inherit; so the probe
// runs first, on two fresh connections of its own that set nothing.
//
// How: one connection LISTENs on a channel of its own, a second NOTIFYs
// it, and the first waits for the notification at most `wait`. Behind a
// transaction pooler the LISTEN ran on a server connection the first
// connection no longer holds, and nothing arrives. When either connection
// cannot be made, nothing is concluded (OK): the caller's own connection
// reports the error. Thread-safe (no shared state).

#ifndef TIMINGWHEEL_DURABLE_SQL_POOLER_PROBE_H_
#define TIMINGWHEEL_DURABLE_SQL_POOLER_PROBE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_internal {

// OK when a notification sent through `conninfo` arrives through it within
// `wait`; FailedPrecondition naming `who` ("a DurableScheduler", "twctl")
// and the fix when it does not.
absl::Status CheckNotPooled(const std::string& conninfo, absl::string_view who,
                            absl::Duration wait = absl::Seconds(3));

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_POOLER_PROBE_H_
