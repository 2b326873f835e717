// Copyright 2026 The timingwheel Authors.
//
// EmbeddedTimer and CallbackTimer: scheduling, moving, cancelling, and
// destruction in every state (idle, pending, queued on the executor,
// running, from its own callback, after the timer's death). Deterministic
// with the manual clock and executor, except the tests named *Threads,
// which race a real reaper and executor (run them under --config=tsan and
// --config=asan).

#include "timer/embedded_timer.h"

#include <atomic>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/manual_timer.h"
#include "tests/timer/test_sync.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::Latch;
using ::timingwheel::testing::MakeManualTimer;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::ManualExecutor;
using ::timingwheel::testing::MockTimer;

// Not a TimerTask to its users: Timer::Add() cannot take one.
static_assert(!std::is_convertible_v<EmbeddedTimer*, TimerTask*>);
static_assert(!std::is_convertible_v<CallbackTimer*, TimerTask*>);
// The sizes embedded_timer.h states (LP64).
static_assert(sizeof(void*) != 8 || sizeof(EmbeddedTimer) == 48);
static_assert(sizeof(void*) != 8 || sizeof(CallbackTimer) == 80);

// A subclass, the Folly way: counts runs, records the clock at each.
class Beat : public EmbeddedTimer {
 public:
  explicit Beat(ManualClock* clock) : clock_(clock) {}
  ~Beat() override { Cancel(); }
  std::vector<int64_t> runs_at;

 private:
  void OnTimer() override { runs_at.push_back(clock_->NowNanos()); }
  ManualClock* const clock_;
};

TEST(EmbeddedTimerTest, RunsOnceAtItsDueTimeNeverEarly) {
  MockTimer mock;
  Beat beat(&mock.clock());
  const int64_t start = mock.clock().NowNanos();
  ASSERT_TRUE(beat.Schedule(mock.timer(), absl::Milliseconds(10)).ok());
  EXPECT_TRUE(beat.IsScheduled());
  EXPECT_EQ(mock.AdvanceBy(absl::Microseconds(9999)), 0u);
  EXPECT_TRUE(beat.runs_at.empty());
  EXPECT_EQ(mock.AdvanceBy(absl::Microseconds(1)), 1u);
  ASSERT_EQ(beat.runs_at.size(), 1u);
  EXPECT_EQ(beat.runs_at[0] - start, 10'000'000);
  EXPECT_FALSE(beat.IsScheduled());
  EXPECT_EQ(mock.AdvanceBy(absl::Hours(1)), 0u);
  EXPECT_EQ(beat.runs_at.size(), 1u);
}

TEST(EmbeddedTimerTest, SchedulingAPendingOneMovesIt) {
  MockTimer mock;
  Beat beat(&mock.clock());
  const int64_t start = mock.clock().NowNanos();
  ASSERT_TRUE(beat.Schedule(mock.timer(), absl::Seconds(1)).ok());
  ASSERT_TRUE(beat.Schedule(mock.timer(), absl::Seconds(5)).ok());
  EXPECT_EQ(mock.timer().NumPending(), 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(4)), 0u);
  // Earlier again: moved before its due time.
  ASSERT_TRUE(beat.Schedule(mock.timer(), absl::Milliseconds(500)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(500)), 1u);
  ASSERT_EQ(beat.runs_at.size(), 1u);
  EXPECT_EQ(beat.runs_at[0] - start, 4'500'000'000);
  const TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.added, 3);
  EXPECT_EQ(metrics.cancelled, 0);
  EXPECT_EQ(metrics.pending, 0);
}

TEST(EmbeddedTimerTest, CancelPreventsTheRunAndIsIdempotent) {
  MockTimer mock;
  Beat beat(&mock.clock());
  EXPECT_FALSE(beat.Cancel());  // Never scheduled.
  ASSERT_TRUE(beat.Schedule(mock.timer(), absl::Seconds(1)).ok());
  EXPECT_TRUE(beat.Cancel());
  EXPECT_FALSE(beat.Cancel());
  EXPECT_FALSE(beat.IsScheduled());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(2)), 0u);
  EXPECT_TRUE(beat.runs_at.empty());
  EXPECT_EQ(mock.timer().Metrics().cancelled, 1);
  // Schedulable again after a cancel.
  ASSERT_TRUE(beat.Schedule(mock.timer(), absl::Seconds(1)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(beat.runs_at.size(), 1u);
}

TEST(EmbeddedTimerTest, DestroyIdleAndPending) {
  MockTimer mock;
  int runs = 0;
  {
    CallbackTimer idle([&] { ++runs; });
  }
  {
    CallbackTimer ran([&] { ++runs; });
    ASSERT_TRUE(ran.Schedule(mock.timer(), absl::Seconds(1)).ok());
    EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  }  // Idle again, destroyed.
  {
    CallbackTimer pending([&] { ++runs; });
    ASSERT_TRUE(pending.Schedule(mock.timer(), absl::Seconds(1)).ok());
    EXPECT_EQ(mock.timer().NumPending(), 1);
  }  // Cancelled by its destructor.
  EXPECT_EQ(mock.timer().NumPending(), 0);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5)), 0u);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(mock.timer().Metrics().cancelled, 1);
}

