// Copyright 2026 The timingwheel Authors.
//
// Concurrency test of DelayedOperationPurgatory with the real clock (run it
// under --config=tsan): operations become completable at random moments
// while one thread parks them and eight threads call CheckAndComplete().
// Asserts counts, never durations.

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "tests/purgatory/test_operations.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::CountingOperation;

constexpr int kOps = 100;
constexpr int kCheckers = 8;
constexpr int kSharedKeys = 4;
constexpr int kRounds = 20;

std::string OwnKey(int i) { return "op-" + std::to_string(i); }
std::string SharedKey(int i) { return "shared-" + std::to_string(i); }

TEST(PurgatoryConcurrencyTest, EveryOperationCompletesExactlyOnce) {
  for (int round = 0; round < kRounds; ++round) {
    PurgatoryOptions options;
    options.shards = 8;
    auto purgatory =
        DelayedOperationPurgatory<std::string>::Create(options).value();
    std::vector<TaskPtr<CountingOperation>> ops;
    for (int i = 0; i < kOps; ++i) {
      // Long delays: nothing expires during the test.
      ops.push_back(MakeTask<CountingOperation>(absl::Hours(1)));
    }

    // Completions counted by CheckAndComplete() (each op at most once), and
    // operations TryCompleteElseWatch() reported complete (by anyone).
    std::atomic<int> completed_by_calls{0};
    std::atomic<int> reported_by_parker{0};
    std::atomic<bool> stop{false};

    // Parks every operation under its own key and a shared one.
    std::thread parker([&] {
      for (int i = 0; i < kOps; ++i) {
        absl::StatusOr<WatchOutcome> done = purgatory->TryCompleteElseWatch(
            ops[i], {OwnKey(i), SharedKey(i % kSharedKeys)});
        ASSERT_TRUE(done.ok()) << done.status();
        if (*done == WatchOutcome::kCompleted) reported_by_parker.fetch_add(1);
      }
    });

    // Makes operations completable in random order, each followed by one
    // check of its own key (as a server does after a state change). No
    // completion may be missed, whether the operation is watched yet or not.
    std::thread setter([&, round] {
      std::vector<int> order(kOps);
      for (int i = 0; i < kOps; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937(round));
      for (int i : order) {
        ops[i]->ready = true;
        completed_by_calls.fetch_add(purgatory->CheckAndComplete(OwnKey(i)));
      }
    });

    // Noise: seven more threads checking shared and own keys at random.
    std::vector<std::thread> checkers;
    for (int c = 0; c < kCheckers - 1; ++c) {
      checkers.emplace_back([&, c] {
        std::mt19937 random(round * 100 + c);
        while (!stop.load()) {
          const int i = static_cast<int>(random() % kOps);
          const std::string key =
              random() % 2 == 0 ? OwnKey(i) : SharedKey(i % kSharedKeys);
          completed_by_calls.fetch_add(purgatory->CheckAndComplete(key));
        }
      });
    }

    parker.join();
    setter.join();
    stop.store(true);
    for (std::thread& checker : checkers) checker.join();

    for (int i = 0; i < kOps; ++i) {
      EXPECT_TRUE(ops[i]->IsCompleted()) << "round " << round << " op " << i;
      EXPECT_EQ(ops[i]->completions.load(), 1) << "op " << i;
      EXPECT_EQ(ops[i]->expirations.load(), 0) << "op " << i;
      EXPECT_EQ(ops[i]->tries_without_lock.load(), 0) << "op " << i;
    }
    EXPECT_LE(completed_by_calls.load(), kOps);
    EXPECT_GE(completed_by_calls.load() + reported_by_parker.load(), kOps);
    EXPECT_EQ(purgatory->Watched(), 0);
    EXPECT_EQ(purgatory->NumDelayed(), 0);
    PurgatoryMetrics metrics = purgatory->Metrics();
    EXPECT_EQ(metrics.completed, kOps);
    EXPECT_EQ(metrics.keys, 0);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(PurgatoryConcurrencyTest, ExpirationsRaceWithCompletions) {
  // Short real delays: some operations expire while checkers complete
  // others; each ends exactly one way.
  PurgatoryOptions options;
  options.shards = 4;
  auto purgatory = DelayedOperationPurgatory<int>::Create(options).value();
  constexpr int kRacingOps = 2000;
  std::vector<TaskPtr<CountingOperation>> ops;
  for (int i = 0; i < kRacingOps; ++i) {
    ops.push_back(
        MakeTask<CountingOperation>(absl::Microseconds(50 * (i % 40))));
    ops.back()->ready = i % 2 == 0;
  }
  std::thread parker([&] {
    for (int i = 0; i < kRacingOps; ++i) {
      absl::StatusOr<WatchOutcome> outcome =
          purgatory->TryCompleteElseWatch(ops[i], {i % 16});
      // Completed before the hand-in began: refused, in no purgatory.
      ASSERT_TRUE(outcome.ok() || absl::IsFailedPrecondition(outcome.status()))
          << outcome.status();
    }
  });
  std::atomic<bool> stop{false};
  std::vector<std::thread> checkers;
  for (int c = 0; c < 4; ++c) {
    checkers.emplace_back([&, c] {
      int key = c;
      while (!stop.load()) purgatory->CheckAndComplete(key++ % 16);
    });
  }
  parker.join();
  stop.store(true);
  for (std::thread& checker : checkers) checker.join();
  purgatory->Shutdown();  // Expires whatever is still waiting.
  int expired = 0;
  for (int i = 0; i < kRacingOps; ++i) {
    ASSERT_EQ(ops[i]->completions.load(), 1) << i;
    ASSERT_LE(ops[i]->expirations.load(), 1) << i;
    expired += ops[i]->expirations.load();
  }
  PurgatoryMetrics metrics = purgatory->Metrics();
  EXPECT_EQ(metrics.completed, kRacingOps);
  EXPECT_EQ(metrics.expired, expired);
  EXPECT_EQ(metrics.watched, 0);
  EXPECT_EQ(metrics.delayed, 0);
}

TEST(PurgatoryConcurrencyTest, ReentrantChecksAcrossThreadsNeverDeadlock) {
  // Every operation's TryComplete() checks another operation's key (up to
  // a small depth), while four threads check keys at random and make
  // operations ready: locks are taken in every order, from every thread.
  constexpr int kReentrantOps = 200;
  PurgatoryOptions options;
  options.shards = 4;
  auto purgatory = DelayedOperationPurgatory<int>::Create(options).value();
  std::vector<TaskPtr<CountingOperation>> ops;
  for (int i = 0; i < kReentrantOps; ++i) {
    ops.push_back(MakeTask<CountingOperation>(absl::Hours(1)));
  }
  thread_local int depth = 0;
  for (int i = 0; i < kReentrantOps; ++i) {
    ops[i]->on_try = [&purgatory, i](int call) {
      if (depth >= 3) return;
      ++depth;
      purgatory->CheckAndComplete((i * 7 + call) % kReentrantOps);
      --depth;
    };
  }
  for (int i = 0; i < kReentrantOps; ++i) {
    ASSERT_TRUE(purgatory->TryCompleteElseWatch(ops[i], {i}).ok());
  }
  std::atomic<int> next_ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (;;) {
        const int ready = next_ready.fetch_add(1);
        if (ready < kReentrantOps) ops[ready]->ready = true;
        if (ready >= kReentrantOps + 2000) return;
        purgatory->CheckAndComplete(static_cast<int>(random() % kReentrantOps));
      }
    });
  }
  testing::RunWithin(absl::Seconds(60), "re-entrant checkers", [&] {
    for (std::thread& thread : threads) thread.join();
  });
  // Whatever the random checks missed, one last pass over every key.
  for (int i = 0; i < kReentrantOps; ++i) purgatory->CheckAndComplete(i);
  for (int i = 0; i < kReentrantOps; ++i) {
    EXPECT_EQ(ops[i]->completions.load(), 1) << i;
    EXPECT_EQ(ops[i]->tries_without_lock.load(), 0) << i;
    EXPECT_EQ(ops[i]->tries_after_finish.load(), 0) << i;
  }
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
  EXPECT_EQ(purgatory->Metrics().completed, kReentrantOps);
}

