// Copyright 2026 The timingwheel Authors.
//
// fault_points.h
// -----------------------------------------------------------------------------
//
// Test-only: makes a scheduler process kill or stop itself the first time it
// reaches a named fault point (see durable/engine/fault_point.h for the
// points), so that a fault test can cut a task's life between any two steps
// with a real SIGKILL or SIGSTOP. Used by the scheduler process binary of
// //tests/durable; nothing outside a test binary can turn a point on.

#ifndef TIMINGWHEEL_DURABLE_TESTING_FAULT_POINTS_H_
#define TIMINGWHEEL_DURABLE_TESTING_FAULT_POINTS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace timingwheel {
namespace durable_testing {

// InstallFault()
//
// `spec` is "kill:POINT" or "stop:POINT". The first time the process reaches
// POINT it writes "fault: ACTION at POINT" to stderr and raises SIGKILL (dies
// as under kill -9) or SIGSTOP (every thread stops until a SIGCONT; later
// visits of the point pass). InvalidArgument for an unknown action or point.
// Call once, before the scheduler is created; not thread-safe against a
// concurrent call.
absl::Status InstallFault(absl::string_view spec);

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_FAULT_POINTS_H_
