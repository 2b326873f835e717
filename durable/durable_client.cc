// Copyright 2026 The timingwheel Authors.

#include "durable/durable_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "durable/client/client_core.h"
#include "durable/client/schedule_calls.h"

namespace timingwheel {

using durable_internal::ClientCore;

DurableClient::DurableClient(std::unique_ptr<ClientCore> core)
    : core_(std::move(core)) {}

DurableClient::~DurableClient() { Close(); }

absl::StatusOr<std::unique_ptr<DurableClient>> DurableClient::Create(
    DurableClientOptions options) {
  ClientCore::Options core;
  core.conninfo = std::move(options.conninfo);
  core.slot_count = options.slot_count;
  core.migrate_schema = options.migrate_schema;
  core.limits = {options.max_id_bytes, options.max_payload_bytes};
  core.closed_message = "client is closed";
  if (options.statement_timeout < absl::ZeroDuration() ||
      options.statement_timeout > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("statement_timeout must be in [0, 24h] (got ",
                     absl::FormatDuration(options.statement_timeout), ")"));
  }
  core.session_limits.statement_timeout_ms =
      absl::ToInt64Milliseconds(options.statement_timeout);
  core.session_limits.lock_timeout_ms =
      core.session_limits.statement_timeout_ms;
  core.session_limits.transaction_pooler = options.transaction_pooler;
  absl::StatusOr<std::unique_ptr<ClientCore>> created =
      ClientCore::Create(std::move(core));
  if (!created.ok()) return created.status();
  return std::unique_ptr<DurableClient>(new DurableClient(*std::move(created)));
}

namespace {

// A plain client: owns no slot, so every wake-up goes by notification (the
// insert statement's, and the identical retries' from `ClientCore`).
durable_internal::Inserter ClientInserter(int slot_count) {
  durable_internal::Inserter inserter;
  inserter.slot_count = slot_count;
  return inserter;
}

}  // namespace

absl::Status DurableClient::Schedule(absl::string_view id, absl::Duration delay,
                                     absl::string_view payload) {
  ScheduleRequest request = durable_internal::RequestAfter(id, delay, payload);
  return ScheduleBatch({&request, 1});
}

absl::Status DurableClient::ScheduleAt(absl::string_view id, absl::Time due,
                                       absl::string_view payload) {
  absl::StatusOr<ScheduleRequest> request =
      durable_internal::RequestAt(id, due, payload);
  if (!request.ok()) return request.status();
  return ScheduleBatch({&*request, 1});
}

absl::Status DurableClient::ScheduleBatch(
    absl::Span<const ScheduleRequest> requests) {
  if (requests.empty()) return absl::OkStatus();
  return core_->Insert(requests, ClientInserter(core_->slot_count()), nullptr)
      .status();
}

absl::StatusOr<ScheduleOutcome> DurableClient::ScheduleOrReplace(
    const ScheduleRequest& request, ReplaceMode mode) {
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes =
      ScheduleOrReplaceBatch({&request, 1}, mode);
  if (!outcomes.ok()) return outcomes.status();
  return outcomes->front();
}

absl::StatusOr<std::vector<ScheduleOutcome>>
DurableClient::ScheduleOrReplaceBatch(
    absl::Span<const ScheduleRequest> requests, ReplaceMode mode) {
  if (requests.empty()) return std::vector<ScheduleOutcome>();
  return core_->Replace(requests, durable_internal::RuleOf(mode),
                        /*has_payload=*/true,
                        ClientInserter(core_->slot_count()), nullptr);
}

absl::StatusOr<ScheduleOutcome> DurableClient::Reschedule(
    absl::string_view id, absl::Time due, std::optional<std::string> payload) {
  absl::StatusOr<ScheduleRequest> request =
      durable_internal::RequestAt(id, due, payload.value_or(""));
  if (!request.ok()) return request.status();
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes = core_->Replace(
      {&*request, 1}, durable_internal::ReplaceRule::kRescheduleOnly,
      payload.has_value(), ClientInserter(core_->slot_count()), nullptr);
  if (!outcomes.ok()) return outcomes.status();
  return outcomes->front();
}

absl::StatusOr<ScheduleOutcome> DurableClient::RescheduleAfter(
    absl::string_view id, absl::Duration delay,
    std::optional<std::string> payload) {
  ScheduleRequest request =
      durable_internal::RequestAfter(id, delay, payload.value_or(""));
  absl::StatusOr<std::vector<ScheduleOutcome>> outcomes = core_->Replace(
      {&request, 1}, durable_internal::ReplaceRule::kRescheduleOnly,
      payload.has_value(), ClientInserter(core_->slot_count()), nullptr);
  if (!outcomes.ok()) return outcomes.status();
  return outcomes->front();
}

absl::StatusOr<CancelOutcome> DurableClient::CancelTask(absl::string_view id) {
  return core_->CancelTask(id);
}

absl::StatusOr<AdminStore*> DurableClient::Admin() { return core_->Admin(); }

absl::StatusOr<bool> DurableClient::Cancel(absl::string_view id) {
  return core_->Cancel(id);
}

absl::StatusOr<TaskInfo> DurableClient::Get(absl::string_view id) {
  return core_->Get(id);
}

void DurableClient::Close() { core_->Close(); }

absl::Status DurableClient::CreateSchedule(const RecurringSchedule& schedule) {
  return durable_internal::CreateScheduleCall(
      *core_, schedule, ClientInserter(core_->slot_count()), nullptr);
}

absl::Status DurableClient::UpdateSchedule(const RecurringSchedule& schedule) {
  return durable_internal::UpdateScheduleCall(
      *core_, schedule, ClientInserter(core_->slot_count()), nullptr);
}

absl::Status DurableClient::PauseSchedule(absl::string_view name) {
  return durable_internal::PauseScheduleCall(*core_, name);
}

absl::Status DurableClient::ResumeSchedule(absl::string_view name) {
  return durable_internal::ResumeScheduleCall(
      *core_, name, ClientInserter(core_->slot_count()), nullptr);
}

absl::StatusOr<bool> DurableClient::DeleteSchedule(absl::string_view name) {
  return durable_internal::DeleteScheduleCall(*core_, name);
}

absl::StatusOr<std::vector<ScheduleInfo>> DurableClient::ListSchedules() {
  return durable_internal::ListSchedulesCall(*core_);
}

absl::StatusOr<ScheduleInfo> DurableClient::GetSchedule(
    absl::string_view name) {
  return durable_internal::GetScheduleCall(*core_, name);
}

}  // namespace timingwheel
