// Copyright 2026 The timingwheel Authors.
//
// Purgatories on a timer the caller owns (PurgatoryOptions::shared_timer):
// several purgatories and other users on one timer, and both shutdown
// orders. Deterministic: a MockTimer, or a ManualClock driving a real
// reaper.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "tests/purgatory/test_operations.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::CountingOperation;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::MockTimer;
using ::timingwheel::testing::RunWithin;

using Purgatory = DelayedOperationPurgatory<std::string>;
using OpPtr = TaskPtr<CountingOperation>;

std::unique_ptr<Purgatory> OnTimer(Timer& timer) {
  PurgatoryOptions options;
  options.shards = 2;
  options.shared_timer = &timer;
  return Purgatory::Create(options).value();
}

OpPtr Watched(Purgatory& purgatory, absl::Duration delay,
              std::initializer_list<std::string> keys) {
  OpPtr op = MakeTask<CountingOperation>(delay);
  EXPECT_EQ(purgatory.TryCompleteElseWatch(op, keys).value(),
            WatchOutcome::kWatching);
  return op;
}

TEST(SharedTimerTest, TwoPurgatoriesAndAPlainTaskShareOneTimer) {
  MockTimer mock;
  auto produce = OnTimer(mock.timer());
  auto fetch = OnTimer(mock.timer());
  bool plain_ran = false;
  mock.timer().Schedule(absl::Seconds(2), [&] { plain_ran = true; }).value();
  OpPtr p = Watched(*produce, absl::Seconds(1), {"topic-0"});
  OpPtr f = Watched(*fetch, absl::Seconds(3), {"topic-0"});
  EXPECT_EQ(mock.timer().NumPending(), 3);
  EXPECT_EQ(produce->NumDelayed(), 1);
  EXPECT_EQ(fetch->NumDelayed(), 1);

  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_TRUE(p->IsExpired());
  EXPECT_FALSE(f->IsCompleted());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_TRUE(plain_ran);
  f->ready = true;
  // Same key, other purgatory: independent.
  EXPECT_EQ(produce->CheckAndComplete("topic-0"), 0);
  EXPECT_EQ(fetch->CheckAndComplete("topic-0"), 1);
  EXPECT_EQ(mock.timer().NumPending(), 0);  // f's entry was cancelled.
  EXPECT_EQ(produce->Metrics().expired, 1);
  EXPECT_EQ(fetch->Metrics().completed, 1);
  EXPECT_EQ(fetch->Metrics().expired, 0);
}

TEST(SharedTimerTest, PurgatoryGoesFirstAndLeavesTheTimerRunning) {
  MockTimer mock;
  auto gone = OnTimer(mock.timer());
  auto stays = OnTimer(mock.timer());
  OpPtr a = Watched(*gone, absl::Seconds(5), {"k"});
  OpPtr b = Watched(*gone, absl::Seconds(6), {"k"});
  OpPtr c = Watched(*stays, absl::Seconds(5), {"k"});
  bool plain_ran = false;
  mock.timer().Schedule(absl::Seconds(5), [&] { plain_ran = true; }).value();
  gone.reset();  // Expires a and b here, takes them off the timer.
  for (const OpPtr& op : {a, b}) {
    EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  }
  EXPECT_EQ(mock.timer().NumPending(), 2);  // c and the plain task.
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5)), 2u);
  EXPECT_TRUE(plain_ran);
  EXPECT_TRUE(c->IsExpired());
  EXPECT_EQ(a->expirations.load() + b->expirations.load(), 2);  // Not again.
  OpPtr d = Watched(*stays, absl::Seconds(1), {"k"});
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_TRUE(d->IsExpired());
}

