// Copyright 2026 The timingwheel Authors.

#include "durable/fire_batch.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace durable_internal {

absl::Status RunHandler(
    const std::function<absl::Status(const DurableTask&)>& handler,
    const DurableTask& task) {
  try {
    return handler(task);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("handler threw: ", e.what()));
  } catch (...) {
    return absl::InternalError("handler threw a non-standard exception");
  }
}

absl::Duration BackoffFor(const RetryPolicy& policy, int attempt) {
  double factor =
      std::pow(std::max(1.0, policy.multiplier), std::max(0, attempt - 1));
  absl::Duration backoff = policy.initial_backoff * factor;
  return std::min(std::max(backoff, absl::ZeroDuration()), policy.max_backoff);
}

Completion MakeCompletion(const Started& started, const absl::Status& result,
                          const RetryPolicy& policy) {
  Completion c;
  c.id = started.task.id;
  c.version = started.version;
  c.attempt = started.task.attempt;
  c.slot = started.slot;
  if (result.ok()) {
    c.outcome = Outcome::kSuccess;
    return c;
  }
  c.error = result.ToString();
  if (started.task.attempt >= policy.max_attempts) {
    c.outcome = Outcome::kFailed;
    return c;
  }
  c.outcome = Outcome::kRetry;
  c.backoff_us = absl::ToInt64Microseconds(
      BackoffFor(policy, started.task.attempt) + absl::Nanoseconds(999));
  return c;
}

}  // namespace durable_internal
}  // namespace timingwheel
