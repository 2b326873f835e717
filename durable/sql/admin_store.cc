// Copyright 2026 The timingwheel Authors.
//
// AdminStore: connecting, reconnecting, the schema check, and the public
// members (the reads are in admin_reads.cc, the writes in admin_writes.cc).

#include "durable/admin_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "durable/sql/admin_store_impl.h"
#include "durable/sql/migrations.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/redact.h"
#include "durable/sql/schedule_store.h"
#include "durable/sql/store.h"
#include "libpq-fe.h"

namespace timingwheel {

using durable_internal::kSchemaVersion;
using durable_internal::PgExec;
using durable_internal::PgParams;

std::optional<TaskState> ParseTaskState(absl::string_view name) {
  std::string upper = absl::AsciiStrToUpper(name);
  for (int s = 0; s < kTaskStateCount; ++s) {
    if (upper == TaskStateName(static_cast<TaskState>(s))) {
      return static_cast<TaskState>(s);
    }
  }
  return std::nullopt;
}

absl::Status AdminStore::Impl::ApplySettings() {
  const std::string ms =
      absl::StrCat(std::max<int64_t>(0, absl::ToInt64Milliseconds(timeout_)));
  return PgExec(conn_,
                "SELECT set_config('statement_timeout', $1, false), "
                "set_config('lock_timeout', $1, false), "
                "set_config('application_name', 'timingwheel-admin', false)",
                PgParams().Text(ms))
      .status();
}

// Re-establishes a connection lost by an earlier call.
absl::Status AdminStore::Impl::EnsureConnected() {
  if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
  PQreset(conn_);
  schema_checked_ = false;
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string message = durable_internal::ScrubSecrets(
        durable_internal::PgScrubbed(conn_, PQerrorMessage(conn_)), secrets_);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return absl::UnavailableError(absl::StrCat(
        "cannot reconnect to PostgreSQL (", redacted_, "): ", message));
  }
  return ApplySettings();
}

// OK when the store's schema is the one this library knows.
absl::Status AdminStore::Impl::CheckSchema() {
  if (schema_checked_) return absl::OkStatus();
  absl::StatusOr<durable_internal::SchemaInfo> info =
      durable_internal::ReadSchemaVersion(conn_);
  if (!info.ok()) return info.status();
  if (info->version == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no timingwheel store in this database (", redacted_,
                     "): create one with `twctl migrate`"));
  }
  if (info->version < kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store's schema is version ", info->version,
        ", this library's is version ", kSchemaVersion,
        ": upgrade it with `twctl migrate` (see `twctl migrate --dry-run`)"));
  }
  if (info->version > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("the store's schema is version ", info->version,
                     ", newer than version ", kSchemaVersion,
                     " this library knows: use a newer twctl"));
  }
  schema_checked_ = true;
  return absl::OkStatus();
}

AdminStore::AdminStore(std::unique_ptr<Impl> impl, std::string target)
    : target_(std::move(target)), impl_(std::move(impl)) {}
AdminStore::~AdminStore() = default;

int64_t AdminStore::SchemaVersion() { return durable_internal::kSchemaVersion; }

absl::StatusOr<std::unique_ptr<AdminStore>> AdminStore::Connect(
    const std::string& conninfo, absl::Duration statement_timeout) {
  if (statement_timeout < absl::ZeroDuration() ||
      statement_timeout > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("statement_timeout must be in [0, 24h] (got ",
                     absl::FormatDuration(statement_timeout), ")"));
  }
  std::vector<std::string> secrets =
      durable_internal::PasswordCandidates(conninfo);
  std::string parse_error;
  if (!durable_internal::ConnInfoParses(conninfo, &parse_error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid connection string: ",
                     durable_internal::ScrubSecrets(parse_error, secrets)));
  }
  std::string redacted = durable_internal::RedactedConnInfo(conninfo);
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("libpq: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = durable_internal::ScrubSecrets(
        durable_internal::PgScrubbed(conn, PQerrorMessage(conn)), secrets);
    PQfinish(conn);
    return durable_internal::PgConnectError(redacted, message);
  }
  std::string target = redacted;
  auto impl = std::make_unique<Impl>(conn, std::move(redacted),
                                     std::move(secrets), statement_timeout);
  absl::Status status = impl->ApplySettings();
  if (!status.ok()) return status;
  return std::unique_ptr<AdminStore>(
      new AdminStore(std::move(impl), std::move(target)));
}

absl::StatusOr<absl::Time> AdminStore::DbNow() {
  internal::MutexLock lock(mu_);
  // The lambda runs under the lock (the analysis does not follow it).
  Impl* const impl = impl_.get();
  return impl->Reading<absl::Time>([&] { return impl->ReadNow(); });
}

absl::StatusOr<StoreStatus> AdminStore::Status() {
  internal::MutexLock lock(mu_);
  // The lambda runs under the lock (the analysis does not follow it).
  Impl* const impl = impl_.get();
  return impl->Reading<StoreStatus>([&] { return impl->ReadStatus(); });
}

absl::StatusOr<std::vector<ScheduleInfo>> AdminStore::Schedules() {
  internal::MutexLock lock(mu_);
  // The lambda runs under the lock (the analysis does not follow it).
  Impl* const impl = impl_.get();
  return impl->Reading<std::vector<ScheduleInfo>>(
      [&] { return durable_internal::ListSchedulesTx(impl->conn()); });
}

