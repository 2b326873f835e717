// Copyright 2026 The timingwheel Authors.
//
// The non-SQL pieces of a fired batch: outcomes under the retry policy,
// handler exceptions, and the database-to-process time conversion.

#include "durable/engine/fire_batch.h"

#include <stdexcept>

#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

Started Attempt(int attempt) {
  Started s;
  s.task.id = "id";
  s.task.attempt = attempt;
  s.version = 7;
  return s;
}

TEST(FireBatchTest, BackoffGrowsAndIsCapped) {
  RetryPolicy policy;
  policy.initial_backoff = absl::Milliseconds(100);
  policy.multiplier = 3;
  policy.max_backoff = absl::Seconds(1);
  EXPECT_EQ(BackoffFor(policy, 1), absl::Milliseconds(100));
  EXPECT_EQ(BackoffFor(policy, 2), absl::Milliseconds(300));
  EXPECT_EQ(BackoffFor(policy, 3), absl::Milliseconds(900));
  EXPECT_EQ(BackoffFor(policy, 4), absl::Seconds(1));
  EXPECT_EQ(BackoffFor(policy, 60), absl::Seconds(1));
}

TEST(FireBatchTest, OutcomeFollowsTheAttemptAndPolicy) {
  RetryPolicy policy;
  policy.max_attempts = 2;
  policy.initial_backoff = absl::Milliseconds(250);
  Completion ok = MakeCompletion(Attempt(1), absl::OkStatus(), policy);
  EXPECT_EQ(ok.outcome, Outcome::kSuccess);
  EXPECT_EQ(ok.version, 7);
  Completion retry =
      MakeCompletion(Attempt(1), absl::InternalError("nope"), policy);
  EXPECT_EQ(retry.outcome, Outcome::kRetry);
  EXPECT_EQ(retry.backoff_us, 250000);
  EXPECT_NE(retry.error.find("nope"), std::string::npos);
  Completion last =
      MakeCompletion(Attempt(2), absl::InternalError("nope"), policy);
  EXPECT_EQ(last.outcome, Outcome::kFailed);
}

TEST(FireBatchTest, ThrowingHandlerIsAFailedAttempt) {
  DurableTask task;
  absl::Status status = RunHandler(
      [](const DurableTask&) -> absl::Status {
        throw std::runtime_error("kaput");
      },
      task);
  EXPECT_TRUE(absl::IsInternal(status));
  EXPECT_NE(status.message().find("kaput"), absl::string_view::npos);
  status =
      RunHandler([](const DurableTask&) -> absl::Status { throw 42; }, task);
  EXPECT_TRUE(absl::IsInternal(status));
}

TEST(FireBatchTest, DueTimesConvertWithoutFiringEarly) {
  // The database said now = 1000 us; the statement returned at local 5e6 ns.
  // A task due at 3000 us is 2 ms later on the database's clock.
  EXPECT_EQ(LocalDueNanos(3000, 1000, 5'000'000), 7'000'000);
  // Overdue tasks map to the past (the wheel runs them at once).
  EXPECT_EQ(LocalDueNanos(500, 1000, 5'000'000), 4'500'000);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
