// Copyright 2026 The timingwheel Authors.

#include "durable/engine/slot_naming.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "durable/sql/store_types.h"

namespace timingwheel {
namespace durable_internal {

int64_t SlotsToName(int64_t free_places, int64_t due_count) {
  if (free_places <= 0 || due_count <= 0) return 0;
  const int64_t wanted =
      free_places <= kSlotFireExactRows
          ? free_places
          : (free_places + kRowsPerNamedSlot - 1) / kRowsPerNamedSlot;
  return std::min(due_count, std::max(wanted, kMinSlotsNamed));
}

std::vector<int> NameDueSlots(std::vector<DueSlotArm> due, int64_t free_places,
                              int* floor) {
  const int64_t named =
      SlotsToName(free_places, static_cast<int64_t>(due.size()));
  auto better = [](const DueSlotArm& a, const DueSlotArm& b) {
    return std::make_tuple(-a.priority, a.due_us, a.slot) <
           std::make_tuple(-b.priority, b.due_us, b.slot);
  };
  std::partial_sort(due.begin(), due.begin() + named, due.end(), better);
  std::vector<int> slots;
  slots.reserve(named);
  for (int64_t i = 0; i < named; ++i) slots.push_back(due[i].slot);
  if (floor != nullptr) {
    *floor = std::numeric_limits<int>::min();
    for (size_t i = static_cast<size_t>(named); i < due.size(); ++i) {
      *floor = std::max(*floor, due[i].priority);
    }
  }
  return slots;
}

}  // namespace durable_internal
}  // namespace timingwheel
