// Copyright 2026 The timingwheel Authors.
//
// Store's recurring-schedule calls (schedule_store_api.h): each runs its
// transaction of schedule_store.cc on this store's connection.

#include <string>
#include <vector>

#include "durable/sql/schedule_store.h"
#include "durable/sql/store.h"

namespace timingwheel {
namespace durable_internal {

absl::StatusOr<ScheduleWrite> Store::CreateSchedule(
    const RecurringSchedule& schedule, int slot, const Inserter& inserter) {
  return CreateScheduleTx(conn_, schedule, slot, inserter);
}

absl::StatusOr<ScheduleWrite> Store::UpdateSchedule(
    const RecurringSchedule& schedule, const Inserter& inserter) {
  return UpdateScheduleTx(conn_, schedule, inserter);
}

absl::Status Store::PauseSchedule(const std::string& name) {
  return PauseScheduleTx(conn_, name);
}

absl::StatusOr<ScheduleWrite> Store::ResumeSchedule(const std::string& name,
                                                    const Inserter& inserter) {
  return ResumeScheduleTx(conn_, name, inserter);
}

absl::StatusOr<bool> Store::DeleteSchedule(const std::string& name) {
  return DeleteScheduleTx(conn_, name);
}

absl::StatusOr<std::vector<ScheduleInfo>> Store::ListSchedules() {
  return ListSchedulesTx(conn_);
}

absl::StatusOr<ScheduleInfo> Store::GetSchedule(const std::string& name) {
  return GetScheduleTx(conn_, name);
}

absl::StatusOr<ScheduleWrite> Store::AdvanceSchedule(const std::string& name,
                                                     const Inserter& inserter) {
  return AdvanceScheduleTx(conn_, name, inserter);
}

absl::StatusOr<CompleteAndAdvanceResult> Store::CompleteAndAdvance(
    absl::Span<const Completion> completions, int64_t horizon_us,
    absl::Span<const std::string> names, const Inserter& inserter,
    const AttemptLog& log) {
  return CompleteAndAdvanceTx(*this, completions, horizon_us, names, inserter,
                              log);
}

absl::StatusOr<DueScheduleList> Store::DueSchedules(absl::Span<const int> slots,
                                                    int64_t horizon_us,
                                                    int64_t limit) {
  return durable_internal::DueSchedules(conn_, slots, horizon_us, limit);
}

}  // namespace durable_internal
}  // namespace timingwheel