absl::StatusOr<TaskPage> AdminStore::List(const TaskFilter& filter) {
  if (filter.limit < 1 || filter.limit > kMaxListLimit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "limit must be in [1, ", kMaxListLimit, "], not ", filter.limit));
  }
  if (filter.kind.has_value()) {
    absl::Status kind = CheckKindFilter(*filter.kind);
    if (!kind.ok()) return kind;
  }
  internal::MutexLock lock(mu_);
  // The lambda runs under the lock (the analysis does not follow it).
  Impl* const impl = impl_.get();
  return impl->Reading<TaskPage>([&] { return impl->ReadList(filter); });
}

namespace {

// The id of a task to act on, and when it is due afterwards.
absl::Status CheckWrite(const std::string& id, AdminDue due) {
  absl::Status status =
      durable_internal::CheckIdBytes("task id", id, kMaxIdBytes);
  if (!status.ok()) return status;
  return due.at == absl::InfinitePast()
             ? durable_internal::CheckDelay("due.delay", due.delay)
             : durable_internal::CheckDueTime("due.at", due.at);
}

}  // namespace

absl::StatusOr<TaskDetail> AdminStore::Show(const std::string& id) {
  absl::Status valid = CheckWrite(id, AdminDue::Now());
  if (!valid.ok()) return valid;
  internal::MutexLock lock(mu_);
  // The lambda runs under the lock (the analysis does not follow it).
  Impl* const impl = impl_.get();
  return impl->Reading<TaskDetail>([&] { return impl->ReadShow(id); });
}

absl::StatusOr<ActionResult> AdminStore::Cancel(const std::string& id) {
  absl::Status valid = CheckWrite(id, AdminDue::Now());
  if (!valid.ok()) return valid;
  internal::MutexLock lock(mu_);
  return impl_->RunWrite(Impl::Write::kCancel, id, AdminDue::Now());
}

absl::StatusOr<ActionResult> AdminStore::Retry(const std::string& id,
                                               AdminDue due) {
  absl::Status valid = CheckWrite(id, due);
  if (!valid.ok()) return valid;
  internal::MutexLock lock(mu_);
  return impl_->RunWrite(Impl::Write::kRetry, id, due);
}

absl::StatusOr<ActionResult> AdminStore::Discard(const std::string& id) {
  absl::Status valid = CheckWrite(id, AdminDue::Now());
  if (!valid.ok()) return valid;
  internal::MutexLock lock(mu_);
  return impl_->RunWrite(Impl::Write::kDiscard, id, AdminDue::Now());
}

absl::StatusOr<int64_t> AdminStore::RetryMatching(TaskFilter filter,
                                                  AdminDue due) {
  // Checked before the first retry: an invalid due time retries none.
  absl::Status valid = CheckWrite("-", due);
  if (!valid.ok()) return valid;
  filter.state = TaskState::kFailed;
  int64_t retried = 0;
  for (;;) {
    absl::StatusOr<TaskPage> page = List(filter);
    if (!page.ok()) return page.status();
    for (const TaskSummary& task : page->tasks) {
      absl::StatusOr<ActionResult> result = Retry(task.id, due);
      if (!result.ok()) return result.status();
      // Another operator may have retried or discarded it meanwhile.
      if (result->outcome == ActionOutcome::kDone) ++retried;
    }
    if (!page->more || page->tasks.empty()) return retried;
    filter.after_id = page->next_after;
  }
}

absl::StatusOr<ActionResult> AdminStore::Reschedule(const std::string& id,
                                                    AdminDue due) {
  absl::Status valid = CheckWrite(id, due);
  if (!valid.ok()) return valid;
  internal::MutexLock lock(mu_);
  return impl_->RunWrite(Impl::Write::kReschedule, id, due);
}

namespace {

SchemaPlan ToSchemaPlan(const durable_internal::MigrationPlan& plan) {
  SchemaPlan out;
  out.from_version = plan.from_version;
  out.to_version = plan.to_version;
  for (const durable_internal::PlannedStep& s : plan.steps) {
    out.steps.push_back({s.from, s.to, s.description, s.locks, s.sql});
  }
  return out;
}

}  // namespace

absl::StatusOr<SchemaPlan> AdminStore::PlanMigration(int slot_count) {
  if (slot_count < 1 || slot_count > 65536) {
    return absl::InvalidArgumentError("slot count must be in [1, 65536]");
  }
  internal::MutexLock lock(mu_);
  absl::Status status = impl_->EnsureConnected();
  if (!status.ok()) return status;
  absl::StatusOr<durable_internal::MigrationPlan> plan =
      durable_internal::PlanMigration(impl_->conn(), slot_count);
  if (!plan.ok()) return plan.status();
  return ToSchemaPlan(*plan);
}

absl::StatusOr<SchemaPlan> AdminStore::Migrate(int slot_count) {
  if (slot_count < 1 || slot_count > 65536) {
    return absl::InvalidArgumentError("slot count must be in [1, 65536]");
  }
  internal::MutexLock lock(mu_);
  absl::Status status = impl_->EnsureConnected();
  if (!status.ok()) return status;
  absl::StatusOr<durable_internal::MigrationPlan> applied =
      durable_internal::MigrateSchema(impl_->conn(), slot_count, nullptr);
  if (!applied.ok()) return applied.status();
  return ToSchemaPlan(*applied);
}

}  // namespace timingwheel
