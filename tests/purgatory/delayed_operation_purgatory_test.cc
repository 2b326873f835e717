// Copyright 2026 The timingwheel Authors.
//
// Deterministic tests of DelayedOperationPurgatory, on MockPurgatory: the
// clock moves only when a test advances it, and expirations run inside that
// call, so nothing here sleeps or waits for another thread.

#include "purgatory/delayed_operation_purgatory.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/testing/mock_purgatory.h"
#include "tests/purgatory/test_operations.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::CountingOperation;
using ::timingwheel::testing::MockPurgatory;

using Purgatory = DelayedOperationPurgatory<std::string>;
using OpPtr = TaskPtr<CountingOperation>;

class PurgatoryTest : public ::testing::Test {
 protected:
  PurgatoryTest() {
    PurgatoryOptions options;
    options.shards = 4;
    mock_ = std::make_unique<MockPurgatory<std::string>>(options);
    purgatory_ = &mock_->purgatory();
  }

  OpPtr NewOp(absl::Duration delay) {
    return MakeTask<CountingOperation>(delay);
  }

  std::unique_ptr<MockPurgatory<std::string>> mock_;
  Purgatory* purgatory_;
};

bool Waits(const absl::StatusOr<WatchOutcome>& result) {
  return result.ok() && *result == WatchOutcome::kWatching;
}

TEST_F(PurgatoryTest, CompletesAtOnceWithoutWatchingWhenPossible) {
  OpPtr op = NewOp(absl::Seconds(1));
  op->ready = true;
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(op, {"a"}).value(),
            WatchOutcome::kCompleted);
  EXPECT_EQ(op->completions.load(), 1);
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Metrics().completed, 1);
}

TEST_F(PurgatoryTest, CompletedThroughKeyIsCountedOnceAndKeyThenFindsNothing) {
  OpPtr op = NewOp(absl::Seconds(1));
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(op, {"a"}).value(),
            WatchOutcome::kWatching);
  EXPECT_EQ(purgatory_->Watched(), 1);
  EXPECT_EQ(purgatory_->NumDelayed(), 1);
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 0);  // Not ready yet.
  op->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 1);
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 0);
  EXPECT_EQ(op->completions.load(), 1);
  EXPECT_EQ(op->expirations.load(), 0);
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  PurgatoryMetrics metrics = purgatory_->Metrics();
  EXPECT_EQ(metrics.completed, 1);
  EXPECT_EQ(metrics.expired, 0);
  EXPECT_EQ(metrics.keys, 0);
  // Its timer was cancelled: nothing expires later.
  EXPECT_EQ(mock_->timer().NumPending(), 0);
  EXPECT_EQ(mock_->AdvanceBy(absl::Seconds(2)), 0);
  EXPECT_EQ(op->expirations.load(), 0);
}

TEST_F(PurgatoryTest, UnknownKeyCompletesNothing) {
  EXPECT_EQ(purgatory_->CheckAndComplete("nobody"), 0);
  EXPECT_TRUE(purgatory_->CancelForKey("nobody").empty());
}

TEST_F(PurgatoryTest, ExpiresAfterDeadlineNotBeforeCompleteThenExpire) {
  OpPtr op = NewOp(absl::Milliseconds(100));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op, {"a", "b"})));
  EXPECT_EQ(mock_->AdvanceBy(absl::Milliseconds(99)), 0);
  EXPECT_FALSE(op->IsCompleted());
  EXPECT_EQ(mock_->AdvanceBy(absl::Microseconds(999)), 0);
  EXPECT_FALSE(op->IsCompleted());
  EXPECT_EQ(mock_->AdvanceBy(absl::Microseconds(1)), 1);
  EXPECT_TRUE(op->IsExpired());
  EXPECT_TRUE(op->IsCompleted());
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  PurgatoryMetrics metrics = purgatory_->Metrics();
  EXPECT_EQ(metrics.expired, 1);
  EXPECT_EQ(metrics.completed, 1);
  EXPECT_EQ(metrics.purged, 2);  // Both watch entries left with it.
  // A later check of its keys finds nothing and does not complete it again.
  op->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 0);
  EXPECT_EQ(op->completions.load(), 1);
}

