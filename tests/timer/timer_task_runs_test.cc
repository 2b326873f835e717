// Copyright 2026 The timingwheel Authors.
//
// How a task's runs can be stopped and overlap:
// Cancel() takes back a task handed to the executor whose Run() has not
// started (Netty's semantics); a task never runs concurrently with itself on
// a thread pool, even when re-added while its batch waits in the pool's
// queue; a task that re-adds itself (the README's heartbeat) stops for good
// with one Cancel(); and delays are never truncated below a nanosecond.

#include <atomic>
#include <functional>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/manual_timer.h"
#include "tests/timer/test_sync.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/manual_executor.h"
#include "timer/testing/mock_timer.h"
#include "timer/testing/pool_executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::Latch;
using ::timingwheel::testing::MakeManualTimer;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::ManualExecutor;
using ::timingwheel::testing::MockTimer;
using ::timingwheel::testing::PoolExecutor;

class CountingTask : public TimerTask {
 public:
  void Run() override { ++runs; }
  std::atomic<int> runs{0};
};

// A timer driven by hand whose batches wait in a ManualExecutor.
struct QueuedTimer {
  QueuedTimer() { timer = MakeManualTimer(clock, executor); }
  ManualClock clock;
  ManualExecutor executor;
  std::unique_ptr<Timer> timer;
};

