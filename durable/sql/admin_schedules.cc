// Copyright 2026 The timingwheel Authors.
//
// AdminStore's writes to recurring schedules: pause, resume, delete. Each
// is one transaction of the statements the schedulers' own calls run
// (schedule_store.h), as a plain client: the occurrences a resume writes
// wake their slots' owners at commit, as any insert does.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "durable/admin_store.h"
#include "durable/recurrence/schedule_plan.h"
#include "durable/sql/admin_store_impl.h"
#include "durable/sql/migrations.h"
#include "durable/sql/schedule_store.h"
#include "durable/sql/store_types.h"

namespace timingwheel {
namespace {

// `status` with the schedule's name (C-escaped) in front of its message.
absl::Status Named(absl::string_view name, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("schedule \"", absl::CHexEscape(name),
                                   "\": ", status.message()));
}

}  // namespace

absl::Status AdminStore::PauseSchedule(absl::string_view name) {
  absl::Status valid = durable_internal::CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  internal::MutexLock lock(mu_);
  // The lambda runs under the lock (the analysis does not follow it).
  Impl* const impl = impl_.get();
  const absl::Status status =
      impl->Writing<bool>([&]() -> absl::StatusOr<bool> {
            absl::Status paused =
                durable_internal::PauseScheduleTx(impl->conn(), key);
            if (!paused.ok()) return paused;
            return true;
          })
          .status();
  return Named(name, status);
}

absl::Status AdminStore::ResumeSchedule(absl::string_view name) {
  absl::Status valid = durable_internal::CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  internal::MutexLock lock(mu_);
  Impl* const impl = impl_.get();
  const absl::Status status =
      impl->Writing<bool>([&]() -> absl::StatusOr<bool> {
            // The occurrences' slots hash by the store's slot count (which
            // their insert checks again).
            absl::StatusOr<durable_internal::SchemaInfo> info =
                durable_internal::ReadSchemaVersion(impl->conn());
            if (!info.ok()) return info.status();
            durable_internal::Inserter inserter;
            inserter.slot_count = static_cast<int>(info->slot_count);
            absl::Status resumed =
                durable_internal::ResumeScheduleTx(impl->conn(), key, inserter)
                    .status();
            if (!resumed.ok()) return resumed;
            return true;
          })
          .status();
  return Named(name, status);
}

absl::StatusOr<bool> AdminStore::DeleteSchedule(absl::string_view name) {
  absl::Status valid = durable_internal::CheckScheduleName(name);
  if (!valid.ok()) return valid;
  const std::string key(name);
  internal::MutexLock lock(mu_);
  Impl* const impl = impl_.get();
  return impl->Writing<bool>(
      [&] { return durable_internal::DeleteScheduleTx(impl->conn(), key); });
}

}  // namespace timingwheel
