// Copyright 2026 The timingwheel Authors.

#include "durable/client/client_core.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace durable_internal {

absl::Status CheckDuration(absl::string_view name, absl::Duration value,
                           absl::Duration min) {
  if (value == absl::InfiniteDuration() || value == -absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be finite"));
  }
  if (value < min) {
    return absl::InvalidArgumentError(
        min == absl::ZeroDuration()
            ? absl::StrCat(name, " must not be negative (got ",
                           absl::FormatDuration(value), ")")
            : absl::StrCat(name, " must be at least ",
                           absl::FormatDuration(min), " (got ",
                           absl::FormatDuration(value), ")"));
  }
  if (value > kMaxOptionDuration) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be at most 100 years (got ",
                     absl::FormatDuration(value), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckClientLimits(int slot_count, const RequestLimits& limits) {
  if (slot_count < 1 || slot_count > 65536) {
    return absl::InvalidArgumentError("slot_count must be in [1, 65536]");
  }
  if (limits.max_id_bytes < 1 || limits.max_id_bytes > kMaxIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_id_bytes must be in [1, ", kMaxIdBytes, "] (got ",
                     limits.max_id_bytes, ")"));
  }
  if (limits.max_payload_bytes < 1 ||
      limits.max_payload_bytes > kMaxPayloadBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_payload_bytes must be in [1, ", kMaxPayloadBytes,
                     "] (got ", limits.max_payload_bytes, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckId(absl::string_view id, const RequestLimits& limits) {
  return CheckIdBytes("task id", id, limits.max_id_bytes);
}

absl::StatusOr<std::unique_ptr<ClientCore>> ClientCore::Create(
    Options options) {
  absl::Status status = CheckClientLimits(options.slot_count, options.limits);
  if (!status.ok()) return status;
  absl::StatusOr<std::unique_ptr<Store>> store =
      Store::Connect(options.conninfo, options.session_limits);
  if (!store.ok()) return store.status();
  return CreateOver(std::move(options), *std::move(store));
}

absl::StatusOr<std::unique_ptr<ClientCore>> ClientCore::CreateOver(
    Options options, std::unique_ptr<StoreApi> store) {
  absl::Status status = CheckClientLimits(options.slot_count, options.limits);
  if (!status.ok()) return status;
  status = options.migrate_schema ? store->EnsureSchema(options.slot_count)
                                  : store->CheckSchema(options.slot_count);
  if (!status.ok()) return status;
  return std::unique_ptr<ClientCore>(
      new ClientCore(std::move(options), std::move(store)));
}

absl::StatusOr<InsertResult> ClientCore::InsertOnStore(
    const Inserter& inserter, absl::Span<const InsertRow> rows) {
  internal::MutexLock lock(mu_);
  if (store_ == nullptr) {
    return absl::FailedPreconditionError(options_.closed_message);
  }
  absl::StatusOr<InsertResult> inserted = store_->Insert(inserter, rows);
  if (absl::IsUnavailable(inserted.status()) && store_->Reconnect().ok()) {
    // Safe to repeat: an insert that committed before the connection
    // dropped is now an identical retry (and its wake-ups are sent below).
    inserted = store_->Insert(inserter, rows);
  }
  return inserted;
}

absl::StatusOr<InsertResult> ClientCore::Insert(
    absl::Span<const ScheduleRequest> requests, const Inserter& inserter,
    const AfterInsert& after) {
  absl::StatusOr<std::vector<InsertRow>> rows =
      ToRows(requests, options_.slot_count, options_.limits);
  if (!rows.ok()) return rows.status();
  {
    internal::MutexLock lock(in_flight_mu_);
    if (closing_) return absl::FailedPreconditionError(options_.closed_message);
    ++inserts_in_flight_;
  }
  absl::StatusOr<InsertResult> inserted = combiner_.Insert(
      inserter, *rows,
      [this](const Inserter& who, absl::Span<const InsertRow> batch) {
        return InsertOnStore(who, batch);
      });
  if (inserted.ok()) {
    // Not under the connection's lock: the next group's statement holds it
    // while it runs, and calls that wait here for it would not be queued in
    // the combiner for the group after (Close() still waits for this call).
    std::vector<WheelEntry> wake =
        after ? after(*inserted) : inserted->identical;
    if (!wake.empty()) {
      internal::MutexLock lock(mu_);
      if (store_ != nullptr) {
        absl::Status status = store_->NotifyDue(wake);
        if (absl::IsUnavailable(status) && store_->Reconnect().ok()) {
          (void)store_->NotifyDue(wake);
        }
      }
    }
  }
  internal::MutexLock lock(in_flight_mu_);
  if (--inserts_in_flight_ == 0) inserts_done_.notify_all();
  return inserted;
}

absl::StatusOr<std::vector<ScheduleOutcome>> ClientCore::Replace(
    absl::Span<const ScheduleRequest> requests, ReplaceRule rule,
    bool has_payload, const Inserter& inserter, const AfterInsert& after) {
  std::vector<ScheduleRequest> keeping;  // Without payloads: placeholders.
  if (!has_payload) {
    keeping.assign(requests.begin(), requests.end());
    for (ScheduleRequest& request : keeping) request.payload = "-";
    requests = keeping;
  }
  absl::StatusOr<std::vector<InsertRow>> rows =
      ToRows(requests, options_.slot_count, options_.limits);
  if (!rows.ok()) return rows.status();
  std::vector<ReplaceRow> replace;
  replace.reserve(rows->size());
  for (InsertRow& row : *rows) {
    replace.push_back(ReplaceRow{std::move(row), rule, has_payload});
  }
  internal::MutexLock lock(mu_);
  if (store_ == nullptr) {
    return absl::FailedPreconditionError(options_.closed_message);
  }
  absl::StatusOr<ReplaceResult> replaced = store_->Replace(inserter, replace);
  if (absl::IsUnavailable(replaced.status()) && store_->Reconnect().ok()) {
    replaced = store_->Replace(inserter, replace);
  }
  if (!replaced.ok()) return replaced.status();
  if (after) {
    std::vector<WheelEntry> wake = after(replaced->inserted);
    if (!wake.empty()) {
      absl::Status status = store_->NotifyDue(wake);
      if (absl::IsUnavailable(status) && store_->Reconnect().ok()) {
        (void)store_->NotifyDue(wake);
      }
    }
  }
  std::vector<ScheduleOutcome> outcomes;
  outcomes.reserve(replaced->answers.size());
  for (const ReplaceAnswer& answer : replaced->answers) {
    switch (answer.prior_state) {
      case -1:
        if (!answer.written) {
          return absl::NotFoundError("no task with this id to reschedule");
        }
        outcomes.push_back(ScheduleOutcome::kScheduled);
        break;
      case static_cast<int>(TaskState::kRunning):
        outcomes.push_back(ScheduleOutcome::kAlreadyRunning);
        break;
      case static_cast<int>(TaskState::kSuccess):
      case static_cast<int>(TaskState::kFailed):
        outcomes.push_back(answer.written ? ScheduleOutcome::kScheduled
                                          : ScheduleOutcome::kFinished);
        break;
      default:  // PENDING or SCHEDULED.
        outcomes.push_back(answer.written ? ScheduleOutcome::kReplaced
                                          : ScheduleOutcome::kKept);
        break;
    }
  }
  return outcomes;
}

ReplaceRule RuleOf(ReplaceMode mode) {
  switch (mode) {
    case ReplaceMode::kKeepEarlier:
      return ReplaceRule::kKeepEarlier;
    case ReplaceMode::kKeepLater:
      return ReplaceRule::kKeepLater;
    case ReplaceMode::kReplace:
      break;
  }
  return ReplaceRule::kReplace;
}

absl::StatusOr<bool> ClientCore::Cancel(absl::string_view id) {
  absl::Status valid = CheckId(id, options_.limits);
  if (!valid.ok()) return valid;
  const std::string key(id);
  internal::MutexLock lock(mu_);
  if (store_ == nullptr) {
    return absl::FailedPreconditionError(options_.closed_message);
  }
  absl::StatusOr<bool> cancelled = store_->Cancel(key);
  if (absl::IsUnavailable(cancelled.status()) && store_->Reconnect().ok()) {
    // The first try may have deleted the row before its reply was lost:
    // then this one finds no row. No row means the task will not run, which
    // is what true promises (a task that never existed answers true here).
    cancelled = store_->Cancel(key);
    if (cancelled.ok() && !*cancelled) {
      absl::StatusOr<bool> stored = Stored(key);
      if (!stored.ok()) return stored.status();
      if (!*stored) cancelled = true;
    }
  }
  return cancelled;
}

absl::StatusOr<bool> ClientCore::Stored(const std::string& key) {
  absl::StatusOr<TaskInfo> info = store_->Get(key);
  if (absl::IsNotFound(info.status())) return false;
  if (!info.ok()) return info.status();
  return true;
}

absl::StatusOr<CancelOutcome> ClientCore::CancelTask(absl::string_view id) {
  absl::Status valid = CheckId(id, options_.limits);
  if (!valid.ok()) return valid;
  const std::string key(id);
  internal::MutexLock lock(mu_);
  if (store_ == nullptr) {
    return absl::FailedPreconditionError(options_.closed_message);
  }
  absl::StatusOr<CancelOutcome> cancelled = store_->CancelTask(key);
  if (absl::IsUnavailable(cancelled.status()) && store_->Reconnect().ok()) {
    // A first try that committed before its reply was lost makes this one
    // answer kNotFound: the task is gone and will not run (kCancelled).
    cancelled = store_->CancelTask(key);
    if (cancelled.ok() && *cancelled == CancelOutcome::kNotFound) {
      absl::StatusOr<bool> stored = Stored(key);
      if (!stored.ok()) return stored.status();
      if (!*stored) cancelled = CancelOutcome::kCancelled;
    }
  }
  return cancelled;
}

absl::StatusOr<TaskInfo> ClientCore::Get(absl::string_view id) {
  absl::Status valid = CheckId(id, options_.limits);
  if (!valid.ok()) return valid;
  const std::string key(id);
  internal::MutexLock lock(mu_);
  if (store_ == nullptr) {
    return absl::FailedPreconditionError(options_.closed_message);
  }
  absl::StatusOr<TaskInfo> info = store_->Get(key);
  if (absl::IsUnavailable(info.status()) && store_->Reconnect().ok()) {
    info = store_->Get(key);
  }
  return info;
}

absl::StatusOr<AdminStore*> ClientCore::Admin() {
  internal::MutexLock lock(admin_mu_);
  if (admin_ == nullptr) {
    absl::StatusOr<std::unique_ptr<AdminStore>> admin =
        AdminStore::Connect(options_.conninfo);
    if (!admin.ok()) return admin.status();
    admin_ = *std::move(admin);
  }
  return admin_.get();
}

absl::Status ClientCore::RunOnStore(
    const std::function<absl::Status(StoreApi&)>& fn) {
  internal::MutexLock lock(mu_);
  if (store_ == nullptr) {
    return absl::FailedPreconditionError(options_.closed_message);
  }
  absl::Status status = fn(*store_);
  if (absl::IsUnavailable(status) && store_->Reconnect().ok()) {
    status = fn(*store_);
  }
  return status;
}

void ClientCore::Close() {
  {
    internal::MutexLock lock(in_flight_mu_);
    closing_ = true;
    // An insert that committed still sends its wake-ups.
    while (inserts_in_flight_ > 0) inserts_done_.wait(lock.native());
  }
  internal::MutexLock lock(mu_);
  store_.reset();
}

absl::StatusOr<std::vector<InsertRow>> ToRows(
    absl::Span<const ScheduleRequest> requests, int slot_count,
    const RequestLimits& limits) {
  if (static_cast<int64_t>(requests.size()) > kMaxBatchRequests) {
    return absl::InvalidArgumentError(
        absl::StrCat("a batch of ", requests.size(),
                     " requests exceeds the limit of ", kMaxBatchRequests));
  }
  std::vector<InsertRow> rows;
  rows.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    absl::StatusOr<InsertRow> row =
        ToInsertRow(requests[i], slot_count, limits);
    if (!row.ok()) {
      if (requests.size() == 1) return row.status();
      return absl::Status(row.status().code(),
                          absl::StrCat("request ", i, " of the batch: ",
                                       row.status().message()));
    }
    rows.push_back(*std::move(row));
  }
  return rows;
}

ScheduleRequest RequestAfter(absl::string_view id, absl::Duration delay,
                             absl::string_view payload) {
  ScheduleRequest request;
  request.id = std::string(id);
  request.payload = std::string(payload);
  request.delay = delay;
  return request;
}

absl::StatusOr<ScheduleRequest> RequestAt(absl::string_view id, absl::Time due,
                                          absl::string_view payload) {
  if (due == absl::InfinitePast()) {
    return CheckDueTime("due time", due);
  }
  ScheduleRequest request;
  request.id = std::string(id);
  request.payload = std::string(payload);
  request.due = due;
  return request;
}

}  // namespace durable_internal

}  // namespace timingwheel
