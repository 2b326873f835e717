// Copyright 2026 The timingwheel Authors.
//
// schedule_calls.h
// -----------------------------------------------------------------------------
//
// The recurring-schedule calls shared by `DurableScheduler` and
// `DurableClient`: check the input, run the store's call
// (schedule_store_api.h) on the caller's `ClientCore` connection (retried once
// after a lost connection: each transaction re-reads the schedule's row, so a
// retry of one that committed writes nothing twice), then wake the owners of
// what it wrote (`after`, as for `ClientCore::Insert()`; null: the identical
// rows' owners are notified). Thread-safe (as `ClientCore`).

#ifndef TIMINGWHEEL_DURABLE_CLIENT_SCHEDULE_CALLS_H_
#define TIMINGWHEEL_DURABLE_CLIENT_SCHEDULE_CALLS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "durable/client/client_core.h"
#include "durable/recurring.h"
#include "durable/sql/store.h"

namespace timingwheel {
namespace durable_internal {

absl::Status CreateScheduleCall(ClientCore& core,
                                const RecurringSchedule& schedule,
                                const Inserter& inserter,
                                const ClientCore::AfterInsert& after);
absl::Status UpdateScheduleCall(ClientCore& core,
                                const RecurringSchedule& schedule,
                                const Inserter& inserter,
                                const ClientCore::AfterInsert& after);
absl::Status PauseScheduleCall(ClientCore& core, absl::string_view name);
absl::Status ResumeScheduleCall(ClientCore& core, absl::string_view name,
                                const Inserter& inserter,
                                const ClientCore::AfterInsert& after);
absl::StatusOr<bool> DeleteScheduleCall(ClientCore& core,
                                        absl::string_view name);
absl::StatusOr<std::vector<ScheduleInfo>> ListSchedulesCall(ClientCore& core);
absl::StatusOr<ScheduleInfo> GetScheduleCall(ClientCore& core,
                                             absl::string_view name);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_CLIENT_SCHEDULE_CALLS_H_
