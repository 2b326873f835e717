// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's recurring schedules: the client calls (on the client
// connection) and the maintenance thread's duty (on its own connection).
// The store's calls are ScheduleStoreApi's (schedule_store_api.h), the
// choice of occurrences in schedule_plan.cc.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "durable/client/client_core.h"
#include "durable/client/schedule_calls.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fault_point.h"
#include "durable/engine/real_clock.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/sql/schedule_store_api.h"

namespace timingwheel {

using durable_internal::Completion;
using durable_internal::InsertResult;
using durable_internal::ScheduleWrite;
using durable_internal::WheelEntry;

namespace {

// The most schedules one duty round advances (the rest wait for the next).
constexpr int64_t kMaxSchedulesPerRound = 100;

}  // namespace

durable_internal::ClientCore::AfterInsert DurableScheduler::AfterThis() {
  return [this](const InsertResult& result) { return AfterInsert(result); };
}

// The client calls: on the client connection, as this scheduler (rows due
// soon in its own slots go straight to its wheel).

absl::Status DurableScheduler::CreateSchedule(
    const RecurringSchedule& schedule) {
  return durable_internal::CreateScheduleCall(*client_, schedule, InserterOf(),
                                              AfterThis());
}

absl::Status DurableScheduler::UpdateSchedule(
    const RecurringSchedule& schedule) {
  return durable_internal::UpdateScheduleCall(*client_, schedule, InserterOf(),
                                              AfterThis());
}

absl::Status DurableScheduler::PauseSchedule(absl::string_view name) {
  return durable_internal::PauseScheduleCall(*client_, name);
}

absl::Status DurableScheduler::ResumeSchedule(absl::string_view name) {
  return durable_internal::ResumeScheduleCall(*client_, name, InserterOf(),
                                              AfterThis());
}

absl::StatusOr<bool> DurableScheduler::DeleteSchedule(absl::string_view name) {
  return durable_internal::DeleteScheduleCall(*client_, name);
}

absl::StatusOr<std::vector<ScheduleInfo>> DurableScheduler::ListSchedules() {
  return durable_internal::ListSchedulesCall(*client_);
}

absl::StatusOr<ScheduleInfo> DurableScheduler::GetSchedule(
    absl::string_view name) {
  return durable_internal::GetScheduleCall(*client_, name);
}

// ---------------------------------------------------------------------------
// The maintenance thread's half.

void DurableScheduler::AdvanceScheduleOnMaintenance(const std::string& name) {
  absl::StatusOr<ScheduleWrite> write =
      store_->AdvanceSchedule(name, InserterOf());
  if (!write.ok()) {
    NoteDbError(write.status());
    return;
  }
  std::vector<WheelEntry> wake = AfterInsert(write->inserted);
  if (!wake.empty()) {
    absl::Status status = store_->NotifyDue(wake);
    if (!status.ok()) NoteDbError(status);
  }
}

void DurableScheduler::RunScheduleDuty() {
  schedule_duty_at_ = std::numeric_limits<int64_t>::max();
  std::vector<int> slots;
  for (const durable_internal::SlotEpoch& owned : leases_->owned()) {
    slots.push_back(owned.slot);
  }
  if (slots.empty()) return;
  const int64_t horizon_us = absl::ToInt64Microseconds(options_.horizon);
  absl::StatusOr<durable_internal::DueScheduleList> due =
      store_->DueSchedules(slots, horizon_us, kMaxSchedulesPerRound);
  if (!due.ok()) {
    NoteDbError(due.status());
    return;
  }
  for (const std::string& name : due->names) {
    AdvanceScheduleOnMaintenance(name);
  }
  if (!due->names.empty()) {
    // Their new plans: when the next one is due. (Those still due, a
    // kSkipWhileRunning one whose run is running, wait for the
    // half-horizon round, as before.)
    due = store_->DueSchedules(slots, horizon_us, kMaxSchedulesPerRound);
    if (!due.ok()) {
      NoteDbError(due.status());
      return;
    }
  }
  // At most one round away (the periodic duty comes then anyway).
  const int64_t in_us = std::min<int64_t>(
      due->next_in_us, absl::ToInt64Microseconds(options_.horizon) / 2 + 1);
  schedule_duty_at_ = durable_internal::RealNanos() + in_us * 1000;
}

absl::StatusOr<durable_internal::CompleteResult>
DurableScheduler::CompleteAndAdvance(durable_internal::StoreApi* store,
                                     absl::Span<const Completion> batch) {
  const int64_t horizon_us = absl::ToInt64Microseconds(options_.horizon);
  std::vector<std::string> names;
  for (const Completion& c : batch) {
    if (c.outcome == durable_internal::Outcome::kRetry) continue;
    std::string name;
    int64_t occurrence_us = 0;
    if (durable_internal::ParseOccurrenceId(c.id, &name, &occurrence_us)) {
      names.push_back(std::move(name));
    }
  }
  if (names.empty()) {
    return store->Complete(batch, horizon_us, AttemptLogOf());
  }
  // In name order, so that two transactions that lock several schedules'
  // rows cannot deadlock.
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // A process stopped here has recorded nothing: the attempt is the
  // at-least-once window of any task.
  durable_internal::FaultPoint("schedule.completing");
  absl::StatusOr<durable_internal::CompleteAndAdvanceResult> result =
      store->CompleteAndAdvance(batch, horizon_us, names, InserterOf(),
                                AttemptLogOf());
  if (!result.ok()) return result.status();
  if (result->advance_failed) {
    internal::MutexLock lock(mu_);
    ++metrics_.db_errors;
  }
  for (const ScheduleWrite& write : result->writes) {
    std::vector<WheelEntry> wake = AfterInsert(write.inserted);
    if (!wake.empty()) {
      absl::Status status = store->NotifyDue(wake);
      if (!status.ok()) NoteDbErrorOn(store, status);
    }
  }
  return std::move(result->complete);
}

}  // namespace timingwheel