TEST(TimerTaskRunsTest, CancelTakesBackATaskHandedOverButNotStarted) {
  QueuedTimer q;
  auto task = MakeTask<CountingTask>();
  ASSERT_TRUE(q.timer->Add(task, absl::ZeroDuration()).ok());
  std::atomic<int> callback_runs{0};
  TimerHandle handle =
      q.timer->Schedule(absl::ZeroDuration(), [&] { ++callback_runs; }).value();
  ASSERT_TRUE(q.timer->AdvanceClock(absl::ZeroDuration()));
  ASSERT_EQ(q.executor.size(), 1u);  // The batch waits in the executor.
  EXPECT_TRUE(handle.pending());
  EXPECT_TRUE(q.timer->Cancel(*task));
  EXPECT_TRUE(handle.Cancel());
  EXPECT_FALSE(q.timer->Cancel(*task));  // Once.
  EXPECT_FALSE(handle.pending());
  EXPECT_EQ(q.executor.RunAll(), 1u);
  EXPECT_EQ(task->runs, 0);
  EXPECT_EQ(callback_runs, 0);
  const TimerMetrics m = q.timer->Metrics();
  EXPECT_EQ(m.cancelled, 2);
  EXPECT_EQ(m.expired, 0);
  EXPECT_EQ(m.pending, 0);
  // Idle again: it can be added anew.
  ASSERT_TRUE(q.timer->Add(task, absl::ZeroDuration()).ok());
  ASSERT_TRUE(q.timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(q.executor.RunAll(), 1u);
  EXPECT_EQ(task->runs, 1);
}

TEST(TimerTaskRunsTest, AddingATaskHandedOverButNotStartedMovesIt) {
  QueuedTimer q;
  auto task = MakeTask<CountingTask>();
  ASSERT_TRUE(q.timer->Add(task, absl::ZeroDuration()).ok());
  ASSERT_TRUE(q.timer->AdvanceClock(absl::ZeroDuration()));
  ASSERT_TRUE(q.timer->Add(task, absl::Seconds(1)).ok());  // A move.
  EXPECT_EQ(q.executor.RunAll(), 1u);
  EXPECT_EQ(task->runs, 0);  // The old run is gone...
  q.clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(q.timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(q.executor.RunAll(), 1u);
  EXPECT_EQ(task->runs, 1);  // ...the new one runs once.
  const TimerMetrics m = q.timer->Metrics();
  EXPECT_EQ(m.added, 2);
  EXPECT_EQ(m.expired, 1);
  EXPECT_EQ(m.cancelled, 0);
  EXPECT_EQ(m.pending, 0);
}

// Re-adds itself from Run() and stays inside Run() until the timer has
// handed the new run to the pool, where another thread could pick it up.
class OverlapProbe : public TimerTask {
 public:
  OverlapProbe(Timer* timer, int runs, Counter* done)
      : timer_(timer), runs_left_(runs), done_(done) {}
  void Run() override {
    if (inside_.fetch_add(1) != 0) overlaps.fetch_add(1);
    if (--runs_left_ > 0) {
      const int64_t handed_over = timer_->Metrics().expired;
      EXPECT_TRUE(timer_->Add(*this, absl::ZeroDuration()).ok());
      // Bounded: the reaper hands it over at once (it is due now).
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (timer_->Metrics().expired == handed_over &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      if (timer_->Metrics().expired > handed_over) handed_over_while_running++;
    }
    inside_.fetch_sub(1);
    done_->Increment();
  }
  std::atomic<int> overlaps{0};
  std::atomic<int> handed_over_while_running{0};

 private:
  Timer* const timer_;
  std::atomic<int> runs_left_;
  std::atomic<int> inside_{0};
  Counter* const done_;
};

TEST(TimerTaskRunsTest, NeverRunsConcurrentlyWithItselfOnAPool) {
  PoolExecutor pool(4);
  TimerOptions options;
  options.executor = &pool;  // Real clock and reaper.
  auto timer = Timer::Create(options).value();
  constexpr int kRuns = 40;
  Counter done;
  auto probe = MakeTask<OverlapProbe>(timer.get(), kRuns, &done);
  ASSERT_TRUE(timer->Add(probe, absl::ZeroDuration()).ok());
  ASSERT_TRUE(done.AwaitAtLeast(kRuns));
  EXPECT_EQ(probe->overlaps, 0);
  // The scenario happened: the next run was handed over while one ran.
  EXPECT_GT(probe->handed_over_while_running, kRuns / 2);
  timer->Shutdown();
  EXPECT_EQ(done.value(), kRuns);
  EXPECT_EQ(timer->Metrics().expired, kRuns);
}

// The README's heartbeat: re-adds itself after every beat.
class Heartbeat : public TimerTask {
 public:
  explicit Heartbeat(Timer* timer) : timer_(timer) {}
  void Run() override {
    ++beats;
    if (before_readd) before_readd();
    readd_status = timer_->Add(*this, absl::Seconds(1));
    if (after_readd) after_readd();
  }
  std::atomic<int> beats{0};
  absl::Status readd_status;
  std::function<void()> before_readd;
  std::function<void()> after_readd;

 private:
  Timer* const timer_;
};

TEST(TimerTaskRunsTest, CancelStopsAHeartbeatBetweenBeats) {
  MockTimer mock;
  auto beat = MakeTask<Heartbeat>(&mock.timer());
  ASSERT_TRUE(mock.timer().Add(beat, absl::Seconds(1)).ok());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_TRUE(mock.timer().Cancel(*beat));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 0u);
  EXPECT_EQ(beat->beats, 3);
}

TEST(TimerTaskRunsTest, CancelStopsAHeartbeatWhoseBeatIsQueued) {
  QueuedTimer q;
  auto beat = MakeTask<Heartbeat>(q.timer.get());
  ASSERT_TRUE(q.timer->Add(beat, absl::Seconds(1)).ok());
  q.clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(q.timer->AdvanceClock(absl::ZeroDuration()));
  EXPECT_TRUE(q.timer->Cancel(*beat));  // Handed over, not started.
  q.executor.RunAll();
  q.clock.AdvanceBy(absl::Seconds(10));
  q.timer->AdvanceClock(absl::ZeroDuration());
  q.executor.RunAll();
  EXPECT_EQ(beat->beats, 0);
  EXPECT_EQ(q.timer->NumPending(), 0);
}

TEST(TimerTaskRunsTest, CancelFromItsOwnRunStopsAHeartbeat) {
  MockTimer mock;
  auto beat = MakeTask<Heartbeat>(&mock.timer());
  bool cancel_returned = true;
  beat->before_readd = [&] {
    if (beat->beats == 2) cancel_returned = mock.timer().Cancel(*beat);
  };
  ASSERT_TRUE(mock.timer().Add(beat, absl::Seconds(1)).ok());
  size_t runs = 0;
  for (int i = 0; i < 10; ++i) runs += mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(runs, 2u);
  EXPECT_FALSE(cancel_returned);  // No run was waiting: it was running.
  EXPECT_TRUE(absl::IsCancelled(beat->readd_status)) << beat->readd_status;
  EXPECT_EQ(beat->beats, 2);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  // After Run() returned the task is idle: it may be started again.
  ASSERT_TRUE(mock.timer().Add(beat, absl::Seconds(1)).ok());
  beat->before_readd = nullptr;
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_EQ(beat->beats, 3);
  EXPECT_TRUE(mock.timer().Cancel(*beat));
}

TEST(TimerTaskRunsTest, CancelFromAnotherThreadStopsARunningHeartbeat) {
  ManualClock clock;
  TimerOptions options;
  options.clock = &clock;
  options.start_reaper = false;  // Default executor: its own thread.
  auto timer = Timer::Create(options).value();
  auto beat = MakeTask<Heartbeat>(timer.get());
  Latch running;
  Latch cancelled;
  Latch finished;
  beat->before_readd = [&] {
    running.Open();
    EXPECT_TRUE(cancelled.Wait());
  };
  beat->after_readd = [&] { finished.Open(); };
  ASSERT_TRUE(timer->Add(beat, absl::Seconds(1)).ok());
  clock.AdvanceBy(absl::Seconds(1));
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  ASSERT_TRUE(running.Wait());
  EXPECT_FALSE(timer->Cancel(*beat));  // Running, nothing waiting yet...
  cancelled.Open();                    // ...but its re-add now fails.
  ASSERT_TRUE(finished.Wait());
  timer->Shutdown();
  EXPECT_TRUE(absl::IsCancelled(beat->readd_status)) << beat->readd_status;
  EXPECT_EQ(beat->beats, 1);
  EXPECT_EQ(timer->Metrics().pending, 0);
}

TEST(TimerTaskRunsTest, SubNanosecondDelaysRoundUpNotDown) {
  TimerOptions options;
  options.tick = absl::Nanoseconds(1);
  MockTimer mock(options);
  int runs = 0;
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Nanoseconds(7) + absl::Nanoseconds(1) / 2,
                            [&] { ++runs; })
                  .ok());
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Nanoseconds(1) / 4, [&] { ++runs; }).ok());
  EXPECT_EQ(mock.RunDue(), 0u);  // A quarter nanosecond is not "now".
  EXPECT_EQ(mock.AdvanceBy(absl::Nanoseconds(1)), 1u);
  EXPECT_EQ(mock.AdvanceBy(absl::Nanoseconds(6)), 0u);  // At 7 ns: early.
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Nanoseconds(1)), 1u);  // At 8 ns.
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace timingwheel
