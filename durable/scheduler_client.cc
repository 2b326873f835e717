// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's client calls (Schedule/Cancel/Get, on the code it
// shares with DurableClient), the wake-ups its own inserts owe, and
// ScheduleInTransaction().

#include <utility>
#include <vector>

#include "durable/client/client_core.h"
#include "durable/client/request.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/real_clock.h"
#include "libpq-fe.h"

namespace timingwheel {

using durable_internal::InsertResult;
using durable_internal::WheelEntry;

absl::Status DurableScheduler::Schedule(absl::string_view id,
                                        absl::Duration delay,
                                        absl::string_view payload) {
  ScheduleRequest request = durable_internal::RequestAfter(id, delay, payload);
  return Insert({&request, 1});
}

absl::Status DurableScheduler::ScheduleAt(absl::string_view id, absl::Time due,
                                          absl::string_view payload) {
  absl::StatusOr<ScheduleRequest> request =
      durable_internal::RequestAt(id, due, payload);
  if (!request.ok()) return request.status();
  return Insert({&*request, 1});
}

absl::StatusOr<AdminStore*> DurableScheduler::Admin() {
  return client_->Admin();
}

absl::StatusOr<CancelOutcome> DurableScheduler::CancelTask(
    absl::string_view id) {
  return client_->CancelTask(id);
}

absl::Status DurableScheduler::ScheduleBatch(
    absl::Span<const ScheduleRequest> requests) {
  if (requests.empty()) return absl::OkStatus();
  return Insert(requests);
}

absl::Status DurableScheduler::Insert(
    absl::Span<const ScheduleRequest> requests) {
  absl::StatusOr<InsertResult> inserted = client_->Insert(
      requests, InserterOf(),
      [this](const InsertResult& result) { return AfterInsert(result); });
  if (!inserted.ok()) return inserted.status();
  internal::MutexLock lock(mu_);
  metrics_.scheduled += static_cast<int64_t>(requests.size());
  return absl::OkStatus();
}

durable_internal::AttemptLog DurableScheduler::AttemptLogOf() const {
  return {options_.node_id, options_.attempt_history};
}

durable_internal::Inserter DurableScheduler::InserterOf() const {
  durable_internal::Inserter inserter;
  inserter.node_id = options_.node_id;
  inserter.horizon_us = absl::ToInt64Microseconds(options_.horizon);
  inserter.slot_count = options_.slot_count;
  return inserter;
}

std::vector<WheelEntry> DurableScheduler::AfterInsert(
    const InsertResult& result) {
  // Read after the commit returned: if the local lease (a conservative
  // estimate of the database's) is still valid now, it was at the commit,
  // so no other process can have taken the slot before the row existed.
  const bool lease_valid =
      durable_internal::RealNanos() < renewer_->valid_until_nanos();
  const int64_t horizon_end =
      result.db_now_us + absl::ToInt64Microseconds(options_.horizon);
  std::vector<WheelEntry> notify;
  bool load = false;
  internal::MutexLock lock(mu_);
  // Once stopping, the slots are being handed over: vouch for none.
  const bool held = lease_valid && !stopping_;
  for (const WheelEntry& e : result.mine) {
    auto owned = owned_.find(e.slot);
    if (held && owned != owned_.end() && owned->second == e.epoch) {
      load = true;  // Due soon in a slot still ours: load it now.
    } else {
      notify.push_back(e);  // The slot moved: wake whoever holds it now.
    }
  }
  for (const WheelEntry& e : result.identical) {
    // A retry of an insert whose reply was lost: its wake-up may never
    // have been sent.
    if (held && owned_.contains(e.slot)) {
      if (e.due_us < horizon_end) load = true;
    } else {
      notify.push_back(e);
    }
  }
  if (load) {
    load_requested_ = true;
    Wake();
  }
  return notify;
}

absl::StatusOr<bool> DurableScheduler::Cancel(absl::string_view id) {
  absl::StatusOr<bool> cancelled = client_->Cancel(id);
  if (cancelled.ok() && *cancelled) {
    // Tidy our own wheel; the fire statement would find no row anyway.
    internal::MutexLock lock(mu_);
    wheel_->Cancel(id);
  }
  return cancelled;
}

absl::StatusOr<TaskInfo> DurableScheduler::Get(absl::string_view id) {
  return client_->Get(id);
}

absl::Status ScheduleInTransaction(PGconn* conn,
                                   absl::Span<const ScheduleRequest> requests,
                                   int slot_count, int64_t max_id_bytes,
                                   int64_t max_payload_bytes) {
  if (conn == nullptr) return absl::InvalidArgumentError("conn is null");
  switch (PQtransactionStatus(conn)) {
    case PQTRANS_INTRANS:
      break;
    case PQTRANS_IDLE:
      return absl::FailedPreconditionError(
          "ScheduleInTransaction: no transaction is open on conn (BEGIN "
          "first); outside one each task would commit on its own: use "
          "DurableClient::Schedule() for that");
    case PQTRANS_INERROR:
      return absl::FailedPreconditionError(
          "ScheduleInTransaction: the transaction on conn has failed: roll "
          "it back");
    case PQTRANS_ACTIVE:
      return absl::FailedPreconditionError(
          "ScheduleInTransaction: conn is busy with another command");
    default:
      return absl::UnavailableError(
          "ScheduleInTransaction: conn is not connected");
  }
  const durable_internal::RequestLimits limits{max_id_bytes, max_payload_bytes};
  absl::Status status = durable_internal::CheckClientLimits(slot_count, limits);
  if (!status.ok()) return status;
  absl::StatusOr<std::vector<durable_internal::InsertRow>> rows =
      durable_internal::ToRows(requests, slot_count, limits);
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return absl::OkStatus();
  durable_internal::Inserter inserter;
  inserter.slot_count = slot_count;
  // Owners of rows due within their horizons are woken at commit.
  absl::StatusOr<InsertResult> inserted =
      durable_internal::InsertTasks(conn, inserter, *rows);
  if (!inserted.ok()) return inserted.status();
  return durable_internal::NotifyDue(conn, inserted->identical);
}

}  // namespace timingwheel
