// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's atomic replacements: ScheduleOrReplace(),
// ScheduleOrReplaceBatch(), Reschedule(), RescheduleAfter(), on the client
// code it shares with DurableClient (Store::Replace() holds the SQL).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "durable/client/client_core.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/store.h"

namespace timingwheel {

using durable_internal::ReplaceRule;

absl::StatusOr<std::vector<ScheduleOutcome>> DurableScheduler::Replace(
    absl::Span<const ScheduleRequest> requests, ReplaceRule rule,
    bool has_payload) {
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes =
      client_->Replace(requests, rule, has_payload, InserterOf(),
                       [this](const durable_internal::InsertResult& result) {
                         return AfterInsert(result);
                       });
  if (!outcomes.ok()) return outcomes.status();
  int64_t scheduled = 0;
  for (ScheduleOutcome outcome : *outcomes) {
    if (outcome == ScheduleOutcome::kScheduled) ++scheduled;
  }
  internal::MutexLock lock(mu_);
  metrics_.scheduled += scheduled;
  return outcomes;
}

absl::StatusOr<ScheduleOutcome> DurableScheduler::ScheduleOrReplace(
    const ScheduleRequest& request, ReplaceMode mode) {
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes =
      Replace({&request, 1}, durable_internal::RuleOf(mode),
              /*has_payload=*/true);
  if (!outcomes.ok()) return outcomes.status();
  return outcomes->front();
}

absl::StatusOr<std::vector<ScheduleOutcome>>
DurableScheduler::ScheduleOrReplaceBatch(
    absl::Span<const ScheduleRequest> requests, ReplaceMode mode) {
  if (requests.empty()) return std::vector<ScheduleOutcome>();
  return Replace(requests, durable_internal::RuleOf(mode),
                 /*has_payload=*/true);
}

absl::StatusOr<ScheduleOutcome> DurableScheduler::Reschedule(
    absl::string_view id, absl::Time due, std::optional<std::string> payload) {
  absl::StatusOr<ScheduleRequest> request =
      durable_internal::RequestAt(id, due, payload.value_or(""));
  if (!request.ok()) return request.status();
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes = Replace(
      {&*request, 1}, ReplaceRule::kRescheduleOnly, payload.has_value());
  if (!outcomes.ok()) return outcomes.status();
  return outcomes->front();
}

absl::StatusOr<ScheduleOutcome> DurableScheduler::RescheduleAfter(
    absl::string_view id, absl::Duration delay,
    std::optional<std::string> payload) {
  ScheduleRequest request =
      durable_internal::RequestAfter(id, delay, payload.value_or(""));
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes =
      Replace({&request, 1}, ReplaceRule::kRescheduleOnly, payload.has_value());
  if (!outcomes.ok()) return outcomes.status();
  return outcomes->front();
}

}  // namespace timingwheel
