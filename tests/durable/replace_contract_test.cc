// Copyright 2026 The timingwheel Authors.
//
// What a replacement does to the rest of a task, on both stores: a payload
// starts a task waiting for a retry afresh (attempt count 0, no last
// error), a reschedule without one keeps them; ScheduleOrReplace() takes
// the request's kind and priority with its payload, and a kept task keeps
// its own.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

class ReplaceContractTest : public TwoStoreFixture {
 protected:
  // Two attempts at most; a failed first attempt waits an hour for its
  // retry, so a test decides when the task runs again.
  DurableOptions FailingOptions() {
    recorder_.SetResult([](const DurableTask& task) {
      return absl::InternalError("bad " + task.payload);
    });
    DurableOptions options = Options("a");
    options.retry.max_attempts = 2;
    options.retry.initial_backoff = absl::Hours(1);
    options.retry.max_backoff = absl::Hours(2);
    options.retry.jitter = 0;
    return options;
  }

  // Waits until `id`'s attempt `attempt` failed with a message naming
  // `payload` and the task is in `state`.
  static bool FailedAttempt(DurableScheduler& scheduler, const std::string& id,
                            int attempt, const std::string& payload,
                            TaskState state) {
    return WaitFor(
        [&] {
          absl::StatusOr<TaskInfo> info = scheduler.Get(id);
          return info.ok() && info->attempt == attempt &&
                 info->state == state &&
                 absl::StrContains(info->last_error, "bad " + payload);
        },
        absl::Seconds(20));
  }

  static ScheduleRequest In(absl::Duration delay, const std::string& payload,
                            const std::string& kind = "", int priority = 0) {
    ScheduleRequest request;
    request.id = "t";
    request.delay = delay;
    request.payload = payload;
    request.kind = kind;
    request.priority = priority;
    return request;
  }
};

TEST_P(ReplaceContractTest, ACorrectedPayloadGetsTheWholeRetryBudget) {
  auto scheduler = Start(FailingOptions());
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "old").ok());
  ASSERT_TRUE(FailedAttempt(*scheduler, "t", 1, "old", TaskState::kPending));
  auto outcome = scheduler->ScheduleOrReplace(In(absl::Hours(1), "new"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  absl::StatusOr<TaskInfo> info = scheduler->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->attempt, 0);
  EXPECT_EQ(info->last_error, "");
  // Due now: it runs as a first attempt, and its failure leaves a retry.
  auto moved = scheduler->RescheduleAfter("t", absl::ZeroDuration());
  ASSERT_TRUE(moved.ok()) << moved.status();
  ASSERT_TRUE(FailedAttempt(*scheduler, "t", 1, "new", TaskState::kPending))
      << "the corrected payload did not get the whole retry budget";
  auto calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].task.payload, "new");
  EXPECT_EQ(calls[1].task.attempt, 1);
}

TEST_P(ReplaceContractTest, ARescheduleWithoutPayloadKeepsTheAttempts) {
  auto scheduler = Start(FailingOptions());
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "old").ok());
  ASSERT_TRUE(FailedAttempt(*scheduler, "t", 1, "old", TaskState::kPending));
  auto moved = scheduler->RescheduleAfter("t", absl::ZeroDuration());
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(*moved, ScheduleOutcome::kReplaced);
  ASSERT_TRUE(FailedAttempt(*scheduler, "t", 2, "old", TaskState::kFailed));
  auto calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].task.attempt, 2);
}

TEST_P(ReplaceContractTest, AReplacementTakesKindAndPriorityToo) {
  DurableOptions options = Options("a");
  options.kinds.push_back(TaskKind{"k", recorder_.Handler(), 0});
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule(In(absl::Hours(1), "a")).ok());
  auto replaced = scheduler->ScheduleOrReplace(In(absl::Hours(2), "b", "k", 7));
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(*replaced, ScheduleOutcome::kReplaced);
  absl::StatusOr<TaskInfo> info = scheduler->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, "k");
  EXPECT_EQ(info->priority, 7);
  // A request the rule keeps out changes nothing.
  auto kept = scheduler->ScheduleOrReplace(In(absl::Hours(3), "c", "", -5),
                                           ReplaceMode::kKeepEarlier);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, ScheduleOutcome::kKept);
  // A reschedule keeps them too, with or without a payload.
  ASSERT_TRUE(scheduler->RescheduleAfter("t", absl::Hours(4)).ok());
  ASSERT_TRUE(
      scheduler->RescheduleAfter("t", absl::Hours(5), std::string("d")).ok());
  info = scheduler->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, "k");
  EXPECT_EQ(info->priority, 7);
}

TW_TWO_STORE_SUITE(ReplaceContractTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
