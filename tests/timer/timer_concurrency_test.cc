// Copyright 2026 The timingwheel Authors.
//
// Multi-threaded tests of Timer on the real clock, meant for ThreadSanitizer
// as much as for the default build: adds and cancels from many threads
// (cancelling each other's timers), racing cancels of one task, callbacks
// that re-add themselves while producers add, and Shutdown() while producers
// add. They wait on latches with generous timeouts and assert counts, never
// durations.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/manual_timer.h"
#include "tests/timer/test_sync.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::MakeManualTimer;

constexpr auto kTimeout = std::chrono::minutes(2);

// Releases every waiter at once.
class StartGate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kTimeout, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

TEST(TimerConcurrencyTest, ThreadsAddAndCancelEachOthersTimers) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  constexpr int kTotal = kThreads * kPerThread;
  std::unique_ptr<Timer> timer = Timer::Create().value();
  std::vector<std::atomic<int>> runs(kTotal);
  std::vector<std::atomic<int>> cancelled(kTotal);
  std::vector<uint8_t> is_long(kTotal, 0);  // Written by its producer.
  Counter ran;
  // Thread t hands its handles to thread (t + 1) % kThreads to cancel.
  struct Mailbox {
    std::mutex mu;
    std::deque<std::pair<int, TimerHandle>> handles;
  };
  std::vector<Mailbox> mailboxes(kThreads);
  std::atomic<bool> producing{true};
  StartGate gate;

  auto worker = [&](int t) {
    ASSERT_TRUE(gate.Wait());
    std::mt19937 rng(t);
    Mailbox& out = mailboxes[(t + 1) % kThreads];
    Mailbox& in = mailboxes[t];
    for (int i = 0; i < kPerThread; ++i) {
      const int id = t * kPerThread + i;
      is_long[id] = rng() % 4 == 0;
      const absl::Duration delay =
          is_long[id] ? absl::Seconds(3600) : absl::Microseconds(rng() % 3000);
      TimerHandle handle = timer
                               ->Schedule(delay,
                                          [&, id] {
                                            runs[id].fetch_add(1);
                                            ran.Add();
                                          })
                               .value();
      if (rng() % 2 == 0) {
        std::lock_guard<std::mutex> lock(out.mu);
        out.handles.emplace_back(id, std::move(handle));
      }
      std::deque<std::pair<int, TimerHandle>> mine;
      {
        std::lock_guard<std::mutex> lock(in.mu);
        mine.swap(in.handles);
      }
      for (auto& [victim, victim_handle] : mine) {
        if (victim_handle.Cancel()) cancelled[victim].fetch_add(1);
      }
    }
  };
  // A reader of the counters: every snapshot is consistent.
  std::thread reader([&] {
    while (producing.load()) {
      const TimerMetrics m = timer->Metrics();
      EXPECT_EQ(m.added, m.expired + m.cancelled + m.pending);
      EXPECT_GE(m.pending, 0);
      EXPECT_GE(timer->NumPending(), 0);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  gate.Open();
  for (std::thread& thread : threads) thread.join();
  producing = false;
  reader.join();
  // Leftover mailboxes, then every hour-long timer still pending.
  for (Mailbox& box : mailboxes) {
    for (auto& [victim, handle] : box.handles) {
      if (handle.Cancel()) cancelled[victim].fetch_add(1);
    }
  }
  std::vector<TaskPtr<TimerTask>> swept;
  int64_t cancels = 0;
  int64_t long_left = 0;  // Hour-long, not cancelled: swept by Shutdown().
  for (int id = 0; id < kTotal; ++id) {
    cancels += cancelled[id].load();
    if (is_long[id] && cancelled[id].load() == 0) ++long_left;
  }
  const int64_t expected_runs = kTotal - cancels - long_left;
  ASSERT_TRUE(ran.AwaitAtLeast(expected_runs));
  // Only the hour-long timers remain.
  EXPECT_EQ(timer->Metrics().pending, long_left);
  swept = timer->Shutdown();
  EXPECT_EQ(static_cast<int64_t>(swept.size()), long_left);
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.added, kTotal);
  EXPECT_EQ(m.expired, expected_runs);
  EXPECT_EQ(m.cancelled, cancels + long_left);
  EXPECT_EQ(m.pending, 0);
  int64_t total_runs = 0;
  for (int id = 0; id < kTotal; ++id) {
    ASSERT_LE(runs[id].load() + cancelled[id].load(), 1) << id;
    total_runs += runs[id].load();
  }
  EXPECT_EQ(total_runs, expected_runs);
}

TEST(TimerConcurrencyTest, RacingCancelsOfOneTaskHaveOneWinner) {
  std::unique_ptr<Timer> timer = Timer::Create().value();
  constexpr int kRounds = 200;
  constexpr int kRacers = 4;
  for (int round = 0; round < kRounds; ++round) {
    // Long delay: pending until a racer wins; short delay: the reaper
    // races too, and exactly one of "ran" and "a cancel won" happens.
    const bool racing_reaper = round % 2 == 1;
    Counter ran;
    TimerHandle handle =
        timer
            ->Schedule(racing_reaper ? absl::ZeroDuration() : absl::Hours(1),
                       [&] { ran.Add(); })
            .value();
    StartGate gate;
    std::atomic<int> wins{0};
    std::vector<std::thread> racers;
    for (int r = 0; r < kRacers; ++r) {
      racers.emplace_back([&, copy = handle]() mutable {
        ASSERT_TRUE(gate.Wait());
        if (copy.Cancel()) wins.fetch_add(1);
      });
    }
    gate.Open();
    for (std::thread& racer : racers) racer.join();
    if (!racing_reaper) {
      EXPECT_EQ(wins.load(), 1) << "round " << round;
    } else if (wins.load() == 0) {
      ASSERT_TRUE(ran.AwaitAtLeast(1)) << "round " << round;
    } else {
      EXPECT_EQ(wins.load(), 1) << "round " << round;
    }
    if (wins.load() == 1) {
      EXPECT_EQ(ran.value(), 0) << "round " << round;
    }
  }
  timer->Shutdown();
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.added, kRounds);
  EXPECT_EQ(m.expired + m.cancelled, kRounds);
  EXPECT_EQ(m.pending, 0);
}