TEST(EmbeddedTimerTest, DestroyWhileQueuedOnTheExecutorDoesNotWaitForIt) {
  MockTimer mock;
  int runs = 0;
  auto queued = std::make_unique<CallbackTimer>([&] { ++runs; });
  CallbackTimer other([&] { runs += 10; });
  ASSERT_TRUE(queued->Schedule(mock.timer(), absl::Seconds(1)).ok());
  ASSERT_TRUE(other.Schedule(mock.timer(), absl::Seconds(1)).ok());
  mock.clock().AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));
  ASSERT_EQ(mock.executor().size(), 1u);  // One batch, both in it.
  EXPECT_TRUE(queued->IsScheduled());
  // Nothing runs the executor: destruction must not wait for it.
  queued.reset();
  EXPECT_EQ(mock.executor().RunAll(), 1u);
  EXPECT_EQ(runs, 10);
  const TimerMetrics metrics = mock.timer().Metrics();
  EXPECT_EQ(metrics.expired, 1);
  EXPECT_EQ(metrics.cancelled, 1);
}

TEST(EmbeddedTimerTest, DestroyedByAnEarlierCallbackOfTheSameBatch) {
  MockTimer mock;
  int runs = 0;
  auto victim = std::make_unique<CallbackTimer>([&] { runs += 100; });
  CallbackTimer killer([&] {
    ++runs;
    victim.reset();  // Queued behind this callback, on this thread.
  });
  ASSERT_TRUE(killer.Schedule(mock.timer(), absl::Milliseconds(1)).ok());
  ASSERT_TRUE(victim->Schedule(mock.timer(), absl::Milliseconds(2)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(2)), 1u);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(victim, nullptr);
}

TEST(EmbeddedTimerTest, DestroyedInsideItsOwnCallback) {
  MockTimer mock;
  struct Connection {
    int* closed;
    CallbackTimer idle;
    explicit Connection(int* closed_count)
        : closed(closed_count), idle([this] {
            ++*closed;
            delete this;  // Allowed: the timer no longer touches it.
          }) {}
  };
  int closed = 0;
  auto* connection = new Connection(&closed);
  ASSERT_TRUE(connection->idle.Schedule(mock.timer(), absl::Seconds(1)).ok());
  // A second one re-arms itself, then is destroyed in the re-armed run.
  auto* again = new Connection(&closed);
  ASSERT_TRUE(again->idle.Schedule(mock.timer(), absl::Seconds(1)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 2u);
  EXPECT_EQ(closed, 2);
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(EmbeddedTimerTest, ReArmedFromItsCallbackStopsOnCancel) {
  MockTimer mock;
  int runs = 0;
  std::unique_ptr<CallbackTimer> beat;
  beat = std::make_unique<CallbackTimer>([&] {
    ++runs;
    beat->Schedule(mock.timer(), absl::Seconds(1)).IgnoreError();
  });
  ASSERT_TRUE(beat->Schedule(mock.timer(), absl::Seconds(1)).ok());
  for (int i = 0; i < 5; ++i) mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(runs, 5);
  EXPECT_TRUE(beat->IsScheduled());
  EXPECT_TRUE(beat->Cancel());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(10)), 0u);
  EXPECT_EQ(runs, 5);
}

TEST(EmbeddedTimerTest, CancelFromItsOwnCallbackStopsTheReArm) {
  MockTimer mock;
  int runs = 0;
  std::unique_ptr<CallbackTimer> beat;
  beat = std::make_unique<CallbackTimer>([&] {
    ++runs;
    EXPECT_FALSE(beat->Cancel());  // Nothing waiting; does not wait.
    EXPECT_EQ(beat->Schedule(mock.timer(), absl::Seconds(1)).code(),
              absl::StatusCode::kCancelled);
  });
  ASSERT_TRUE(beat->Schedule(mock.timer(), absl::Seconds(1)).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5)), 0u);
  EXPECT_EQ(runs, 1);
  // Once its run returned, it can be scheduled again.
  ASSERT_TRUE(beat->Schedule(mock.timer(), absl::Seconds(1)).ok());
}