TEST_F(PurgatoryTest, CountsAsOperationsCompleteThroughDifferentKeys) {
  // op1 under {a}, op2 under {a, b}, op3 under {a, b, c}.
  OpPtr op1 = NewOp(absl::Seconds(10));
  OpPtr op2 = NewOp(absl::Seconds(10));
  OpPtr op3 = NewOp(absl::Seconds(10));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op1, {"a"})));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op2, {"a", "b"})));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op3, {"a", "b", "c"})));
  EXPECT_EQ(purgatory_->NumDelayed(), 3);
  EXPECT_EQ(purgatory_->Watched(), 6);
  EXPECT_EQ(purgatory_->Metrics().keys, 3);

  op3->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("c"), 1);
  EXPECT_EQ(purgatory_->NumDelayed(), 2);
  EXPECT_EQ(purgatory_->Watched(), 3);  // op3 left a, b and c.
  EXPECT_EQ(purgatory_->Metrics().keys, 2);

  op2->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("b"), 1);
  EXPECT_EQ(purgatory_->NumDelayed(), 1);
  EXPECT_EQ(purgatory_->Watched(), 1);
  EXPECT_EQ(purgatory_->Metrics().keys, 1);

  op1->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 1);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Watched(), 0);
  PurgatoryMetrics metrics = purgatory_->Metrics();
  EXPECT_EQ(metrics.keys, 0);
  EXPECT_EQ(metrics.completed, 3);
  EXPECT_EQ(metrics.purged, 6);
}

TEST_F(PurgatoryTest, WatchedStaysBoundedWhenOperationsCompleteThroughOneKey) {
  // Kafka keeps completed operations on the other keys' lists until a purge;
  // here they leave at once, whatever the number of keys.
  constexpr int kOps = 1000;
  constexpr int kKeysPerOp = 5;
  for (int i = 0; i < kOps; ++i) {
    OpPtr op = NewOp(absl::Seconds(30));
    std::vector<std::string> keys;
    keys.push_back("completer");
    for (int k = 1; k < kKeysPerOp; ++k) {
      keys.push_back("partition-" + std::to_string((i * 7 + k) % 50));
    }
    ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op, keys)));
    op->ready = true;
    EXPECT_EQ(purgatory_->CheckAndComplete("completer"), 1);
    EXPECT_EQ(purgatory_->Watched(), 0) << "after op " << i;
  }
  PurgatoryMetrics metrics = purgatory_->Metrics();
  EXPECT_EQ(metrics.keys, 0);
  EXPECT_EQ(metrics.completed, kOps);
  EXPECT_EQ(metrics.delayed, 0);
}

TEST_F(PurgatoryTest, CancelForKeyReturnsExactlyItsOperations) {
  OpPtr op1 = NewOp(absl::Seconds(10));
  OpPtr op2 = NewOp(absl::Seconds(10));
  OpPtr op3 = NewOp(absl::Seconds(10));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op1, {"a", "b"})));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op2, {"a", "c"})));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op3, {"c"})));
  std::vector<Purgatory::OperationPtr> cancelled =
      purgatory_->CancelForKey("a");
  ASSERT_EQ(cancelled.size(), 2u);
  EXPECT_TRUE((cancelled[0] == op1 && cancelled[1] == op2) ||
              (cancelled[0] == op2 && cancelled[1] == op1));
  // Removed from "b" and "c" as well, and from the timer.
  EXPECT_EQ(purgatory_->Watched(), 1);  // op3 under "c".
  EXPECT_EQ(purgatory_->NumDelayed(), 1);
  EXPECT_EQ(purgatory_->Metrics().keys, 1);
  EXPECT_FALSE(op1->IsCompleted());
  EXPECT_FALSE(op2->IsCompleted());
  op1->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("b"), 0);
  // Cancelled operations never expire.
  EXPECT_EQ(mock_->AdvanceBy(absl::Seconds(10)), 1);
  EXPECT_EQ(op1->completions.load() + op2->completions.load(), 0);
  EXPECT_EQ(op3->expirations.load(), 1);
}

