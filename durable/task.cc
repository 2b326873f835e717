// Copyright 2026 The timingwheel Authors.

#include "durable/task.h"

#include "absl/strings/str_cat.h"
#include "durable/task_kind.h"

namespace timingwheel {

const char* TaskStateName(TaskState state) {
  switch (state) {
    case TaskState::kPending:
      return "PENDING";
    case TaskState::kScheduled:
      return "SCHEDULED";
    case TaskState::kRunning:
      return "RUNNING";
    case TaskState::kSuccess:
      return "SUCCESS";
    case TaskState::kFailed:
      return "FAILED";
  }
  return "UNKNOWN";
}

const char* ScheduleOutcomeName(ScheduleOutcome outcome) {
  switch (outcome) {
    case ScheduleOutcome::kScheduled:
      return "SCHEDULED";
    case ScheduleOutcome::kReplaced:
      return "REPLACED";
    case ScheduleOutcome::kKept:
      return "KEPT";
    case ScheduleOutcome::kAlreadyRunning:
      return "ALREADY_RUNNING";
    case ScheduleOutcome::kFinished:
      return "FINISHED";
  }
  return "UNKNOWN";
}

namespace durable_internal {

absl::Status CheckKindName(absl::string_view name) {
  if (static_cast<int>(name.size()) > kMaxKindBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("task kind of ", name.size(),
                     " bytes exceeds the limit of ", kMaxKindBytes));
  }
  for (char c : name) {
    if (c < 0x20 || c > 0x7e) {
      return absl::InvalidArgumentError(
          "task kind: printable ASCII only (0x20 to 0x7e)");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckDueTime(absl::string_view field, absl::Time due) {
  if (due < absl::UnixEpoch()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is before 1970-01-01 (the earliest due time)"));
  }
  if (due >= absl::FromUnixMicros(kDueLimitUnixMicros)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " is from year 10000 on (due times end before 10000-01-01)"));
  }
  return absl::OkStatus();
}

absl::Status CheckDelay(absl::string_view field, absl::Duration delay) {
  if (delay >= kMaxDelay) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " of ", absl::FormatDuration(delay),
                     " is not shorter than the limit of ",
                     absl::FormatDuration(kMaxDelay), " (about 7,000 years)"));
  }
  return absl::OkStatus();
}

absl::Status CheckIdBytes(absl::string_view field, absl::string_view id,
                          int64_t max_bytes) {
  if (id.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, " is empty"));
  }
  if (static_cast<int64_t>(id.size()) > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " of ", id.size(), " bytes exceeds the limit of ", max_bytes));
  }
  return absl::OkStatus();
}

}  // namespace durable_internal

const char* AttemptOutcomeName(AttemptOutcome outcome) {
  switch (outcome) {
    case AttemptOutcome::kSucceeded:
      return "SUCCEEDED";
    case AttemptOutcome::kRetried:
      return "RETRIED";
    case AttemptOutcome::kFailed:
      return "FAILED";
    case AttemptOutcome::kSnoozed:
      return "SNOOZED";
    case AttemptOutcome::kOperatorRetry:
      return "OPERATOR_RETRY";
  }
  return "UNKNOWN";
}

}  // namespace timingwheel
