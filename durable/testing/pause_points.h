// Copyright 2026 The timingwheel Authors.
//
// pause_points.h
// -----------------------------------------------------------------------------
//
// Test-only: stops a thread of the test process at a named fault point (see
// durable/engine/fault_point.h) until the test lets it go, so that a test can
// act while, say, a fire batch has been taken from the wheel and not yet sent.
// This file defines:
//
//   * `PausePoint`: while alive, the first thread reaching its point blocks
//     until `Resume()` or the PausePoint's destruction; later visits pass.
//
// Several PausePoints (on one point or on several) may be alive at once: one
// process-wide registry is the installed hook while any is alive, and none
// is installed when the last one is destroyed. A thread reaching a point
// counts a hit on every live PausePoint of that point and takes the first of
// them not yet reached (so two PausePoints on one point hold the first two
// threads, one each).
//
// In-process only: //durable/testing:fault_points (kill or stop a whole
// scheduler process, installed once in a child) is the other hook, and the
// two are not used in one process; creating a PausePoint while another hook
// is installed aborts the test with a message.

#ifndef TIMINGWHEEL_DURABLE_TESTING_PAUSE_POINTS_H_
#define TIMINGWHEEL_DURABLE_TESTING_PAUSE_POINTS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"

namespace timingwheel {
namespace durable_testing {
namespace pause_internal {
struct PauseState;
}  // namespace pause_internal

// PausePoint
//
// One pause at `point`. Thread-safe: the test's thread calls the methods
// while other threads run into the point. Must not be destroyed by the
// thread it holds.
//
// Example:
//
//   PausePoint fire("fire.before");
//   ... start the scheduler, schedule a task ...
//   ASSERT_TRUE(fire.WaitReached(absl::Seconds(10)));
//   ... the fire thread waits before its statement: act now ...
//   fire.Resume();
class PausePoint {
 public:
  explicit PausePoint(std::string point);

  // Resumes the held thread, if any, and stops counting hits.
  ~PausePoint();

  PausePoint(const PausePoint&) = delete;
  PausePoint& operator=(const PausePoint&) = delete;

  // PausePoint::WaitReached()
  //
  // Waits up to `timeout` for a thread to be held here. Returns true once
  // one has been (also after Resume()); false on timeout.
  bool WaitReached(absl::Duration timeout);

  // PausePoint::Resume()
  //
  // Lets the held thread go on; a thread reaching the point later passes.
  // Idempotent.
  void Resume();

  // PausePoint::hits()
  //
  // How many times a thread reached the point since construction, the held
  // one included.
  int64_t hits() const;

 private:
  std::shared_ptr<pause_internal::PauseState> state_;
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_PAUSE_POINTS_H_