TEST_F(PurgatoryTest, CancelForKeyDuringTryCompleteElseWatchWins) {
  // The operation's second TryComplete() (after it is watched, before its
  // timer starts) cancels it through its key, as another thread could.
  OpPtr op = NewOp(absl::Milliseconds(100));
  std::vector<Purgatory::OperationPtr> cancelled;
  op->on_try = [&](int call) {
    if (call == 2) cancelled = purgatory_->CancelForKey("k");
  };
  absl::StatusOr<WatchOutcome> result =
      purgatory_->TryCompleteElseWatch(op, {"k"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, WatchOutcome::kCancelled);
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_TRUE(op->IsCancelled());
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);  // Not left on the timer.
  EXPECT_EQ(mock_->AdvanceBy(absl::Seconds(1)), 0);
  EXPECT_EQ(op->completions.load() + op->expirations.load(), 0);
  // Cancelled is final: no completion, no second hand-in.
  op->ready = true;
  EXPECT_FALSE(op->ForceComplete());
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(op, {"k"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(op->completions.load(), 0);
}

TEST_F(PurgatoryTest, CancelledOperationOutlivesThePurgatory) {
  OpPtr op = NewOp(absl::Seconds(5));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op, {"a", "b"})));
  ASSERT_EQ(purgatory_->CancelForKey("b").size(), 1u);
  mock_.reset();  // Destroys the purgatory and its timer.
  // Answering the cancelled request must not touch the dead purgatory.
  EXPECT_FALSE(op->ForceComplete());
  EXPECT_TRUE(op->IsCancelled());
  EXPECT_EQ(op->completions.load(), 0);
}

TEST_F(PurgatoryTest, TryCompleteRunsUnderTheOperationsLock) {
  OpPtr op = NewOp(absl::Seconds(1));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op, {"a"})));
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 0);
  op->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 1);
  EXPECT_EQ(op->try_calls.load(), 4);  // Two in TryCompleteElseWatch.
  EXPECT_EQ(op->tries_without_lock.load(), 0);
}

TEST_F(PurgatoryTest, RejectsBadArguments) {
  OpPtr op = NewOp(absl::Seconds(1));
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(op, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(nullptr, {"a"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op, {"a"})));
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(op, {"b"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(purgatory_->Watched(), 1);
  PurgatoryOptions bad;
  bad.shards = 0;
  EXPECT_EQ(Purgatory::Create(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad.shards = 1;
  bad.timer.tick = absl::ZeroDuration();
  EXPECT_EQ(Purgatory::Create(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PurgatoryTest, ShutdownExpiresEveryPendingOperationExactlyOnce) {
  std::vector<OpPtr> ops;
  for (int i = 0; i < 20; ++i) {
    ops.push_back(NewOp(absl::Seconds(1 + i)));
    ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(
        ops.back(), {"k" + std::to_string(i % 3)})));
  }
  ops[0]->ready = true;
  ASSERT_EQ(purgatory_->CheckAndComplete("k0"), 1);
  purgatory_->Shutdown();
  // Off the shared timer: nothing left to expire.
  EXPECT_EQ(mock_->timer().NumPending(), 0);
  EXPECT_EQ(mock_->AdvanceBy(absl::Seconds(30)), 0);
  EXPECT_EQ(ops[0]->completions.load(), 1);
  EXPECT_EQ(ops[0]->expirations.load(), 0);
  for (int i = 1; i < 20; ++i) {
    EXPECT_EQ(ops[i]->events, (std::vector<std::string>{"complete", "expire"}))
        << i;
  }
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Watched(), 0);
  PurgatoryMetrics metrics = purgatory_->Metrics();
  EXPECT_EQ(metrics.expired, 19);
  EXPECT_EQ(metrics.completed, 20);
  OpPtr late = NewOp(absl::Seconds(1));
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(late, {"k0"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(late->IsCompleted());
  purgatory_->Shutdown();  // Idempotent.
  EXPECT_EQ(purgatory_->Metrics().expired, 19);
}

TEST_F(PurgatoryTest, DestructorExpiresPendingOperations) {
  OpPtr op = NewOp(absl::Seconds(5));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op, {"a"})));
  mock_.reset();
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
}

TEST_F(PurgatoryTest, CallbacksMayCallBackIntoThePurgatory) {
  // op1's completion makes op2 completable and checks op2's key from inside
  // OnComplete(); it also parks a new operation from there.
  OpPtr op1 = NewOp(absl::Seconds(10));
  OpPtr op2 = NewOp(absl::Seconds(10));
  OpPtr op3 = NewOp(absl::Seconds(10));
  int nested_completed = -1;
  op1->on_complete = [&] {
    op2->ready = true;
    nested_completed = purgatory_->CheckAndComplete("b");
    EXPECT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op3, {"a", "c"})));
  };
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op1, {"a"})));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op2, {"b"})));
  op1->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("a"), 1);
  EXPECT_EQ(nested_completed, 1);
  EXPECT_EQ(op2->completions.load(), 1);
  EXPECT_EQ(purgatory_->Watched(), 2);  // op3 under a and c.
  EXPECT_EQ(purgatory_->NumDelayed(), 1);
}

