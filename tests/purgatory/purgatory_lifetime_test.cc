// Copyright 2026 The timingwheel Authors.
//
// The purgatory's lifetimes, re-entrancy and concurrent shutdowns that
// the other purgatory tests do not reach. Waits are bounded (RunWithin).

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "purgatory/testing/mock_purgatory.h"
#include "tests/purgatory/test_operations.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::CountingOperation;
using ::timingwheel::testing::MockPurgatory;
using ::timingwheel::testing::RunWithin;

using Purgatory = DelayedOperationPurgatory<std::string>;
using OpPtr = TaskPtr<CountingOperation>;

constexpr absl::Duration kDeadlock = absl::Seconds(20);

// A request that forgets its pending operation when it is answered: the
// caller's only reference is the one it handed in, by reference.
TEST(PurgatoryLifetimeTest, HandInThroughAReferenceItsCallbackResets) {
  MockPurgatory<std::string> purgatory;
  for (bool at_once : {true, false}) {
    Purgatory::OperationPtr pending =
        MakeTask<CountingOperation>(absl::Hours(1));
    auto* op = static_cast<CountingOperation*>(pending.get());
    op->ready = at_once;
    // Completes on the second try (after it is watched) when not at once.
    op->on_try = [op](int call) {
      if (call == 2) op->ready = true;
    };
    op->on_complete = [&pending] { pending = nullptr; };
    absl::StatusOr<WatchOutcome> outcome =
        purgatory->TryCompleteElseWatch(pending, {"k"});
    ASSERT_TRUE(outcome.ok());
    EXPECT_EQ(*outcome, WatchOutcome::kCompleted);
    EXPECT_EQ(pending, nullptr);
  }
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
  EXPECT_EQ(purgatory->Metrics().completed, 2);
}

// Shutdown() from an OnExpiration() running on the purgatory's own timer's
// executor thread (a real reaper): no deadlock, every operation expires once.
TEST(PurgatoryLifetimeTest, ShutdownFromAnExpirationOnItsOwnTimer) {
  auto purgatory = Purgatory::Create().value();
  std::vector<OpPtr> ops;
  std::atomic<bool> shut{false};
  for (int i = 0; i < 20; ++i) {
    // The others first: the last one expires after 1 ms.
    ops.push_back(MakeTask<CountingOperation>(i == 19 ? absl::Milliseconds(1)
                                                      : absl::Hours(1)));
    if (i == 19) {
      ops.back()->on_complete = [&] {
        purgatory->Shutdown();
        shut = true;
      };
    }
    // The last one may expire during the call on a slow machine.
    const WatchOutcome outcome =
        purgatory->TryCompleteElseWatch(ops.back(), {"k"}).value();
    ASSERT_TRUE(outcome == WatchOutcome::kWatching ||
                (i == 19 && outcome == WatchOutcome::kExpired));
  }
  RunWithin(kDeadlock, "expiry calling Shutdown()", [&] {
    while (!shut.load()) std::this_thread::yield();
  });
  RunWithin(kDeadlock, "~DelayedOperationPurgatory",
            [&] { purgatory.reset(); });
  for (const OpPtr& op : ops) {
    EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  }
}

// Two threads shut the purgatory down at once: when the second call returns,
// every operation has expired (Shutdown() "expires every operation still
// waiting"), not just the ones the first call reached so far.
TEST(PurgatoryLifetimeTest, ConcurrentShutdownReturnsOnlyOnceAllExpired) {
  MockPurgatory<std::string> purgatory;
  constexpr int kOps = 2000;
  std::vector<OpPtr> ops;
  for (int i = 0; i < kOps; ++i) {
    ops.push_back(MakeTask<CountingOperation>(absl::Hours(1)));
    ASSERT_EQ(
        purgatory->TryCompleteElseWatch(ops.back(), {"k" + std::to_string(i)})
            .value(),
        WatchOutcome::kWatching);
  }
  std::atomic<bool> first_started{false};
  for (const OpPtr& op : ops) {
    op->on_complete = [&] { first_started = true; };
  }
  int64_t still_waiting = -1;
  RunWithin(kDeadlock, "two Shutdown() calls", [&] {
    std::thread first([&] { purgatory->Shutdown(); });
    while (!first_started.load()) std::this_thread::yield();
    purgatory->Shutdown();
    still_waiting = 0;
    for (const OpPtr& op : ops) {
      if (op->state() == OperationState::kWaiting) ++still_waiting;
    }
    first.join();
  });
  EXPECT_EQ(still_waiting, 0);
  EXPECT_EQ(purgatory->Metrics().expired, kOps);
}