TEST(PurgatoryConcurrencyTest, PurgatoriesSharingATimerRaceAndShutDown) {
  // Two purgatories on one real timer: short delays expire on the timer's
  // executor while checkers complete operations and the purgatories shut
  // down one after the other, the timer last. Each operation ends once.
  auto timer = Timer::Create().value();
  PurgatoryOptions options;
  options.shards = 4;
  options.shared_timer = timer.get();
  auto first = DelayedOperationPurgatory<int>::Create(options).value();
  auto second = DelayedOperationPurgatory<int>::Create(options).value();
  constexpr int kSharedOps = 1000;
  std::vector<TaskPtr<CountingOperation>> ops;
  for (int i = 0; i < kSharedOps; ++i) {
    ops.push_back(
        MakeTask<CountingOperation>(absl::Microseconds(100 * (i % 30))));
    ops.back()->ready = i % 3 == 0;
  }
  std::thread parker([&] {
    for (int i = 0; i < kSharedOps; ++i) {
      auto& purgatory = i % 2 == 0 ? first : second;
      ASSERT_TRUE(purgatory->TryCompleteElseWatch(ops[i], {i % 8}).ok());
    }
  });
  // One checker per purgatory.
  std::atomic<bool> stop_first{false};
  std::atomic<bool> stop_second{false};
  std::thread first_checker([&] {
    for (int key = 0; !stop_first.load(); ++key)
      first->CheckAndComplete(key % 8);
  });
  std::thread second_checker([&] {
    for (int key = 0; !stop_second.load(); ++key) {
      second->CheckAndComplete(key % 8);
    }
  });
  parker.join();
  stop_first.store(true);
  first_checker.join();
  first.reset();  // While `second` is still checked and its operations expire.
  stop_second.store(true);
  second_checker.join();
  second->Shutdown();
  PurgatoryMetrics metrics = second->Metrics();
  EXPECT_EQ(metrics.delayed, 0);
  EXPECT_EQ(metrics.watched, 0);
  second.reset();
  EXPECT_EQ(timer->NumPending(), 0);
  timer.reset();
  for (int i = 0; i < kSharedOps; ++i) {
    ASSERT_EQ(ops[i]->completions.load(), 1) << i;
    ASSERT_LE(ops[i]->expirations.load(), 1) << i;
    ASSERT_EQ(ops[i]->IsExpired(), ops[i]->expirations.load() == 1) << i;
  }
}

