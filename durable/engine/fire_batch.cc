// Copyright 2026 The timingwheel Authors.

#include "durable/engine/fire_batch.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <random>

#include "absl/strings/str_cat.h"
#include "durable/handler_outcome.h"

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

absl::Duration Jittered(absl::Duration backoff, double jitter) {
  if (!(jitter > 0.0)) return backoff;
  thread_local std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> factor(1.0 - std::min(jitter, 1.0),
                                                1.0 + std::min(jitter, 1.0));
  return backoff * factor(random);
}

Completion MakeCompletion(const Started& started, const absl::Status& result,
                          const RetryPolicy& policy) {
  Completion c;
  c.id = started.task.id;
  c.version = started.version;
  c.attempt = started.task.attempt;
  c.slot = started.slot;
  c.started_us = started.started_us;
  const HandlerVerdict verdict = ReadVerdict(result);
  // Every delay is within [0, kMaxVerdictDelay] (the policy's backoff is
  // bounded by its options, but jittered), so that the database's now plus
  // it stays inside int64.
  const auto micros_up = [](absl::Duration d) {
    return absl::ToInt64Microseconds(ClampVerdictDelay(d) +
                                     absl::Nanoseconds(999));
  };
  switch (verdict.kind) {
    case HandlerVerdict::kOk:
      c.outcome = Outcome::kSuccess;
      return c;
    case HandlerVerdict::kSnooze:
      c.outcome = Outcome::kSnooze;
      c.backoff_us = micros_up(verdict.delay);
      return c;
    case HandlerVerdict::kDiscard:
      c.error = HandlerErrorText(result);
      c.outcome = Outcome::kFailed;
      return c;
    case HandlerVerdict::kFailure:
    case HandlerVerdict::kRetryAfter:
      break;
  }
  c.error = HandlerErrorText(result);
  if (started.task.attempt >= policy.max_attempts) {
    c.outcome = Outcome::kFailed;
    return c;
  }
  c.outcome = Outcome::kRetry;
  c.backoff_us = micros_up(
      verdict.kind == HandlerVerdict::kRetryAfter
          ? verdict.delay
          : Jittered(BackoffFor(policy, started.task.attempt), policy.jitter));
  return c;
}

Completion UnknownKindCompletion(const Started& started,
                                 const std::string& node,
                                 absl::Duration delay) {
  Completion c;
  c.id = started.task.id;
  c.version = started.version;
  c.attempt = started.task.attempt;
  c.slot = started.slot;
  c.started_us = started.started_us;
  c.outcome = Outcome::kSnooze;
  c.backoff_us = absl::ToInt64Microseconds(delay);
  c.error = absl::StrCat(kNoHandlerErrorPrefix, "\"", started.task.kind,
                         "\" on node ", node, ": snoozed for ",
                         absl::FormatDuration(delay));
  return c;
}

Completion RefusedOutcome(const Completion& completion,
                          const absl::Status& status) {
  Completion c;
  c.id = completion.id;
  c.version = completion.version;
  c.attempt = completion.attempt;
  c.slot = completion.slot;
  c.started_us = completion.started_us;
  c.outcome = Outcome::kFailed;
  c.error = OutcomeErrorText(absl::StrCat(
      "the database refused this attempt's outcome: ", status.ToString()));
  return c;
}

}  // namespace durable_internal
}  // namespace timingwheel
