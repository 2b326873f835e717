// Copyright 2026 The timingwheel Authors.

#include "durable/client/request.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/task_kind.h"

namespace timingwheel {
namespace durable_internal {
int SlotFor(absl::string_view id, int slot_count) {
  uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : id) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return static_cast<int>(hash % static_cast<uint64_t>(slot_count));
}

absl::StatusOr<InsertRow> ToInsertRow(const ScheduleRequest& request,
                                      int slot_count,
                                      const RequestLimits& limits) {
  absl::Status id = CheckIdBytes("task id", request.id, limits.max_id_bytes);
  if (!id.ok()) return id;
  if (absl::StartsWith(request.id, kOccurrencePrefix)) {
    return absl::InvalidArgumentError(
        "task id starts with the prefix reserved for recurring schedules' "
        "occurrences");
  }
  if (request.payload.empty()) {
    return absl::InvalidArgumentError("payload is empty");
  }
  if (static_cast<int64_t>(request.payload.size()) > limits.max_payload_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "payload of ", request.payload.size(),
        " bytes exceeds max_payload_bytes (", limits.max_payload_bytes, ")"));
  }
  absl::Status kind = CheckKindName(request.kind);
  if (!kind.ok()) return kind;
  if (request.priority < kMinPriority || request.priority > kMaxPriority) {
    return absl::InvalidArgumentError(
        absl::StrCat("priority ", request.priority, " outside [", kMinPriority,
                     ", ", kMaxPriority, "]"));
  }
  InsertRow row;
  row.id = request.id;
  row.payload = request.payload;
  row.kind = request.kind;
  row.priority = request.priority;
  row.slot = SlotFor(request.id, slot_count);
  if (request.due == absl::InfinitePast()) {
    absl::Status delay = CheckDelay("delay", request.delay);
    if (!delay.ok()) return delay;
    row.relative = true;
    // Round up: never due before now + delay.
    row.due_or_delay_us =
        request.delay <= absl::ZeroDuration()
            ? 0
            : absl::ToInt64Microseconds(request.delay + absl::Nanoseconds(999));
    return row;
  }
  absl::Status due = CheckDueTime("due time", request.due);
  if (!due.ok()) return due;
  row.relative = false;
  row.due_or_delay_us = absl::ToUnixMicros(request.due);
  if (absl::FromUnixMicros(row.due_or_delay_us) < request.due) {
    ++row.due_or_delay_us;  // Round up to the next microsecond.
  }
  return row;
}

}  // namespace durable_internal
}  // namespace timingwheel
