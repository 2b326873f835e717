// Copyright 2026 The timingwheel Authors.

#include "durable/sql/schedule_definition.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/recurrence/schedule_plan.h"
#include "durable/task.h"
#include "durable/task_kind.h"

namespace timingwheel {
namespace durable_internal {

RecurringSchedule StoredDefinition(const RecurringSchedule& schedule,
                                   const Recurrence& recurrence) {
  RecurringSchedule stored = schedule;
  if (recurrence.is_cron()) {
    stored.cron = recurrence.expression().ToString();
    stored.anchor = absl::UnixEpoch();
  } else {
    stored.time_zone = "UTC";
  }
  return stored;
}

bool SameDefinition(const RecurringSchedule& a, const RecurringSchedule& b) {
  return a.name == b.name && a.every == b.every && a.anchor == b.anchor &&
         a.cron == b.cron && a.time_zone == b.time_zone &&
         a.payload == b.payload && a.policy.overlap == b.policy.overlap &&
         a.policy.catch_up == b.policy.catch_up &&
         a.policy.grace == b.policy.grace &&
         a.policy.max_runs == b.policy.max_runs && a.kind == b.kind &&
         a.priority == b.priority;
}

absl::Status CheckOccurrenceKind(const RecurringSchedule& schedule) {
  absl::Status status = CheckKindName(schedule.kind);
  if (!status.ok()) return status;
  if (schedule.priority < kMinPriority || schedule.priority > kMaxPriority) {
    return absl::InvalidArgumentError(
        absl::StrCat("priority ", schedule.priority, " outside [", kMinPriority,
                     ", ", kMaxPriority, "]"));
  }
  return absl::OkStatus();
}

std::vector<InsertRow> OccurrenceRows(const RecurringSchedule& definition,
                                      int slot,
                                      const std::vector<int64_t>& write_us) {
  std::vector<InsertRow> rows;
  for (int64_t at : write_us) {
    InsertRow insert;
    insert.id = OccurrenceId(definition.name, at);
    insert.payload = definition.payload;
    insert.slot = slot;
    insert.due_or_delay_us = at;
    insert.kind = definition.kind;
    insert.priority = definition.priority;
    rows.push_back(std::move(insert));
  }
  return rows;
}

ScheduleInfo ScheduleInfoOf(const StoredSchedule& stored) {
  ScheduleInfo info;
  info.definition = stored.definition;
  absl::StatusOr<Recurrence> recurrence =
      RecurrenceOf(stored.definition, stored.definition.payload.size());
  info.spec = recurrence.ok() ? recurrence->ToString() : "invalid";
  info.paused = stored.paused;
  info.next_run = stored.paused || stored.next_us == kNoOccurrenceUs
                      ? absl::InfiniteFuture()
                      : absl::FromUnixMicros(stored.next_us);
  int64_t last_us = stored.last_us;
  if (recurrence.ok() && stored.now_us != 0 &&
      (last_us > stored.now_us || stored.paused)) {
    const int64_t at = std::min(last_us, stored.now_us);
    const absl::Time occurred = recurrence->Last(absl::FromUnixMicros(at));
    last_us = stored.created_us;
    if (occurred != absl::InfinitePast()) {
      last_us = std::max(last_us, absl::ToUnixMicros(occurred));
    }
    last_us = std::min(last_us, at);
  }
  info.last_run = absl::FromUnixMicros(last_us);
  info.version = stored.version;
  return info;
}

}  // namespace durable_internal
}  // namespace timingwheel
