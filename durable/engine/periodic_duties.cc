// Copyright 2026 The timingwheel Authors.

#include "durable/engine/periodic_duties.h"

#include <algorithm>
#include <utility>

namespace timingwheel {
namespace durable_internal {

void PeriodicDuties::Add(std::string name, int64_t period, int64_t first_due,
                         std::function<void()> run,
                         std::function<bool()> also_when) {
  Duty duty;
  duty.name = std::move(name);
  duty.period = std::max<int64_t>(0, period);
  duty.next_due = first_due;
  duty.run = std::move(run);
  duty.also_when = std::move(also_when);
  duties_.push_back(std::move(duty));
}

void PeriodicDuties::RunDue(int64_t now) {
  for (Duty& duty : duties_) {
    const bool due = duty.period == 0 || now >= duty.next_due ||
                     (duty.also_when && duty.also_when());
    if (!due) continue;
    duty.run();
    if (duty.period > 0) duty.next_due = now + duty.period;
  }
}

int64_t PeriodicDuties::NextDue() const {
  int64_t next = std::numeric_limits<int64_t>::max();
  for (const Duty& duty : duties_) {
    if (duty.period > 0) next = std::min(next, duty.next_due);
  }
  return next;
}

int64_t PeriodicDuties::NextDueOf(const std::string& name) const {
  for (const Duty& duty : duties_) {
    if (duty.name == name) return duty.next_due;
  }
  return std::numeric_limits<int64_t>::max();
}

}  // namespace durable_internal
}  // namespace timingwheel