TEST(SharedTimerTest, TimerGoesFirst) {
  MockTimer mock;
  auto purgatory = OnTimer(mock.timer());
  OpPtr run_by_caller = Watched(*purgatory, absl::Seconds(5), {"a"});
  OpPtr completes = Watched(*purgatory, absl::Seconds(5), {"b"});
  OpPtr left = Watched(*purgatory, absl::Seconds(5), {"c"});
  std::vector<TaskPtr<TimerTask>> cancelled = mock.timer().Shutdown();
  ASSERT_EQ(cancelled.size(), 3u);
  // Running a returned task expires its operation.
  for (TaskPtr<TimerTask>& task : cancelled) {
    if (task.get() == run_by_caller.get()) task->Run();
  }
  cancelled.clear();
  EXPECT_TRUE(run_by_caller->IsExpired());
  // The others are still watched: they complete through their keys.
  completes->ready = true;
  EXPECT_EQ(purgatory->CheckAndComplete("b"), 1);
  EXPECT_EQ(purgatory->Watched(), 1);
  // A hand-in finds no timer: it expires at once.
  OpPtr late = MakeTask<CountingOperation>(absl::Seconds(5));
  EXPECT_EQ(purgatory->TryCompleteElseWatch(late, {"d"}).value(),
            WatchOutcome::kExpired);
  EXPECT_EQ(late->events, (std::vector<std::string>{"complete", "expire"}));
  // The purgatory's shutdown expires what is left.
  purgatory->Shutdown();
  EXPECT_EQ(left->events, (std::vector<std::string>{"complete", "expire"}));
  PurgatoryMetrics metrics = purgatory->Metrics();
  EXPECT_EQ(metrics.completed, 4);
  EXPECT_EQ(metrics.expired, 3);
  EXPECT_EQ(metrics.delayed, 0);
  EXPECT_EQ(metrics.watched, 0);
}

TEST(SharedTimerTest, HandInRacingShutdownIsExpiredAndOffTheTimer) {
  // The purgatory shuts down during the first try; the shared timer keeps
  // running, so the hand-in still gets on it and on the watch lists, after
  // Shutdown() swept them: the call itself must expire it.
  MockTimer mock;
  auto purgatory = OnTimer(mock.timer());
  OpPtr op = MakeTask<CountingOperation>(absl::Seconds(1));
  op->on_try = [&](int call) {
    if (call == 1) {
      RunWithin(absl::Seconds(20), "Shutdown", [&] { purgatory->Shutdown(); });
    }
  };
  EXPECT_EQ(purgatory->TryCompleteElseWatch(op, {"k"}).value(),
            WatchOutcome::kExpired);
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  EXPECT_EQ(mock.timer().NumPending(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
  EXPECT_EQ(purgatory->NumDelayed(), 0);
}

TEST(SharedTimerTest, DestructionWaitsForAnExpirationOnTheTimersThread) {
  // A real reaper and executor thread, driven by a manual clock: an
  // expiration is running on the executor when the purgatory is destroyed.
  ManualClock clock;
  TimerOptions timer_options;
  timer_options.clock = &clock;
  auto timer = Timer::Create(timer_options).value();
  auto purgatory = OnTimer(*timer);
  OpPtr op = Watched(*purgatory, absl::Seconds(1), {"k"});

  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  bool release = false;
  std::atomic<bool> finished{false};
  op->on_complete = [&] {
    std::unique_lock<std::mutex> lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(20), [&] { return release; });
    finished = true;
  };
  ASSERT_TRUE(clock.AwaitSleeperAt(absl::Seconds(1)));
  clock.AdvanceBy(absl::Seconds(1));
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(
        cv.wait_for(lock, std::chrono::seconds(20), [&] { return entered; }));
  }
  std::thread releaser([&] {
    // Lets the callback finish a little after the destruction started.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard<std::mutex> lock(mu);
    release = true;
    cv.notify_all();
  });
  RunWithin(absl::Seconds(20), "~DelayedOperationPurgatory",
            [&] { purgatory.reset(); });
  EXPECT_TRUE(finished.load());  // It waited for the callback.
  releaser.join();
  EXPECT_EQ(op->events, (std::vector<std::string>{"complete", "expire"}));
  timer.reset();
}

}  // namespace
}  // namespace timingwheel