// A task that re-adds itself `remaining` more times from its own Run().
class ChainTask final : public TimerTask {
 public:
  ChainTask(Timer* timer, int remaining, Counter* runs)
      : timer_(timer), remaining_(remaining), runs_(runs) {}
  void Run() override {
    if (remaining_-- > 0) {
      EXPECT_TRUE(timer_->Add(self_, absl::Microseconds(100)).ok());
    }
    runs_->Add();
  }

  // This task itself, set by the test (and reset at the end).
  TaskPtr<ChainTask> self_;

 private:
  Timer* const timer_;
  int remaining_;  // Touched only by Run(), serialized by the timer.
  Counter* const runs_;
};

TEST(TimerConcurrencyTest, CallbacksReAddThemselvesWhileProducersAdd) {
  std::unique_ptr<Timer> timer = Timer::Create().value();
  constexpr int kChains = 20;
  constexpr int kLinks = 50;
  constexpr int kProducers = 2;
  constexpr int kPerProducer = 3000;
  Counter chain_runs;
  Counter other_runs;
  std::vector<TaskPtr<ChainTask>> chains;
  for (int c = 0; c < kChains; ++c) {
    chains.push_back(MakeTask<ChainTask>(timer.get(), kLinks - 1, &chain_runs));
    chains.back()->self_ = chains.back();
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      std::mt19937 rng(p);
      for (int i = 0; i < kPerProducer; ++i) {
        ASSERT_TRUE(timer
                        ->Schedule(absl::Microseconds(rng() % 2000),
                                   [&] { other_runs.Add(); })
                        .ok());
      }
    });
  }
  for (auto& chain : chains)
    ASSERT_TRUE(timer->Add(chain, absl::ZeroDuration()).ok());
  for (std::thread& producer : producers) producer.join();
  ASSERT_TRUE(chain_runs.AwaitAtLeast(kChains * kLinks));
  ASSERT_TRUE(other_runs.AwaitAtLeast(kProducers * kPerProducer));
  timer->Shutdown();
  EXPECT_EQ(chain_runs.value(), kChains * kLinks);
  EXPECT_EQ(other_runs.value(), kProducers * kPerProducer);
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.added, kChains * kLinks + kProducers * kPerProducer);
  EXPECT_EQ(m.expired, m.added);
  EXPECT_EQ(m.pending, 0);
  for (auto& chain : chains) chain->self_ = nullptr;  // Break the cycle.
}