TEST_F(PurgatoryTest, ExpirationCallbackMayCallBackIntoThePurgatory) {
  OpPtr op1 = NewOp(absl::Milliseconds(10));
  OpPtr op2 = NewOp(absl::Seconds(10));
  op1->on_complete = [&] {
    op2->ready = true;
    EXPECT_EQ(purgatory_->CheckAndComplete("b"), 1);
  };
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op1, {"a"})));
  ASSERT_TRUE(Waits(purgatory_->TryCompleteElseWatch(op2, {"b"})));
  EXPECT_EQ(mock_->AdvanceBy(absl::Milliseconds(10)), 1);
  EXPECT_EQ(op1->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(op2->events, (std::vector<std::string>{"complete"}));
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Watched(), 0);
}

TEST(PurgatoryLimitsTest, OverMaxPendingLeavesTheOperationFreeToRetry) {
  PurgatoryOptions options;
  options.timer.max_pending = 1;
  MockPurgatory<std::string> purgatory(options);
  OpPtr first = MakeTask<CountingOperation>(absl::Hours(1));
  OpPtr second = MakeTask<CountingOperation>(absl::Hours(1));
  ASSERT_TRUE(Waits(purgatory->TryCompleteElseWatch(first, {"a"})));
  EXPECT_EQ(purgatory->TryCompleteElseWatch(second, {"a", "b"}).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(purgatory->Watched(), 1);  // Only `first`.
  EXPECT_EQ(purgatory->NumDelayed(), 1);
  EXPECT_FALSE(second->IsCompleted());
  first->ready = true;
  ASSERT_EQ(purgatory->CheckAndComplete("a"), 1);
  // Room again: the refused operation can be handed in.
  ASSERT_TRUE(Waits(purgatory->TryCompleteElseWatch(second, {"a", "b"})));
  EXPECT_EQ(purgatory->Watched(), 2);
  second->ready = true;
  EXPECT_EQ(purgatory->CheckAndComplete("b"), 1);
  EXPECT_EQ(second->completions.load(), 1);
  EXPECT_EQ(purgatory->Watched(), 0);
}

TEST(PurgatoryKeyTypesTest, IntegerKeys) {
  MockPurgatory<int64_t> purgatory;
  OpPtr op = MakeTask<CountingOperation>(absl::Hours(1));
  ASSERT_TRUE(Waits(purgatory->TryCompleteElseWatch(op, {1, 2, 3})));
  EXPECT_EQ(purgatory->Watched(), 3);
  op->ready = true;
  EXPECT_EQ(purgatory->CheckAndComplete(2), 1);
  EXPECT_EQ(purgatory->Watched(), 0);
  EXPECT_EQ(purgatory->NumDelayed(), 0);
}

}  // namespace
}  // namespace timingwheel
