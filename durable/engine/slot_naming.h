// Copyright 2026 The timingwheel Authors.
//
// Which due slots a fire by slot names (DurableOptions::fire_by_slot): the
// slots whose next rows have the highest priorities, then the earliest due
// times, then the lowest slot numbers. A small fire (at most
// kSlotFireExactRows free places) names one slot per free place, and at
// least kMinSlotsNamed, so that the statement compares their next rows by
// priority (StoreApi::FireSlots() gives each the whole limit while that
// reads at most kSlotFireExactRows rows: such a fire is exact). A large
// fire (a burn-down) names one slot per kRowsPerNamedSlot free places, so
// that each slot named gives about that many rows and a slot's walk past
// the rows its earlier fires started is paid once per that many rows.
//
// A pure function: any thread.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_SLOT_NAMING_H_
#define TIMINGWHEEL_DURABLE_ENGINE_SLOT_NAMING_H_

#include <cstdint>
#include <vector>

namespace timingwheel {
namespace durable_internal {

// At least this many due slots are named (when that many are due), however
// few places are free.
inline constexpr int64_t kMinSlotsNamed = 16;
// A fire of more than kSlotFireExactRows places names one due slot per
// this many places.
inline constexpr int64_t kRowsPerNamedSlot = 16;

// A due slot as the engine knows it: its next row's priority (the best
// due row's, or a row added since, whichever is higher) and due time.
struct DueSlotArm {
  int slot = 0;
  int priority = 0;
  int64_t due_us = 0;
};

// How many slots a fire with `free_places` names among `due_count` due
// slots.
int64_t SlotsToName(int64_t free_places, int64_t due_count);

// The slots a fire with `free_places` names, best first (priority
// descending, then due time, then slot number). With `floor`, also the
// highest priority of the due slots not named (INT_MIN when every due slot
// is named): a named slot's rows below it must not start in this fire (a
// large fire takes up to 16 rows from each slot named, which must not
// overtake the best row of a slot not named).
std::vector<int> NameDueSlots(std::vector<DueSlotArm> due, int64_t free_places,
                              int* floor = nullptr);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_SLOT_NAMING_H_
