// Copyright 2026 The timingwheel Authors.
//
// periodic_duties.h
// -----------------------------------------------------------------------------
//
// The maintenance thread's table of duties: what it does each round, in
// which order, and how often. This file defines:
//
//   * `PeriodicDuties`: duties with periods and next-due instants, run in
//     the order they were added.
//
// Tests: tests/durable/periodic_duties_test.cc.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_PERIODIC_DUTIES_H_
#define TIMINGWHEEL_DURABLE_ENGINE_PERIODIC_DUTIES_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace timingwheel {
namespace durable_internal {

// PeriodicDuties
//
// A duty with period 0 runs every round; one with a positive period runs
// when its next-due instant has come (or `also_when()` says so), and is
// then due again one period after the round's `now`. `RunDue(now)` runs the
// due duties in the order they were added; `NextDue()` is the earliest
// next-due instant of the periodic ones (the loop sleeps until then at
// most). Instants are on the caller's clock, in nanoseconds.
//
// Thread-compatible: one thread (the maintenance thread) owns it.
class PeriodicDuties {
 public:
  // Adds a duty due first at `first_due` (ignored for period 0).
  // `also_when` (may be null) makes a periodic duty run early.
  void Add(std::string name, int64_t period, int64_t first_due,
           std::function<void()> run,
           std::function<bool()> also_when = nullptr);

  // Runs the duties due at `now`, in order.
  void RunDue(int64_t now);

  // The earliest next-due instant of the periodic duties (max int64 when
  // there are none).
  int64_t NextDue() const;

  // The next-due instant of the duty `name` (max int64 if none has it).
  int64_t NextDueOf(const std::string& name) const;

 private:
  struct Duty {
    std::string name;
    int64_t period = 0;
    int64_t next_due = 0;
    std::function<void()> run;
    std::function<bool()> also_when;
  };

  std::vector<Duty> duties_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_PERIODIC_DUTIES_H_
