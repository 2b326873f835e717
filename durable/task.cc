// Copyright 2026 The timingwheel Authors.

#include "durable/task.h"

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
  }
  return "UNKNOWN";
}

}  // namespace timingwheel
