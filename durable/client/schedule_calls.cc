// Copyright 2026 The timingwheel Authors.

#include "durable/client/schedule_calls.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/recurrence/schedule_plan.h"
#include "durable/recurring.h"
#include "durable/sql/schedule_store_api.h"

namespace timingwheel {
namespace durable_internal {
namespace {

void Wake(StoreApi& store, const InsertResult& inserted,
          const ClientCore::AfterInsert& after) {
  std::vector<WheelEntry> wake = after ? after(inserted) : inserted.identical;
  if (!wake.empty()) (void)store.NotifyDue(wake);
}

// Runs a schedule write and wakes the owners of what it wrote.
template <typename Tx>
absl::Status Write(ClientCore& core, const ClientCore::AfterInsert& after,
                   Tx tx) {
  return core.RunOnStore([&](StoreApi& store) -> absl::Status {
    absl::StatusOr<ScheduleWrite> write = tx(store);
    if (!write.ok()) return write.status();
    Wake(store, write->inserted, after);
    return absl::OkStatus();
  });
}

// A definition as a create or an update may write it: RecurrenceOf()'s
// limits, and an interval of at least kMinScheduleInterval (a stored
// schedule below it, written before that limit, still runs).
absl::Status CheckDefinition(const ClientCore& core,
                             const RecurringSchedule& schedule) {
  absl::Status status =
      RecurrenceOf(schedule, core.limits().max_payload_bytes).status();
  if (!status.ok()) return status;
  if (schedule.every != absl::ZeroDuration() &&
      schedule.every < kMinScheduleInterval) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule every ", absl::FormatDuration(schedule.every),
        " is below the limit of ", absl::FormatDuration(kMinScheduleInterval),
        " (each occurrence is a stored task)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CreateScheduleCall(ClientCore& core,
                                const RecurringSchedule& schedule,
                                const Inserter& inserter,
                                const ClientCore::AfterInsert& after) {
  absl::Status status = CheckDefinition(core, schedule);
  if (!status.ok()) return status;
  const int slot = SlotFor(schedule.name, core.slot_count());
  return Write(core, after, [&](StoreApi& store) {
    return store.CreateSchedule(schedule, slot, inserter);
  });
}

absl::Status UpdateScheduleCall(ClientCore& core,
                                const RecurringSchedule& schedule,
                                const Inserter& inserter,
                                const ClientCore::AfterInsert& after) {
  absl::Status status = CheckDefinition(core, schedule);
  if (!status.ok()) return status;
  return Write(core, after, [&](StoreApi& store) {
    return store.UpdateSchedule(schedule, inserter);
  });
}

absl::Status PauseScheduleCall(ClientCore& core, absl::string_view name) {
  absl::Status valid = CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  return core.RunOnStore([&](StoreApi& store) -> absl::Status {
    return store.PauseSchedule(key);
  });
}

absl::Status ResumeScheduleCall(ClientCore& core, absl::string_view name,
                                const Inserter& inserter,
                                const ClientCore::AfterInsert& after) {
  absl::Status valid = CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  return Write(core, after, [&](StoreApi& store) {
    return store.ResumeSchedule(key, inserter);
  });
}

absl::StatusOr<bool> DeleteScheduleCall(ClientCore& core,
                                        absl::string_view name) {
  absl::Status valid = CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  bool deleted = false;
  absl::Status status = core.RunOnStore([&](StoreApi& store) -> absl::Status {
    absl::StatusOr<bool> done = store.DeleteSchedule(key);
    if (!done.ok()) return done.status();
    // A retry after a lost reply finds nothing: the first try deleted it.
    deleted = deleted || *done;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return deleted;
}

absl::StatusOr<std::vector<ScheduleInfo>> ListSchedulesCall(ClientCore& core) {
  std::vector<ScheduleInfo> infos;
  absl::Status status = core.RunOnStore([&](StoreApi& store) -> absl::Status {
    absl::StatusOr<std::vector<ScheduleInfo>> list = store.ListSchedules();
    if (!list.ok()) return list.status();
    infos = *std::move(list);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return infos;
}

absl::StatusOr<ScheduleInfo> GetScheduleCall(ClientCore& core,
                                             absl::string_view name) {
  absl::Status valid = CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  ScheduleInfo info;
  absl::Status status = core.RunOnStore([&](StoreApi& store) -> absl::Status {
    absl::StatusOr<ScheduleInfo> got = store.GetSchedule(key);
    if (!got.ok()) return got.status();
    info = *std::move(got);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return info;
}

}  // namespace durable_internal
}  // namespace timingwheel
