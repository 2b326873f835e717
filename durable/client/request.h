// Copyright 2026 The timingwheel Authors.
//
// request.h
// -----------------------------------------------------------------------------
//
// From a caller's `ScheduleRequest` to a row the store inserts: input checks
// (answered with a status, never a crash) and the slot an id hashes to.

#ifndef TIMINGWHEEL_DURABLE_CLIENT_REQUEST_H_
#define TIMINGWHEEL_DURABLE_CLIENT_REQUEST_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "durable/sql/store.h"
#include "durable/task.h"

namespace timingwheel {
namespace durable_internal {

// Limits on what a request may hold.
struct RequestLimits {
  int64_t max_id_bytes = 1024;
  int64_t max_payload_bytes = 16 << 20;
};

// SlotFor()
//
// The slot of `id`: FNV-1a (64 bits) of its bytes modulo `slot_count`.
// Stable across processes, builds and platforms: it decides which process
// owns a task.
int SlotFor(absl::string_view id, int slot_count);

// ToInsertRow()
//
// Checks `request` and returns its row. `absl::InvalidArgumentError` for an
// empty or oversized id or payload, an absolute due time before the Unix
// epoch or from year 10000 on (`CheckDueTime()`), a delay not shorter than
// kMaxDelay (`CheckDelay()`), a kind or priority out of its range.
// Negative delays mean "due now".
absl::StatusOr<InsertRow> ToInsertRow(const ScheduleRequest& request,
                                      int slot_count,
                                      const RequestLimits& limits);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_CLIENT_REQUEST_H_