TEST(EmbeddedTimerTest, TimerDestroyedFirst) {
  int runs = 0;
  CallbackTimer pending([&] { ++runs; });
  CallbackTimer queued([&] { ++runs; });
  {
    MockTimer mock;
    ASSERT_TRUE(pending.Schedule(mock.timer(), absl::Hours(1)).ok());
    ASSERT_TRUE(queued.Schedule(mock.timer(), absl::Seconds(1)).ok());
    mock.clock().AdvanceBy(absl::Seconds(1));
    ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));
    // The batch is still queued on the executor, which is destroyed with
    // the mock (after the timer): the timer's destructor waits for it only
    // if it was run or dropped; run it so the destructor can finish.
    EXPECT_EQ(mock.executor().RunAll(), 1u);
  }
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(pending.IsScheduled());
  EXPECT_FALSE(pending.Cancel());
}  // Both destroyed after their timer: harmless.

class Noop : public TimerTask {
  void Run() override {}
};

TEST(EmbeddedTimerTest, ShutdownCancelsWithoutReturningIt) {
  MockTimer mock;
  int runs = 0;
  CallbackTimer embedded([&] { ++runs; });
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(1)).ok());
  TaskPtr<TimerTask> counted = MakeTask<Noop>();
  ASSERT_TRUE(mock.timer().Add(counted, absl::Seconds(1)).ok());
  std::vector<TaskPtr<TimerTask>> left = mock.timer().Shutdown();
  ASSERT_EQ(left.size(), 1u);  // Only the counted task.
  EXPECT_EQ(left[0], counted);
  EXPECT_FALSE(embedded.IsScheduled());
  EXPECT_EQ(embedded.Schedule(mock.timer(), absl::Seconds(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(mock.timer().Metrics().cancelled, 2);
  EXPECT_EQ(runs, 0);
}

TEST(EmbeddedTimerTest, BelongsToOneTimerAtATime) {
  MockTimer first;
  MockTimer second;
  int runs = 0;
  CallbackTimer embedded([&] { ++runs; });
  ASSERT_TRUE(embedded.Schedule(first.timer(), absl::Seconds(1)).ok());
  EXPECT_EQ(embedded.Schedule(second.timer(), absl::Seconds(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(embedded.IsScheduled());  // Still in the first.
  EXPECT_TRUE(embedded.Cancel());
  ASSERT_TRUE(embedded.Schedule(second.timer(), absl::Seconds(1)).ok());
  EXPECT_EQ(first.AdvanceBy(absl::Seconds(1)), 0u);
  EXPECT_EQ(second.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(runs, 1);
}

// Destroys every callback without running it.
class DroppingExecutor final : public Executor {
 public:
  void Execute(Callback callback) override {
    Callback dropped = std::move(callback);
  }
};

TEST(EmbeddedTimerTest, ABatchTheExecutorDropsCancelsIt) {
  ManualClock clock;
  DroppingExecutor executor;
  auto timer = MakeManualTimer(clock, executor);
  int runs = 0;
  CallbackTimer embedded([&] { ++runs; });
  ASSERT_TRUE(embedded.Schedule(*timer, absl::Seconds(1)).ok());
  clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_FALSE(embedded.IsScheduled());
  EXPECT_EQ(timer->Metrics().cancelled, 1);
  EXPECT_EQ(runs, 0);
  ASSERT_TRUE(embedded.Schedule(*timer, absl::Seconds(1)).ok());
  EXPECT_TRUE(embedded.IsScheduled());
}

TEST(EmbeddedTimerTest, DestroyWhileRunningOnAnotherThreadWaitsForTheRun) {
  MockTimer mock;
  Latch entered;
  Latch release;
  std::atomic<bool> finished{false};
  auto embedded = std::make_unique<CallbackTimer>([&] {
    entered.Open();
    ASSERT_TRUE(release.Wait());
    finished = true;
  });
  ASSERT_TRUE(embedded->Schedule(mock.timer(), absl::Seconds(1)).ok());
  mock.clock().AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));
  std::thread executor([&] { mock.executor().RunAll(); });
  ASSERT_TRUE(entered.Wait());
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    embedded.reset();
    destroyed = true;
    // The run had finished when the destructor returned.
    EXPECT_TRUE(finished.load());
  });
  // Give the destroyer a chance to block (the assertion above holds either
  // way; this only makes the interesting interleaving likely).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(destroyed.load());
  release.Open();
  destroyer.join();
  executor.join();
  EXPECT_TRUE(destroyed.load());
}

// Races destruction against a real reaper firing the timer, many times.
TEST(EmbeddedTimerTest, DestroyWhileTheReaperFiresItThreads) {
  auto timer = Timer::Create().value();
  constexpr int kRounds = 3000;
  std::atomic<int> runs{0};
  struct Owner {
    std::atomic<int>* runs;
    int64_t touched = 0;  // Written by the callback: ASan/TSan see misuse.
    CallbackTimer timer;
    explicit Owner(std::atomic<int>* r)
        : runs(r), timer([this] {
            ++touched;
            runs->fetch_add(1, std::memory_order_relaxed);
          }) {}
  };
  for (int i = 0; i < kRounds; ++i) {
    auto owner = std::make_unique<Owner>(&runs);
    ASSERT_TRUE(owner->timer.Schedule(*timer, absl::Microseconds(i % 50)).ok());
    // Destroy at varying points: before, while and after it fires.
    for (int spin = 0; spin < (i % 7) * 500; ++spin) {
      std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    if (i % 3 == 0) {
      owner->timer.Schedule(*timer, absl::Microseconds(i % 11)).IgnoreError();
    }
    owner.reset();
  }
  EXPECT_EQ(timer->NumPending(), 0);
  timer->Shutdown();  // Waits for the executor.
  const TimerMetrics metrics = timer->Metrics();
  // Every run handed over ran (none lost, none after its owner died), and
  // at least one scheduling per round ran or was cancelled.
  EXPECT_EQ(runs.load(), metrics.expired);
  EXPECT_GE(metrics.expired + metrics.cancelled, kRounds);
  EXPECT_EQ(metrics.pending, 0);
}

// Destroys embedded timers on one thread while another shuts the timer
// down (its sweep walks the pending ones outside the lock).
TEST(EmbeddedTimerTest, DestroyWhileTheTimerShutsDownThreads) {
  for (int round = 0; round < 50; ++round) {
    auto timer = Timer::Create().value();
    std::vector<std::unique_ptr<CallbackTimer>> timers;
    std::atomic<int> runs{0};
    for (int i = 0; i < 2000; ++i) {
      timers.push_back(std::make_unique<CallbackTimer>([&] { ++runs; }));
      ASSERT_TRUE(timers.back()->Schedule(*timer, absl::Hours(1)).ok());
    }
    std::thread destroyer([&] {
      for (auto& embedded : timers) embedded.reset();
    });
    const std::vector<TaskPtr<TimerTask>> left = timer->Shutdown();
    destroyer.join();
    EXPECT_TRUE(left.empty());
    EXPECT_EQ(runs.load(), 0);
    EXPECT_EQ(timer->Metrics().cancelled, 2000);
  }
}

// Re-arming itself on a two-thread pool while another thread moves and
// cancels it and finally destroys it: never concurrently with itself.
class PoolExecutor final : public Executor {
 public:
  PoolExecutor() {
    for (auto& thread : threads_) thread = std::make_unique<ThreadExecutor>();
  }
  void Execute(Callback callback) override {
    threads_[next_.fetch_add(1) % 2]->Execute(std::move(callback));
  }

 private:
  std::atomic<unsigned> next_{0};
  std::unique_ptr<ThreadExecutor> threads_[2];
};

TEST(EmbeddedTimerTest, ReArmingOnAPoolWhileAnotherThreadDestroysItThreads) {
  PoolExecutor pool;
  TimerOptions options;
  options.executor = &pool;
  auto timer = Timer::Create(options).value();
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    Counter ran;
    CallbackTimer* self = nullptr;  // Set before its first run.
    auto beat = std::make_unique<CallbackTimer>([&] {
      if (inside.fetch_add(1) != 0) overlapped = true;
      ran.Increment();
      self->Schedule(*timer, absl::ZeroDuration()).IgnoreError();
      inside.fetch_sub(1);
    });
    self = beat.get();
    ASSERT_TRUE(beat->Schedule(*timer, absl::ZeroDuration()).ok());
    ASSERT_TRUE(ran.AwaitAtLeast(3));
    for (int i = 0; i < 20; ++i) {
      beat->Schedule(*timer, absl::Microseconds(i)).IgnoreError();
    }
    beat.reset();
    EXPECT_FALSE(overlapped.load());
  }
  timer->Shutdown();
}

}  // namespace
}  // namespace timingwheel