TEST(PurgatoryConcurrencyTest, ACompletionRacingTheHandInLeavesNoTimerEntry) {
  // One thread hands operations in; another completes each one through a raw
  // pointer at a random moment of its hand-in (before, during or after the
  // timer's Add()). Whoever finishes an operation cancels its timer entry
  // only if the hand-in marked it timed; the hand-in re-checks after its
  // Add(). Either way no completed operation may stay on the timer. Nothing
  // expires: the delay is an hour and the timer has no reaper.
  TimerOptions timer_options;
  timer_options.start_reaper = false;
  auto timer = Timer::Create(timer_options).value();
  PurgatoryOptions options;
  options.shards = 2;
  options.shared_timer = timer.get();
  auto purgatory = DelayedOperationPurgatory<int>::Create(options).value();
  constexpr int kRacedOps = 20000;
  std::vector<TaskPtr<CountingOperation>> ops;
  for (int i = 0; i < kRacedOps; ++i) {
    ops.push_back(MakeTask<CountingOperation>(absl::Hours(1)));
  }
  std::atomic<int> published{-1};  // The operation being handed in.
  std::atomic<int> completed{-1};  // The last one the racer completed.
  std::thread racer([&] {
    std::mt19937 random(7);
    for (int i = 0; i < kRacedOps; ++i) {
      while (published.load() < i) {
      }
      // Spread the completion over the hand-in (a spin of 0 to ~2 us).
      const int spins = static_cast<int>(random() % 400);
      for (int s = 0; s < spins; ++s) {
        if (ops[i]->state() != OperationState::kWaiting) break;
      }
      ops[i]->ForceComplete();
      completed.store(i);
    }
  });
  for (int i = 0; i < kRacedOps; ++i) {
    published.store(i);
    absl::StatusOr<WatchOutcome> outcome =
        purgatory->TryCompleteElseWatch(ops[i], {i % 16});
    // Completed before the hand-in began: refused, in no purgatory.
    ASSERT_TRUE(outcome.ok() || absl::IsFailedPrecondition(outcome.status()))
        << outcome.status();
    // One at a time, so that every hand-in is raced.
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (completed.load() < i) {
      ASSERT_LT(absl::Now(), deadline) << "operation " << i;
    }
  }
  racer.join();
  for (int i = 0; i < kRacedOps; ++i) {
    ASSERT_EQ(ops[i]->completions.load(), 1) << i;
    ASSERT_EQ(ops[i]->expirations.load(), 0) << i;
  }
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
  // Checked while the purgatory lives (its shutdown would take leftovers off
  // a shared timer): a completed operation left on the timer shows here.
  EXPECT_EQ(timer->NumPending(), 0);
}

