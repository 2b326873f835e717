// Copyright 2026 The timingwheel Authors.

#include "durable/request.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "durable/occurrence_id.h"
#include "durable/task_kind.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// 10000-01-01T00:00:00Z: PostgreSQL's timestamps and most users' tools stop
// at year 9999.
constexpr int64_t kYear10000UnixMicros = 253402300800LL * 1000000;
// Delays are checked against this bound (now is well before year 3000).
constexpr int64_t kMaxDelayMicros =
    kYear10000UnixMicros - 32503680000LL * 1000000;

}  // namespace

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
  if (request.id.empty()) {
    return absl::InvalidArgumentError("task id is empty");
  }
  if (static_cast<int64_t>(request.id.size()) > limits.max_id_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("task id of ", request.id.size(),
                     " bytes exceeds the limit of ", limits.max_id_bytes));
  }
  if (absl::StartsWith(request.id, kOccurrencePrefix)) {
    return absl::InvalidArgumentError(
        "task id starts with the prefix reserved for recurring schedules' "
        "occurrences");
  }
  if (request.payload.empty()) {
    return absl::InvalidArgumentError("payload is empty");
  }
  if (static_cast<int64_t>(request.payload.size()) > limits.max_payload_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("payload of ", request.payload.size(),
                     " bytes exceeds the limit of ", limits.max_payload_bytes));
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
    if (request.delay >= absl::Microseconds(kMaxDelayMicros)) {
      return absl::InvalidArgumentError("delay reaches past year 9999");
    }
    row.relative = true;
    // Round up: never due before now + delay.
    row.due_or_delay_us =
        request.delay <= absl::ZeroDuration()
            ? 0
            : absl::ToInt64Microseconds(request.delay + absl::Nanoseconds(999));
    return row;
  }
  if (request.due < absl::UnixEpoch()) {
    return absl::InvalidArgumentError("due time before 1970-01-01");
  }
  if (request.due >= absl::FromUnixMicros(kYear10000UnixMicros)) {
    return absl::InvalidArgumentError("due time past year 9999");
  }
  row.relative = false;
  row.due_or_delay_us = absl::ToUnixMicros(request.due);
  if (absl::FromUnixMicros(row.due_or_delay_us) < request.due) {
    ++row.due_or_delay_us;  // Round up to the next microsecond.
  }
  return row;
}

}  // namespace durable_internal
}  // namespace timingwheel
