// Copyright 2026 The timingwheel Authors.
//
// The purgatory at its boundaries with user code: re-entrant callbacks,
// lifetimes, results that must be true of what happened, callbacks after
// cancel or expiry, exceptions, and explicit outcomes. A deadlock fails a
// test through RunWithin() instead of hanging.

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "purgatory/testing/mock_purgatory.h"
#include "tests/purgatory/test_operations.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::CallbackError;
using ::timingwheel::testing::CountingOperation;
using ::timingwheel::testing::MockPurgatory;
using ::timingwheel::testing::RunWithin;

using Purgatory = DelayedOperationPurgatory<std::string>;
using OpPtr = TaskPtr<CountingOperation>;

constexpr absl::Duration kDeadlock = absl::Seconds(20);

// A purgatory on a mock timer: nothing expires unless the test advances
// the clock. Exceptions from callbacks are collected in `errors_`.
class PurgatorySafetyTest : public ::testing::Test {
 protected:
  PurgatorySafetyTest() { Recreate(nullptr); }

  // Replaces the purgatory; `hook` replaces the error hook that collects.
  void Recreate(std::function<void(std::exception_ptr)> hook) {
    mock_.reset();
    PurgatoryOptions options;
    options.shards = 4;
    options.on_callback_error =
        hook ? std::move(hook) : [this](std::exception_ptr error) {
          std::lock_guard<std::mutex> lock(errors_mu_);
          try {
            std::rethrow_exception(error);
          } catch (const std::exception& e) {
            errors_.push_back(e.what());
          }
        };
    mock_ = std::make_unique<MockPurgatory<std::string>>(std::move(options));
    purgatory_ = &mock_->purgatory();
  }

  std::vector<std::string> Errors() {
    std::lock_guard<std::mutex> lock(errors_mu_);
    return errors_;
  }

  OpPtr NewOp(absl::Duration delay = absl::Seconds(10)) {
    return MakeTask<CountingOperation>(delay);
  }

  WatchOutcome Watch(const OpPtr& op, std::initializer_list<std::string> keys) {
    absl::StatusOr<WatchOutcome> result =
        purgatory_->TryCompleteElseWatch(op, keys);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(WatchOutcome::kCancelled);
  }

  std::mutex errors_mu_;
  std::vector<std::string> errors_;
  std::unique_ptr<MockPurgatory<std::string>> mock_;
  Purgatory* purgatory_ = nullptr;
};

// --- 1. Re-entrancy --------------------------------------------------------

TEST_F(PurgatorySafetyTest, TryCompleteMayCheckItsOwnKey) {
  OpPtr op = NewOp();
  std::vector<int> nested;
  op->on_try = [&](int) {
    nested.push_back(purgatory_->CheckAndComplete("k"));
  };
  RunWithin(kDeadlock, "TryCompleteElseWatch",
            [&] { EXPECT_EQ(Watch(op, {"k"}), WatchOutcome::kWatching); });
  RunWithin(kDeadlock, "CheckAndComplete",
            [&] { EXPECT_EQ(purgatory_->CheckAndComplete("k"), 0); });
  // The re-entrant checks did not try the operation again (it was being
  // tried): one per try, each completing nothing.
  EXPECT_EQ(op->try_calls.load(), 3);
  EXPECT_EQ(nested, (std::vector<int>{0, 0, 0}));
  op->ready = true;
  RunWithin(kDeadlock, "CheckAndComplete",
            [&] { EXPECT_EQ(purgatory_->CheckAndComplete("k"), 1); });
  EXPECT_EQ(op->completions.load(), 1);
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
}

TEST_F(PurgatorySafetyTest, OperationsCheckingEachOthersKeysOnOneThread) {
  // a's TryComplete() checks b's key, whose TryComplete() checks a's key.
  OpPtr a = NewOp();
  OpPtr b = NewOp();
  a->on_try = [&](int) { purgatory_->CheckAndComplete("b"); };
  b->on_try = [&](int) { purgatory_->CheckAndComplete("a"); };
  RunWithin(kDeadlock, "TryCompleteElseWatch", [&] {
    EXPECT_EQ(Watch(a, {"a"}), WatchOutcome::kWatching);
    EXPECT_EQ(Watch(b, {"b"}), WatchOutcome::kWatching);
  });
  a->ready = true;
  b->ready = true;
  RunWithin(kDeadlock, "CheckAndComplete", [&] {
    // a completes; its try completed b first (through b's key).
    EXPECT_EQ(purgatory_->CheckAndComplete("a"), 1);
  });
  EXPECT_EQ(a->completions.load() + b->completions.load(), 2);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
}