// A task that knows its id.
class IdTask final : public TimerTask {
 public:
  IdTask(int id, std::vector<std::atomic<int>>* runs, Counter* ran)
      : id_(id), runs_(runs), ran_(ran) {}
  void Run() override {
    (*runs_)[id_].fetch_add(1);
    ran_->Add();
  }
  int id() const { return id_; }

 private:
  const int id_;
  std::vector<std::atomic<int>>* const runs_;
  Counter* const ran_;
};

TEST(TimerConcurrencyTest, ReAddsRaceTheFlushThatExpiredThem) {
  // A task handed to the executor may be added again at once by another
  // thread; the flush that expired it must not read its due time any more
  // (run under --config=tsan).
  testing::ManualClock clock;
  testing::ManualExecutor executor;
  auto timer = MakeManualTimer(clock, executor);
  class Noop final : public TimerTask {
   public:
    void Run() override {}
  };
  std::vector<TaskPtr<TimerTask>> tasks;
  for (int i = 0; i < 64; ++i) tasks.push_back(MakeTask<Noop>());
  std::atomic<bool> stop{false};
  std::atomic<int64_t> adds{0};
  std::thread adder([&] {
    while (!stop.load()) {
      ASSERT_TRUE(
          timer->Add(tasks[adds.load() % 64], absl::ZeroDuration()).ok());
      adds.fetch_add(1);
    }
  });
  // Flush while the adder runs, until it has added 20,000 times.
  for (int step = 0; step < 10'000'000 && adds.load() < 20000; ++step) {
    clock.AdvanceBy(absl::Microseconds(1));
    timer->AdvanceClock(absl::ZeroDuration());
    executor.RunAll();
  }
  stop.store(true);
  adder.join();
  clock.AdvanceBy(absl::Microseconds(1));
  timer->AdvanceClock(absl::ZeroDuration());
  executor.RunAll();
  const TimerMetrics m = timer->Metrics();
  EXPECT_GE(adds.load(), 20000);
  EXPECT_EQ(m.pending, 0);
  EXPECT_GT(m.expired, 0);
  EXPECT_LE(m.expired, m.added);
}

TEST(TimerConcurrencyTest, ShutdownWhileProducersAdd) {
  std::unique_ptr<Timer> timer = Timer::Create().value();
  constexpr int kProducers = 3;
  constexpr int kMaxPerProducer = 20000;
  constexpr int kTotal = kProducers * kMaxPerProducer;
  std::vector<std::atomic<int>> runs(kTotal);
  std::vector<std::atomic<int>> added(kTotal);
  Counter ran;
  Counter progress;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      std::mt19937 rng(p);
      for (int i = 0; i < kMaxPerProducer; ++i) {
        const int id = p * kMaxPerProducer + i;
        auto task = MakeTask<IdTask>(id, &runs, &ran);
        const absl::Duration delay = rng() % 2 == 0
                                         ? absl::Microseconds(rng() % 1000)
                                         : absl::Seconds(3600);
        const absl::Status status = timer->Add(task, delay);
        if (!status.ok()) {
          EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
          return;
        }
        added[id] = 1;
        if (i % 100 == 99) progress.Add(100);
      }
    });
  }
  // Shut down mid-way (or at the end, if the producers are quick).
  ASSERT_TRUE(progress.AwaitAtLeast(kTotal / 4));
  std::vector<TaskPtr<TimerTask>> swept = timer->Shutdown();
  const int64_t ran_at_shutdown = ran.value();
  for (std::thread& producer : producers) producer.join();
  EXPECT_EQ(ran.value(), ran_at_shutdown);  // Nothing ran afterwards.
  std::vector<int> swept_count(kTotal, 0);
  for (const TaskPtr<TimerTask>& task : swept) {
    ++swept_count[static_cast<IdTask*>(task.get())->id()];
  }
  int64_t total_added = 0;
  for (int id = 0; id < kTotal; ++id) {
    total_added += added[id].load();
    ASSERT_EQ(runs[id].load() + swept_count[id], added[id].load()) << id;
  }
  const TimerMetrics m = timer->Metrics();
  EXPECT_EQ(m.added, total_added);
  EXPECT_EQ(m.expired, ran_at_shutdown);
  EXPECT_EQ(m.cancelled, static_cast<int64_t>(swept.size()));
  EXPECT_EQ(m.pending, 0);
}

}  // namespace
}  // namespace timingwheel