TEST(PurgatoryConcurrencyTest, ACheckOutlivesTheReferencesOfOperationsItTries) {
  // The purgatory holds the only references: each operation is handed in
  // under its own key and a shared one, then dropped by the test. One thread
  // keeps checking the shared key (a long scan of raw pointers) while
  // another completes the operations through their own keys, which takes
  // them off both lists and drops the last references. A check must keep
  // every operation it tries alive until it is done (under
  // --config=asan, a use after free fails the test).
  constexpr int kDroppedOps = 2000;
  constexpr int kShared = -1;
  PurgatoryOptions options;
  options.shards = 4;
  auto purgatory = DelayedOperationPurgatory<int>::Create(options).value();
  std::atomic<int> completions{0};
  std::vector<CountingOperation*> raw;
  for (int i = 0; i < kDroppedOps; ++i) {
    auto op = MakeTask<CountingOperation>(absl::Hours(1));
    op->on_complete = [&completions] { completions.fetch_add(1); };
    raw.push_back(op.get());
    ASSERT_EQ(
        purgatory->TryCompleteElseWatch(std::move(op), {i, kShared}).value(),
        WatchOutcome::kWatching);
  }
  std::atomic<bool> stop{false};
  std::atomic<int> scans{0};
  std::thread scanner([&] {
    while (!stop.load()) {
      purgatory->CheckAndComplete(kShared);
      scans.fetch_add(1);
    }
  });
  // Start once a scan is under way, so that completions overlap scans.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (scans.load() == 0) ASSERT_LT(absl::Now(), deadline);
  for (int i = 0; i < kDroppedOps; ++i) {
    // Alive: still watched (only this thread completes it, below or by
    // making it ready for the scanner).
    raw[i]->ready = true;
    purgatory->CheckAndComplete(i);
  }
  stop.store(true);
  scanner.join();
  EXPECT_EQ(completions.load(), kDroppedOps);
  EXPECT_EQ(purgatory->NumDelayed(), 0);
  EXPECT_EQ(purgatory->Watched(), 0);
}

}  // namespace
}  // namespace timingwheel