TEST_F(PurgatorySafetyTest, OperationsCheckingEachOthersKeysOnTwoThreads) {
  // Both threads hold one operation's lock and check the other's key at the
  // same moment: neither may wait for the other.
  OpPtr a = NewOp();
  OpPtr b = NewOp();
  ASSERT_EQ(Watch(a, {"a"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(b, {"b"}), WatchOutcome::kWatching);
  std::atomic<int> inside{0};
  std::atomic<bool> armed{true};
  auto meet = [&] {
    if (!armed.load()) return;
    ++inside;
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (inside.load() < 2 && absl::Now() < deadline)
      std::this_thread::yield();
  };
  std::atomic<int> a_checked_b{-1};
  std::atomic<int> b_checked_a{-1};
  a->on_try = [&](int) {
    meet();
    a_checked_b = purgatory_->CheckAndComplete("b");
  };
  b->on_try = [&](int) {
    meet();
    b_checked_a = purgatory_->CheckAndComplete("a");
  };
  RunWithin(kDeadlock, "two CheckAndComplete() calls", [&] {
    std::thread other([&] { purgatory_->CheckAndComplete("b"); });
    purgatory_->CheckAndComplete("a");
    other.join();
  });
  armed = false;
  EXPECT_GE(inside.load(), 2);
  EXPECT_EQ(a_checked_b.load(), 0);
  EXPECT_EQ(b_checked_a.load(), 0);
  a->ready = true;
  b->ready = true;
  RunWithin(kDeadlock, "CheckAndComplete", [&] {
    EXPECT_EQ(purgatory_->CheckAndComplete("a") + b->completions.load(), 2);
  });
  EXPECT_EQ(a->completions.load(), 1);
  EXPECT_EQ(b->completions.load(), 1);
}

TEST_F(PurgatorySafetyTest, BusyOperationIsTriedAgainByItsHolder) {
  // While thread 1 runs op's TryComplete() (not ready), thread 2 makes it
  // ready and checks its key: thread 2 cannot take the lock and must not
  // wait; thread 1 tries again before it lets go, and completes it.
  OpPtr op = NewOp();
  ASSERT_EQ(Watch(op, {"k"}), WatchOutcome::kWatching);
  std::atomic<bool> checked{false};
  std::atomic<int> second_result{-1};
  op->on_try = [&](int call) {
    if (call == 3) {  // The first try of thread 1's check.
      std::thread second([&] {
        op->ready = true;
        second_result = purgatory_->CheckAndComplete("k");
        checked = true;
      });
      second.join();
      // `ready` is read after this hook: make this try see the old value,
      // as if thread 2 came just after the read.
      op->ready = false;
    } else if (call == 4) {
      op->ready = true;  // Thread 2's change, seen by the try again.
    }
  };
  int first_result = -1;
  RunWithin(kDeadlock, "CheckAndComplete",
            [&] { first_result = purgatory_->CheckAndComplete("k"); });
  EXPECT_TRUE(checked.load());
  EXPECT_EQ(second_result.load(), 0);  // It did not wait for the lock.
  EXPECT_EQ(first_result, 1);          // The holder tried again.
  EXPECT_EQ(op->try_calls.load(), 4);
  EXPECT_EQ(op->completions.load(), 1);
}

TEST(PurgatoryLifetimeDeathTest, DestroyedFromItsOwnCallbackDiesLoudly) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(
      {
        auto mock = std::make_unique<MockPurgatory<std::string>>();
        OpPtr op = MakeTask<CountingOperation>(absl::Seconds(1));
        op->on_complete = [&] { mock.reset(); };
        op->ready = true;
        mock->purgatory().TryCompleteElseWatch(op, {"k"}).IgnoreError();
      },
      "destroyed from a callback of one of its own operations");
}

TEST_F(PurgatorySafetyTest, CallbacksOnTwoThreadsMayBothShutDown) {
  // Two OnComplete()s, on two threads at once, each call Shutdown(): neither
  // may wait for the other's callback.
  OpPtr a = NewOp();
  OpPtr b = NewOp();
  ASSERT_EQ(Watch(a, {"a"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(b, {"b"}), WatchOutcome::kWatching);
  std::atomic<int> inside{0};
  auto meet_then_shut_down = [&] {
    ++inside;
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (inside.load() < 2 && absl::Now() < deadline) {
      std::this_thread::yield();
    }
    purgatory_->Shutdown();
  };
  a->on_complete = meet_then_shut_down;
  b->on_complete = meet_then_shut_down;
  a->ready = true;
  b->ready = true;
  RunWithin(kDeadlock, "two callbacks calling Shutdown()", [&] {
    std::thread other([&] { purgatory_->CheckAndComplete("b"); });
    purgatory_->CheckAndComplete("a");
    other.join();
  });
  EXPECT_EQ(inside.load(), 2);
  EXPECT_EQ(a->state(), OperationState::kCompleted);
  EXPECT_EQ(b->state(), OperationState::kCompleted);
}

// --- 2. Lifetimes ----------------------------------------------------------

// An operation that logs its completion and its destruction to a log that
// lives outside it.
std::vector<std::string>& LifeLog() {
  static std::vector<std::string> log;
  return log;
}

class LoggingOperation final : public DelayedOperation {
 public:
  LoggingOperation() : DelayedOperation(absl::Seconds(10)) {}
  ~LoggingOperation() override { LifeLog().push_back("destroyed"); }
  bool TryComplete() override { return false; }
  void OnComplete() override {
    payload_ = "answered";
    LifeLog().push_back("complete " + payload_);
  }
  void OnExpiration() override { LifeLog().push_back("expire"); }

 private:
  std::string payload_;
};

TEST_F(PurgatorySafetyTest, ForceCompleteThroughARawPointerKeepsItAlive) {
  LifeLog().clear();
  LoggingOperation* raw = nullptr;
  {
    TaskPtr<LoggingOperation> op = MakeTask<LoggingOperation>();
    raw = op.get();
    ASSERT_EQ(purgatory_->TryCompleteElseWatch(op, {"a", "b"}).value(),
              WatchOutcome::kWatching);
  }
  // Only the purgatory holds it now.
  EXPECT_TRUE(raw->ForceComplete());
  EXPECT_EQ(LifeLog(),
            (std::vector<std::string>{"complete answered", "destroyed"}));
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
}

// --- 3. Results true of what happened under max_pending --------------------

TEST(PurgatoryLimitsSafetyTest, RefusedOperationWasNeverCompleted) {
  // The timer has room for one operation, taken by `hog`. Each candidate
  // becomes completable right after TryCompleteElseWatch()'s tries, while a
  // checker hammers its key: a refused operation must never have completed.
  PurgatoryOptions options;
  options.timer.max_pending = 1;
  options.shards = 1;
  auto purgatory = Purgatory::Create(options).value();
  OpPtr hog = MakeTask<CountingOperation>(absl::Hours(1));
  ASSERT_EQ(purgatory->TryCompleteElseWatch(hog, {"hog"}).value(),
            WatchOutcome::kWatching);
  std::atomic<bool> stop{false};
  std::atomic<int> checked{0};
  std::thread checker([&] {
    while (!stop.load()) checked += purgatory->CheckAndComplete("k");
  });
  constexpr int kRounds = 10000;
  int refused = 0;
  std::vector<OpPtr> ops;
  for (int i = 0; i < kRounds; ++i) {
    OpPtr op = MakeTask<CountingOperation>(absl::Hours(1));
    // Ready from its third to sixth try on, whoever makes it: some in the
    // window where a checker may already see it.
    op->on_try = [raw = op.get(), from = 3 + i % 4](int call) {
      if (call >= from) raw->ready = true;
    };
    absl::StatusOr<WatchOutcome> result =
        purgatory->TryCompleteElseWatch(op, {"k"});
    if (!result.ok()) {
      ASSERT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
      ASSERT_EQ(op->completions.load(), 0) << "round " << i;
      ASSERT_EQ(op->state(), OperationState::kWaiting) << "round " << i;
      ++refused;
    } else {
      ASSERT_EQ(*result, WatchOutcome::kCompleted) << "round " << i;
      ASSERT_EQ(op->completions.load(), 1) << "round " << i;
    }
    ops.push_back(op);
  }
  stop = true;
  checker.join();
  EXPECT_GT(refused, 0);
  int completions = 0;
  for (const OpPtr& op : ops) completions += op->completions.load();
  // Refused operations stayed untouched after the call returned, too.
  EXPECT_EQ(completions, kRounds - refused);
  PurgatoryMetrics metrics = purgatory->Metrics();
  EXPECT_EQ(metrics.completed, completions);
  EXPECT_EQ(metrics.delayed, 1);  // The hog.
  EXPECT_EQ(metrics.watched, 1);
}

// --- 4. No try after cancel or expiry --------------------------------------

TEST_F(PurgatorySafetyTest, CancelledOperationIsNeverTriedAgain) {
  // a and b share key "k"; whichever is tried first cancels the other
  // through its private key, while CheckAndComplete("k") still holds both.
  OpPtr a = NewOp();
  OpPtr b = NewOp();
  ASSERT_EQ(Watch(a, {"k", "only-a"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(b, {"k", "only-b"}), WatchOutcome::kWatching);
  a->ready = true;
  b->ready = true;
  std::vector<Purgatory::OperationPtr> cancelled;
  a->on_try = [&](int) {
    if (cancelled.empty()) cancelled = purgatory_->CancelForKey("only-b");
  };
  b->on_try = [&](int) {
    if (cancelled.empty()) cancelled = purgatory_->CancelForKey("only-a");
  };
  EXPECT_EQ(purgatory_->CheckAndComplete("k"), 1);
  ASSERT_EQ(cancelled.size(), 1u);
  CountingOperation* victim = a->IsCancelled() ? a.get() : b.get();
  CountingOperation* survivor = a->IsCancelled() ? b.get() : a.get();
  EXPECT_TRUE(victim->IsCancelled());
  EXPECT_EQ(victim->tries_after_finish.load(), 0);
  EXPECT_EQ(victim->completions.load(), 0);
  EXPECT_EQ(survivor->completions.load(), 1);
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
}

TEST_F(PurgatorySafetyTest, ExpiredOperationIsNeverTriedAgain) {
  // Whichever of a and b is tried first shuts the purgatory down from its
  // TryComplete(), which expires both; the other must not be tried after.
  OpPtr a = NewOp();
  OpPtr b = NewOp();
  ASSERT_EQ(Watch(a, {"k"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(b, {"k"}), WatchOutcome::kWatching);
  bool shut = false;
  auto shut_down = [&](int) {
    if (shut) return;
    shut = true;
    purgatory_->Shutdown();
  };
  a->on_try = shut_down;
  b->on_try = shut_down;
  RunWithin(kDeadlock, "CheckAndComplete",
            [&] { EXPECT_EQ(purgatory_->CheckAndComplete("k"), 0); });
  for (const OpPtr& op : {a, b}) {
    EXPECT_TRUE(op->IsExpired());
    EXPECT_EQ(op->tries_after_finish.load(), 0);
    EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  }
  EXPECT_EQ(purgatory_->Metrics().expired, 2);
}

// --- 5. Exceptions -----------------------------------------------------------

TEST_F(PurgatorySafetyTest, ThrowingOnExpirationDuringShutdownExpiresAll) {
  std::vector<OpPtr> ops;
  for (int i = 0; i < 5; ++i) {
    ops.push_back(NewOp());
    ops.back()->throw_in_expire = true;
    ops.back()->throw_in_complete = i % 2 == 0;
    ASSERT_EQ(Watch(ops.back(), {"k" + std::to_string(i % 2)}),
              WatchOutcome::kWatching);
  }
  purgatory_->Shutdown();  // Must not throw.
  for (const OpPtr& op : ops) {
    EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  }
  EXPECT_EQ(Errors().size(), 8u);  // 5 OnExpiration + 3 OnComplete.
  PurgatoryMetrics metrics = purgatory_->Metrics();
  EXPECT_EQ(metrics.expired, 5);
  EXPECT_EQ(metrics.callback_errors, 8);
  EXPECT_EQ(metrics.delayed, 0);
  EXPECT_EQ(metrics.watched, 0);
}

TEST(PurgatoryExceptionTest, DestructorWithThrowingCallbacksDoesNotTerminate) {
  // No error hook: the default reports on stderr and goes on.
  auto purgatory = Purgatory::Create().value();
  std::vector<OpPtr> ops;
  for (int i = 0; i < 3; ++i) {
    ops.push_back(MakeTask<CountingOperation>(absl::Hours(1)));
    ops.back()->throw_in_complete = true;
    ops.back()->throw_in_expire = true;
    ASSERT_EQ(purgatory->TryCompleteElseWatch(ops.back(), {"k"}).value(),
              WatchOutcome::kWatching);
  }
  purgatory.reset();
  for (const OpPtr& op : ops) {
    EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  }
}

TEST_F(PurgatorySafetyTest, ThrowingTryCompleteLeavesItWaitingAndOthersTried) {
  OpPtr thrower = NewOp();
  OpPtr first = NewOp();
  OpPtr last = NewOp();
  ASSERT_EQ(Watch(first, {"k"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(thrower, {"k", "t"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(last, {"k"}), WatchOutcome::kWatching);
  thrower->throw_in_try = true;
  thrower->ready = true;
  first->ready = true;
  last->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("k"), 2);  // Does not throw.
  EXPECT_EQ(Errors(), (std::vector<std::string>{"TryComplete"}));
  EXPECT_EQ(first->completions.load(), 1);
  EXPECT_EQ(last->completions.load(), 1);
  // Still held, watched and timed: it ends later, exactly once.
  EXPECT_EQ(thrower->state(), OperationState::kWaiting);
  EXPECT_EQ(purgatory_->NumDelayed(), 1);
  EXPECT_EQ(purgatory_->Watched(), 2);
  EXPECT_EQ(purgatory_->Metrics().keys, 2);
  thrower->throw_in_try = false;
  EXPECT_EQ(purgatory_->CheckAndComplete("t"), 1);
  EXPECT_EQ(thrower->completions.load(), 1);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
}

TEST_F(PurgatorySafetyTest, ThrowingTryCompleteWhenHandedInStillWatchesIt) {
  OpPtr op = NewOp(absl::Milliseconds(10));
  op->throw_in_try = true;
  EXPECT_EQ(Watch(op, {"k"}), WatchOutcome::kWatching);  // Does not throw.
  EXPECT_EQ(Errors().size(), 2u);                        // Both tries threw.
  EXPECT_EQ(purgatory_->NumDelayed(), 1);
  EXPECT_EQ(purgatory_->Watched(), 1);
  // And on the timer: it expires when its delay passes.
  EXPECT_EQ(mock_->AdvanceBy(absl::Milliseconds(9)), 0);
  EXPECT_EQ(mock_->AdvanceBy(absl::Milliseconds(1)), 1);
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Watched(), 0);
}

TEST_F(PurgatorySafetyTest, ThrowingOnCompleteStillCompletesAndGoesOn) {
  OpPtr thrower = NewOp();
  OpPtr other = NewOp();
  ASSERT_EQ(Watch(thrower, {"k", "t"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(other, {"k"}), WatchOutcome::kWatching);
  thrower->throw_in_complete = true;
  thrower->ready = true;
  other->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("k"), 2);
  EXPECT_EQ(Errors(), (std::vector<std::string>{"OnComplete"}));
  EXPECT_EQ(thrower->state(), OperationState::kCompleted);
  EXPECT_EQ(thrower->completions.load(), 1);
  EXPECT_EQ(other->completions.load(), 1);
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Metrics().completed, 2);
}

TEST_F(PurgatorySafetyTest, ThrowingHookIsSwallowed) {
  Recreate([](std::exception_ptr) { throw std::runtime_error("hook"); });
  OpPtr op = NewOp();
  op->throw_in_complete = true;
  op->ready = true;
  EXPECT_EQ(Watch(op, {"k"}), WatchOutcome::kCompleted);
  EXPECT_EQ(purgatory_->Metrics().callback_errors, 1);
}

// --- 6. Explicit outcomes --------------------------------------------------

TEST_F(PurgatorySafetyTest, OnCompleteKnowsWhetherItCompletedOrExpired) {
  OpPtr completed = NewOp();
  OpPtr expired = NewOp();
  ASSERT_EQ(Watch(completed, {"k"}), WatchOutcome::kWatching);
  ASSERT_EQ(Watch(expired, {"e"}), WatchOutcome::kWatching);
  completed->ready = true;
  ASSERT_EQ(purgatory_->CheckAndComplete("k"), 1);
  purgatory_->Shutdown();
  EXPECT_EQ(completed->state_in_complete, OperationState::kCompleted);
  EXPECT_FALSE(completed->IsExpired());
  EXPECT_EQ(expired->state_in_complete, OperationState::kExpired);
  EXPECT_TRUE(expired->IsExpired());
  EXPECT_TRUE(expired->IsCompleted());
}

TEST_F(PurgatorySafetyTest, TryCompleteReturningTrueIsCompletedForIt) {
  OpPtr at_once = NewOp();
  at_once->ready = true;
  at_once->return_true_only = true;
  EXPECT_EQ(Watch(at_once, {"k"}), WatchOutcome::kCompleted);
  EXPECT_EQ(at_once->completions.load(), 1);

  OpPtr later = NewOp();
  later->return_true_only = true;
  ASSERT_EQ(Watch(later, {"k", "j"}), WatchOutcome::kWatching);
  later->ready = true;
  EXPECT_EQ(purgatory_->CheckAndComplete("k"), 1);
  EXPECT_EQ(later->completions.load(), 1);
  EXPECT_EQ(later->state(), OperationState::kCompleted);
  // Off the watch lists and the timer.
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Metrics().completed, 2);
}

TEST_F(PurgatorySafetyTest, ErrorsMeanNothingHappened) {
  OpPtr done = NewOp();
  done->ready = true;
  ASSERT_EQ(Watch(done, {"k"}), WatchOutcome::kCompleted);
  // A finished operation: refused, no callback runs again.
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(done, {"k"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(done->try_calls.load(), 1);
  purgatory_->Shutdown();
  OpPtr late = NewOp();
  late->ready = true;
  EXPECT_EQ(purgatory_->TryCompleteElseWatch(late, {"k"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(late->try_calls.load(), 0);
  EXPECT_EQ(late->state(), OperationState::kWaiting);
}

// --- Shutdown racing TryCompleteElseWatch() --------------------------------

TEST_F(PurgatorySafetyTest, HandInRacingShutdownIsExpiredNotDropped) {
  // The purgatory shuts down (on another thread) during the operation's
  // first try, before it reaches the timer and the watch lists.
  OpPtr op = NewOp();
  op->on_try = [&](int call) {
    if (call != 1) return;
    RunWithin(kDeadlock, "Shutdown", [&] { purgatory_->Shutdown(); });
  };
  WatchOutcome outcome = WatchOutcome::kWatching;
  RunWithin(kDeadlock, "TryCompleteElseWatch",
            [&] { outcome = Watch(op, {"k"}); });
  EXPECT_EQ(outcome, WatchOutcome::kExpired);
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(op->state_in_complete, OperationState::kExpired);
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
  EXPECT_EQ(purgatory_->Metrics().expired, 1);
}

TEST_F(PurgatorySafetyTest, HandInRacingShutdownAfterTheTimerIsExpired) {
  // The purgatory shuts down during the second try: the operation is on the
  // timer and watched; the shutdown expires it, once.
  OpPtr op = NewOp();
  op->on_try = [&](int call) {
    if (call != 2) return;
    RunWithin(kDeadlock, "Shutdown", [&] { purgatory_->Shutdown(); });
  };
  WatchOutcome outcome = WatchOutcome::kWatching;
  RunWithin(kDeadlock, "TryCompleteElseWatch",
            [&] { outcome = Watch(op, {"k"}); });
  EXPECT_EQ(outcome, WatchOutcome::kExpired);
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(purgatory_->Watched(), 0);
  EXPECT_EQ(purgatory_->NumDelayed(), 0);
}

}  // namespace
}  // namespace timingwheel
