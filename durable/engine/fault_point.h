// Copyright 2026 The timingwheel Authors.
//
// fault_point.h
// -----------------------------------------------------------------------------
//
// Named points in the scheduler where fault tests stop or kill a scheduler
// process (kill -9 between two steps of a task's life). In a normal build
// nothing is installed and a point costs one relaxed atomic load of a null
// pointer; there is no switch to turn points on from outside the process
// (no environment variable, no flag). Only `//durable/testing:fault_points`
// (testonly) installs a hook, from inside a test binary.
//
// The points, in the order a task meets them:
//   "load.claimed"      a horizon load committed rows as SCHEDULED (non-empty)
//                       and has not yet put them in the wheel;
//   "fire.before"       due SCHEDULED tasks were taken from the wheel for a
//                       fire statement that has not run yet;
//   "fire.started"      the fire statement committed RUNNING rows; no handler
//                       has started;
//   "attempt.before_start"  an attempt reached the executor; the check that
//                       its slot is still held (and its handler's start)
//                       comes next;
//   "handler.returned"  a handler returned; its outcome is not yet recorded;
//   "reconnect.before_requeue"  the maintenance connection was re-established;
//                       its SCHEDULED and orphaned RUNNING rows are not yet
//                       put back;
//   "shutdown.waiting"  Shutdown() began; the maintenance thread waits for
//                       running handlers (reached once);
//   "schedule.completing"  outcomes of recurring schedules' occurrences are
//                       about to be recorded, with their next occurrences,
//                       in one transaction (maintenance thread);
//   "leases.forgotten"  unrenewed for a whole TTL, the maintenance thread
//                       dropped its slots and the renewer forgot them.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_FAULT_POINT_H_
#define TIMINGWHEEL_DURABLE_ENGINE_FAULT_POINT_H_

#include <atomic>

namespace timingwheel {
namespace durable_internal {

// FaultHook: called with the point's name, on the thread that reaches it.
using FaultHook = void (*)(const char* point);

// The installed hook, or null (always null outside fault tests).
std::atomic<FaultHook>& FaultHookSlot();

// FaultPoint()
//
// Calls the installed hook with `point`, if any. Thread-safe.
inline void FaultPoint(const char* point) {
  FaultHook hook = FaultHookSlot().load(std::memory_order_acquire);
  if (hook != nullptr) hook(point);
}

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_FAULT_POINT_H_
