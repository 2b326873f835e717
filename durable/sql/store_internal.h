// Copyright 2026 The timingwheel Authors.
//
// store_internal.h
// -----------------------------------------------------------------------------
//
// Internal to the store's .cc files: how they pass slot lists and read
// claimed rows.

#ifndef TIMINGWHEEL_DURABLE_SQL_STORE_INTERNAL_H_
#define TIMINGWHEEL_DURABLE_SQL_STORE_INTERNAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"

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

// EntryColumns
//
// The columns of a task's place in a wheel (task_id, slot, due_us, epoch,
// kind, priority) in a statement's result, looked up by name once; a
// missing one is in `column.status()`.
struct EntryColumns {
  explicit EntryColumns(PgColumns& column)
      : id(column("task_id")),
        slot(column("slot")),
        due(column("due_us")),
        epoch(column("epoch")),
        kind(column("kind")),
        priority(column("priority")) {}

  WheelEntry Read(const PgResult& r, int row) const {
    WheelEntry e;
    e.id = r.Bytes(row, id);
    e.slot = static_cast<int>(r.Int(row, slot));
    e.due_us = r.Int(row, due);
    e.epoch = r.Int(row, epoch);
    e.kind = r.Bytes(row, kind);
    e.priority = static_cast<int>(r.Int(row, priority));
    return e;
  }

  const int id, slot, due, epoch, kind, priority;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_STORE_INTERNAL_H_
