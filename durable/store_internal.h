// Copyright 2026 The timingwheel Authors.
//
// store_internal.h
// -----------------------------------------------------------------------------
//
// Internal to the store's .cc files: how they pass slot lists and read
// claimed rows.

#ifndef TIMINGWHEEL_DURABLE_STORE_INTERNAL_H_
#define TIMINGWHEEL_DURABLE_STORE_INTERNAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "durable/pg_params.h"
#include "durable/store.h"

namespace timingwheel {
namespace durable_internal {

inline void SplitSlots(absl::Span<const SlotEpoch> owned,
                       std::vector<int32_t>* slots,
                       std::vector<int64_t>* epochs) {
  for (const SlotEpoch& s : owned) {
    slots->push_back(s.slot);
    epochs->push_back(s.epoch);
  }
}

// Rows of (task_id, slot, due_us, epoch, <one column>, kind, priority).
inline std::vector<WheelEntry> ReadEntries(const PgResult& r, int id_col) {
  std::vector<WheelEntry> entries;
  entries.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) {
    WheelEntry e;
    e.id = r.Bytes(i, id_col);
    e.slot = static_cast<int>(r.Int(i, id_col + 1));
    e.due_us = r.Int(i, id_col + 2);
    e.epoch = r.Int(i, id_col + 3);
    e.kind = r.Bytes(i, id_col + 5);
    e.priority = static_cast<int>(r.Int(i, id_col + 6));
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_STORE_INTERNAL_H_