// MockPurgatory::AdvanceBy() runs, before it returns, the expirations of
// operations that expiration callbacks hand in and that are already due
// (every due expiration runs and finishes before the call returns), and
// counts them.
TEST(PurgatoryLifetimeTest, MockAdvanceRunsExpirationsHandedInByExpirations) {
  MockPurgatory<std::string> purgatory;
  OpPtr first = MakeTask<CountingOperation>(absl::Seconds(1));
  OpPtr second = MakeTask<CountingOperation>(absl::ZeroDuration());
  absl::StatusOr<WatchOutcome> second_outcome;
  first->on_complete = [&] {
    second_outcome = purgatory->TryCompleteElseWatch(second, {"k"});
  };
  ASSERT_EQ(purgatory->TryCompleteElseWatch(first, {"k"}).value(),
            WatchOutcome::kWatching);
  EXPECT_EQ(purgatory.AdvanceBy(absl::Seconds(1)), 2);
  ASSERT_TRUE(second_outcome.ok());
  EXPECT_EQ(*second_outcome, WatchOutcome::kWatching);
  EXPECT_EQ(first->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(second->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
}

// A refusal under max_pending: TryComplete() ran once (that is how the
// purgatory learnt it could not complete at once), nothing else did, and
// the purgatory keeps nothing of it.
TEST(PurgatoryLifetimeTest, RefusalRanOnlyTheFirstTry) {
  PurgatoryOptions options;
  options.timer.max_pending = 1;
  MockPurgatory<std::string> purgatory(options);
  OpPtr hog = MakeTask<CountingOperation>(absl::Hours(1));
  ASSERT_EQ(purgatory->TryCompleteElseWatch(hog, {"k"}).value(),
            WatchOutcome::kWatching);
  OpPtr refused = MakeTask<CountingOperation>(absl::Hours(1));
  EXPECT_EQ(purgatory->TryCompleteElseWatch(refused, {"k"}).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused->try_calls.load(), 1);
  EXPECT_EQ(refused->completions.load(), 0);
  EXPECT_EQ(refused->state(), OperationState::kWaiting);
  EXPECT_EQ(purgatory->NumDelayed(), 1);
  EXPECT_EQ(purgatory->Watched(), 1);
  // Not watched: a check of its key does not try it.
  refused->ready = true;
  EXPECT_EQ(purgatory->CheckAndComplete("k"), 0);
  EXPECT_EQ(refused->try_calls.load(), 1);
  // Outside any purgatory now, it can still be completed by its owner.
  EXPECT_TRUE(refused->ForceComplete());
  EXPECT_EQ(refused->completions.load(), 1);
  EXPECT_EQ(purgatory->Metrics().completed, 0);
}

// An operation whose delay passes during TryCompleteElseWatch() (here while
// its second try runs) is reported `kExpired`, and was expired on the
// timer's thread, not by a shutdown.
TEST(PurgatoryLifetimeTest, DelayPassingDuringTheHandInIsExpired) {
  MockPurgatory<std::string> purgatory;
  OpPtr op = MakeTask<CountingOperation>(absl::Seconds(1));
  op->on_try = [&](int call) {
    if (call != 2) return;
    RunWithin(kDeadlock, "AdvanceBy",
              [&] { EXPECT_EQ(purgatory.AdvanceBy(absl::Seconds(1)), 1); });
  };
  EXPECT_EQ(purgatory->TryCompleteElseWatch(op, {"k"}).value(),
            WatchOutcome::kExpired);
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(op->state_in_complete, OperationState::kExpired);
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
  EXPECT_EQ(purgatory.timer().NumPending(), 0);
}

}  // namespace
}  // namespace timingwheel
