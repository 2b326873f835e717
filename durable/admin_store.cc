// Copyright 2026 The timingwheel Authors.

#include "durable/admin_store.h"

#include <utility>

namespace timingwheel {

class AdminStore::Impl {};

std::optional<TaskState> ParseTaskState(absl::string_view) {
  return std::nullopt;
}

AdminStore::AdminStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AdminStore::~AdminStore() = default;

absl::StatusOr<std::unique_ptr<AdminStore>> AdminStore::Connect(
    const std::string&, absl::Duration) {
  return absl::UnimplementedError("AdminStore::Connect");
}
absl::StatusOr<absl::Time> AdminStore::DbNow() {
  return absl::UnimplementedError("DbNow");
}
absl::StatusOr<StoreStatus> AdminStore::Status() {
  return absl::UnimplementedError("Status");
}
absl::StatusOr<TaskPage> AdminStore::List(const TaskFilter&) {
  return absl::UnimplementedError("List");
}
absl::StatusOr<TaskDetail> AdminStore::Show(const std::string&) {
  return absl::UnimplementedError("Show");
}
absl::StatusOr<ActionResult> AdminStore::Cancel(const std::string&) {
  return absl::UnimplementedError("Cancel");
}
absl::StatusOr<ActionResult> AdminStore::Retry(const std::string&, AdminDue) {
  return absl::UnimplementedError("Retry");
}
absl::StatusOr<ActionResult> AdminStore::Reschedule(const std::string&,
                                                    AdminDue) {
  return absl::UnimplementedError("Reschedule");
}
absl::StatusOr<SchemaPlan> AdminStore::PlanMigration(int) {
  return absl::UnimplementedError("PlanMigration");
}
absl::StatusOr<SchemaPlan> AdminStore::Migrate(int) {
  return absl::UnimplementedError("Migrate");
}

}  // namespace timingwheel
