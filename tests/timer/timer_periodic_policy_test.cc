// Copyright 2026 The timingwheel Authors.
//
// Timer::SchedulePeriodic() with PeriodicOptions: the missed-run policies
// (kSkip, kBurst, kDelay) after runs that overrun by 0.5, 1 and 3.5
// periods, a first run at a chosen instant, PeriodicHandle::Reset(),
// ResetAfter() and ResetAt() in every state, and EmbeddedTimer::
// TimeRemaining(). Deterministic with MockTimer (a manual clock, callbacks
// on the test's thread), except the tests named *Threads, which run on a
// thread pool (run them under --config=tsan).
//
// "Overruns by x periods" means a run that lasts (1 + x) periods: it ends
// x periods after the next grid point. All tests use a 10 ms period and
// record the clock at the start of every run.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/test_sync.h"
#include "timer/embedded_timer.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/mock_timer.h"
#include "timer/testing/pool_executor.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Latch;
using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::MockTimer;
using ::timingwheel::testing::PoolExecutor;

constexpr absl::Duration kPeriod = absl::Milliseconds(10);
constexpr int64_t kMs = 1'000'000;

// The size periodic_task.h and timer.h state (LP64): 24 bytes over a
// TimerTask's 40 for a callback without captures.
struct EmptyCallback {
  void operator()() const {}
};
static_assert(sizeof(void*) != 8 ||
              sizeof(internal::PeriodicTask<EmptyCallback>) == 64);

PeriodicOptions Options(MissedRuns missed) {
  PeriodicOptions options;
  options.missed = missed;
  return options;
}

// A series on `mock` that records, in ms, the clock at the start of each
// run; its first run lasts `first_run` (the clock moves on inside it).
class Recorder {
 public:
  Recorder(MockTimer& mock, const PeriodicOptions& options,
           absl::Duration first_run = absl::ZeroDuration())
      : mock_(mock) {
    handle = mock.timer()
                 .SchedulePeriodic(
                     kPeriod, options,
                     [this, first_run] {
                       starts_ms.push_back(mock_.clock().NowNanos() / kMs);
                       if (starts_ms.size() == 1) {
                         mock_.clock().AdvanceBy(first_run);
                       }
                     })
                 .value();
  }
  ~Recorder() { handle.Cancel(); }

  // Advances 1 ms at a time until the clock reads `until_ms`.
  void AdvanceTo(int64_t until_ms) {
    while (mock_.clock().NowNanos() < until_ms * kMs) {
      mock_.AdvanceBy(absl::Milliseconds(1));
    }
  }

  PeriodicHandle handle;
  std::vector<int64_t> starts_ms;

 private:
  MockTimer& mock_;
};

struct OverrunCase {
  double overrun_periods;
  // Run starts (ms) up to 100 ms, and the time to the next run just after
  // the late run's step.
  std::vector<int64_t> starts_ms;
  absl::Duration remaining_after_late_run;
};

// The first run is due at 10 ms and overruns; ends at 25, 30 or 55 ms.
void CheckOverruns(MissedRuns missed, const std::vector<OverrunCase>& cases) {
  for (const OverrunCase& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "overrun by " << c.overrun_periods << " periods");
    MockTimer mock;
    Recorder recorder(mock, Options(missed), kPeriod * (1 + c.overrun_periods));
    mock.AdvanceBy(absl::Milliseconds(10));  // The late run, and any burst.
    EXPECT_EQ(recorder.handle.TimeRemaining(), c.remaining_after_late_run);
    recorder.AdvanceTo(100);
    EXPECT_EQ(recorder.starts_ms, c.starts_ms);
    // One task for the whole series, never more than one pending.
    EXPECT_EQ(mock.timer().NumPending(), 1);
    EXPECT_EQ(mock.timer().Metrics().expired,
              static_cast<int64_t>(c.starts_ms.size()));
  }
}

TEST(PeriodicPolicyTest, SkipAfterOverrunsGoesToTheNextGridPoint) {
  CheckOverruns(
      MissedRuns::kSkip,
      {
          // Ends at 25: 20 is dropped, 30 is next.
          {0.5, {10, 30, 40, 50, 60, 70, 80, 90, 100}, absl::Milliseconds(5)},
          // Ends at 30, on a grid point: that run is due at once.
          {1.0, {10, 30, 40, 50, 60, 70, 80, 90, 100}, kPeriod},
          // Ends at 55: 20 to 50 are dropped.
          {3.5, {10, 60, 70, 80, 90, 100}, absl::Milliseconds(5)},
      });
}

TEST(PeriodicPolicyTest, BurstAfterOverrunsMakesUpEveryMissedRun) {
  CheckOverruns(MissedRuns::kBurst,
                {
                    // The run due at 20 runs at 25, then the grid: 30, 40, ...
                    {0.5,
                     {10, 25, 30, 40, 50, 60, 70, 80, 90, 100},
                     absl::Milliseconds(5)},
                    // The runs due at 20 and 30 both run at 30, back to back.
                    {1.0, {10, 30, 30, 40, 50, 60, 70, 80, 90, 100}, kPeriod},
                    // The runs due at 20, 30, 40 and 50 run at 55, then 60.
                    {3.5,
                     {10, 55, 55, 55, 55, 60, 70, 80, 90, 100},
                     absl::Milliseconds(5)},
                });
}

TEST(PeriodicPolicyTest, DelayAfterOverrunsRestartsTheGridAtTheEnd) {
  CheckOverruns(MissedRuns::kDelay,
                {
                    {0.5, {10, 35, 45, 55, 65, 75, 85, 95}, kPeriod},
                    {1.0, {10, 40, 50, 60, 70, 80, 90, 100}, kPeriod},
                    {3.5, {10, 65, 75, 85, 95}, kPeriod},
                });
}

// A run that starts late (one advance over several periods) is late too.
TEST(PeriodicPolicyTest, SkipBurstDelayAfterALateStart) {
  struct Case {
    MissedRuns missed;
    std::vector<int64_t> starts_ms;
  };
  for (const Case& c : {Case{MissedRuns::kSkip, {35, 40, 50}},
                        Case{MissedRuns::kBurst, {35, 35, 35, 40, 50}},
                        Case{MissedRuns::kDelay, {35, 45}}}) {
    SCOPED_TRACE(static_cast<int>(c.missed));
    MockTimer mock;
    Recorder recorder(mock, Options(c.missed));
    mock.AdvanceBy(absl::Milliseconds(35));  // Due at 10, 20 and 30.
    recorder.AdvanceTo(50);
    EXPECT_EQ(recorder.starts_ms, c.starts_ms);
  }
}

TEST(PeriodicPolicyTest, RunsThatEndOnTheNextGridPointAreOnTime) {
  for (MissedRuns missed :
       {MissedRuns::kSkip, MissedRuns::kBurst, MissedRuns::kDelay}) {
    SCOPED_TRACE(static_cast<int>(missed));
    MockTimer mock;
    // The first three runs last exactly one period: each ends when the
    // next is due, which is on time (not late) for every policy.
    std::vector<int64_t> starts_ms;
    PeriodicHandle handle =
        mock.timer()
            .SchedulePeriodic(
                kPeriod, Options(missed),
                [&] {
                  starts_ms.push_back(mock.clock().NowNanos() / kMs);
                  if (starts_ms.size() <= 3) {
                    mock.clock().AdvanceBy(kPeriod);
                  }
                })
            .value();
    while (mock.clock().NowNanos() < 60 * kMs) {
      mock.AdvanceBy(absl::Milliseconds(1));
    }
    EXPECT_EQ(starts_ms, (std::vector<int64_t>{10, 20, 30, 40, 50, 60}));
    handle.Cancel();
  }
}

TEST(PeriodicPolicyTest, BurstNeverRunsConcurrentlyWithItselfThreads) {
  ManualClock clock;
  PoolExecutor pool(4);
  TimerOptions timer_options;
  timer_options.clock = &clock;
  timer_options.executor = &pool;
  timer_options.start_reaper = false;
  std::unique_ptr<Timer> timer = Timer::Create(timer_options).value();

  std::atomic<int> active{0};
  std::atomic<int> max_active{0};
  std::atomic<int> runs{0};
  PeriodicOptions options = Options(MissedRuns::kBurst);
  options.start = timer->Now();  // Grid 0, 1, 2, ... ms.
  PeriodicHandle handle =
      timer
          ->SchedulePeriodic(
              absl::Milliseconds(1), options,
              [&] {
                const int now_active = active.fetch_add(1) + 1;
                int seen = max_active.load();
                while (now_active > seen &&
                       !max_active.compare_exchange_weak(seen, now_active)) {
                }
                // The first run overruns by 49 periods: 50 runs to make up.
                if (runs.fetch_add(1) == 0) {
                  clock.AdvanceBy(absl::Milliseconds(50));
                }
                for (int i = 0; i < 20; ++i) std::this_thread::yield();
                active.fetch_sub(1);
              })
          .value();
  // Flush whatever is due until the burst is over (a bounded spin: the
  // clock does not move, every run is due at once).
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (runs.load() < 51 && std::chrono::steady_clock::now() < give_up) {
    timer->AdvanceClock(absl::ZeroDuration());
    std::this_thread::yield();
  }
  ASSERT_TRUE(pool.AwaitIdle(absl::Seconds(15)));
  timer->AdvanceClock(absl::ZeroDuration());  // Nothing more is due.
  ASSERT_TRUE(pool.AwaitIdle(absl::Seconds(15)));
  EXPECT_EQ(runs.load(), 51);  // Grid points 0 to 50.
  EXPECT_EQ(max_active.load(), 1);
  EXPECT_EQ(handle.TimeRemaining(), absl::Milliseconds(1));  // 51 ms.

  // Resets racing the runs (each to a passed instant: due at once) never
  // make it overlap itself either.
  clock.AdvanceBy(absl::Milliseconds(100));
  const int before = runs.load();
  const auto give_up2 =
      std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (runs.load() < before + 200 &&
         std::chrono::steady_clock::now() < give_up2) {
    EXPECT_TRUE(handle.ResetAt(timer->Now() - absl::Milliseconds(3)));
    timer->AdvanceClock(absl::ZeroDuration());
  }
  handle.Cancel();
  ASSERT_TRUE(pool.AwaitIdle(absl::Seconds(15)));
  EXPECT_GE(runs.load(), before + 200);
  EXPECT_EQ(max_active.load(), 1);
  EXPECT_FALSE(handle.ResetAt(timer->Now()));  // Cancelled: ended.
  timer->Shutdown();
}

TEST(PeriodicPolicyTest, StartInTheFuture) {
  MockTimer mock;
  PeriodicOptions options;
  options.start = mock.timer().Now() + absl::Milliseconds(25);
  Recorder recorder(mock, options);
  EXPECT_EQ(recorder.handle.TimeRemaining(), absl::Milliseconds(25));
  recorder.AdvanceTo(24);
  EXPECT_TRUE(recorder.starts_ms.empty());
  recorder.AdvanceTo(50);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{25, 35, 45}));
}

TEST(PeriodicPolicyTest, StartNowRunsOnTheNextAdvance) {
  MockTimer mock;
  mock.AdvanceBy(absl::Milliseconds(3));
  PeriodicOptions options;
  options.start = mock.timer().Now();
  Recorder recorder(mock, options);
  EXPECT_EQ(recorder.handle.TimeRemaining(), absl::ZeroDuration());
  EXPECT_TRUE(recorder.starts_ms.empty());  // Never on the caller's thread.
  mock.RunDue();
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{3}));
  recorder.AdvanceTo(25);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{3, 13, 23}));
}

TEST(PeriodicPolicyTest, StartInThePastFollowsThePolicyOnItsGrid) {
  struct Case {
    MissedRuns missed;
    std::vector<int64_t> starts_ms;
  };
  // At 100 ms, a start at 65 ms: the first run is due at once; the grid
  // points 75, 85 and 95 have passed too.
  for (const Case& c :
       {Case{MissedRuns::kSkip, {100, 105, 115}},
        Case{MissedRuns::kBurst, {100, 100, 100, 100, 105, 115}},
        Case{MissedRuns::kDelay, {100, 110}}}) {
    SCOPED_TRACE(static_cast<int>(c.missed));
    MockTimer mock;
    mock.AdvanceBy(absl::Milliseconds(100));
    PeriodicOptions options = Options(c.missed);
    options.start = mock.timer().Now() - absl::Milliseconds(35);
    Recorder recorder(mock, options);
    EXPECT_EQ(recorder.handle.TimeRemaining(), absl::ZeroDuration());
    mock.RunDue();
    recorder.AdvanceTo(118);
    EXPECT_EQ(recorder.starts_ms, c.starts_ms);
  }
}

TEST(PeriodicPolicyTest, StartBeforeTheTimerWasCreatedKeepsItsGrid) {
  // MockTimer's clock starts at 0, the timer's origin: a start at -25 ms
  // has grid points at -5, 5, 15, ... ms. Runs before the timer existed
  // are not made up, even with kBurst.
  for (MissedRuns missed : {MissedRuns::kSkip, MissedRuns::kBurst}) {
    MockTimer mock;
    PeriodicOptions options = Options(missed);
    options.start = TimePoint::FromNanos(-25 * kMs);
    Recorder recorder(mock, options);
    mock.RunDue();
    recorder.AdvanceTo(16);
    EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{0, 5, 15}));
  }
}

TEST(PeriodicPolicyTest, SameErrorsAsTheOldOverload) {
  MockTimer mock;
  EXPECT_EQ(
      mock.timer()
          .SchedulePeriodic(absl::ZeroDuration(), PeriodicOptions(), [] {})
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mock.timer()
                .SchedulePeriodic(-kPeriod, Options(MissedRuns::kBurst), [] {})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mock.timer().Metrics().added, 0);
  mock.timer().Shutdown();
  EXPECT_EQ(mock.timer()
                .SchedulePeriodic(kPeriod, Options(MissedRuns::kDelay), [] {})
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(PeriodicPolicyTest, ResetBeforeTheFirstRun) {
  MockTimer mock;
  Recorder recorder(mock, PeriodicOptions());
  mock.AdvanceBy(absl::Milliseconds(4));
  EXPECT_TRUE(recorder.handle.Reset());  // One period from now: 14 ms.
  EXPECT_EQ(recorder.handle.TimeRemaining(), kPeriod);
  recorder.AdvanceTo(13);
  EXPECT_TRUE(recorder.starts_ms.empty());
  recorder.AdvanceTo(34);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{14, 24, 34}));
  EXPECT_EQ(mock.timer().NumPending(), 1);
}

TEST(PeriodicPolicyTest, ResetAfterAndResetAtMoveTheGrid) {
  MockTimer mock;
  Recorder recorder(mock, PeriodicOptions());
  recorder.AdvanceTo(10);  // Ran at 10; next at 20.
  EXPECT_TRUE(recorder.handle.ResetAfter(absl::Milliseconds(3)));
  EXPECT_EQ(recorder.handle.TimeRemaining(), absl::Milliseconds(3));
  recorder.AdvanceTo(23);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{10, 13, 23}));
  EXPECT_TRUE(
      recorder.handle.ResetAt(mock.timer().Now() + absl::Milliseconds(8)));
  recorder.AdvanceTo(41);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{10, 13, 23, 31, 41}));
  // Zero and negative delays: at the next advance, not on this thread.
  EXPECT_TRUE(recorder.handle.ResetAfter(-absl::Milliseconds(1)));
  EXPECT_EQ(recorder.handle.TimeRemaining(), absl::ZeroDuration());
  EXPECT_EQ(recorder.starts_ms.size(), 5u);
  mock.RunDue();
  recorder.AdvanceTo(51);
  EXPECT_EQ(recorder.starts_ms,
            (std::vector<int64_t>{10, 13, 23, 31, 41, 41, 51}));
}

TEST(PeriodicPolicyTest, ResetAtAPassedInstantRunsAtOnceThenFollowsThePolicy) {
  struct Case {
    MissedRuns missed;
    std::vector<int64_t> starts_ms;
  };
  // At 40 ms, ResetAt(5 ms): due at once; its grid is 5, 15, 25, 35, 45.
  for (const Case& c : {Case{MissedRuns::kSkip, {40, 45, 55}},
                        Case{MissedRuns::kBurst, {40, 40, 40, 40, 45, 55}},
                        Case{MissedRuns::kDelay, {40, 50}}}) {
    SCOPED_TRACE(static_cast<int>(c.missed));
    MockTimer mock;
    PeriodicOptions options = Options(c.missed);
    options.start = mock.timer().Now() + absl::Seconds(1);
    Recorder recorder(mock, options);
    mock.AdvanceBy(absl::Milliseconds(40));
    EXPECT_TRUE(recorder.handle.ResetAt(TimePoint::FromNanos(5 * kMs)));
    EXPECT_EQ(recorder.handle.TimeRemaining(), absl::ZeroDuration());
    mock.RunDue();
    recorder.AdvanceTo(55);
    EXPECT_EQ(recorder.starts_ms, c.starts_ms);
  }
}

TEST(PeriodicPolicyTest, ResetAQueuedRunMovesIt) {
  MockTimer mock;
  Recorder recorder(mock, PeriodicOptions());
  mock.clock().AdvanceBy(kPeriod);
  ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));  // Queued.
  EXPECT_TRUE(recorder.handle.scheduled());
  EXPECT_TRUE(recorder.handle.ResetAfter(absl::Milliseconds(5)));
  mock.executor().RunAll();  // The batch skips the moved run.
  EXPECT_TRUE(recorder.starts_ms.empty());
  recorder.AdvanceTo(25);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{15, 25}));
  EXPECT_EQ(mock.timer().NumPending(), 1);
}

// A reset from inside the run (the run is in progress, as for one from
// another thread while it runs): the run is not repeated; its re-arm puts
// the next run at the reset's instant, on the new grid.
TEST(PeriodicPolicyTest, ResetDuringARunAppliesToItsReArm) {
  MockTimer mock;
  std::vector<int64_t> starts_ms;
  bool reset_result = false;
  PeriodicHandle handle;
  handle = mock.timer()
               .SchedulePeriodic(
                   kPeriod,
                   [&] {
                     starts_ms.push_back(mock.clock().NowNanos() / kMs);
                     if (starts_ms.size() == 1) {
                       reset_result = handle.ResetAfter(absl::Milliseconds(3));
                       // Not re-added yet: still running.
                       EXPECT_FALSE(handle.scheduled());
                     }
                   })
               .value();
  mock.AdvanceBy(kPeriod);
  EXPECT_TRUE(reset_result);
  EXPECT_EQ(starts_ms, (std::vector<int64_t>{10}));
  EXPECT_EQ(handle.TimeRemaining(), absl::Milliseconds(3));
  for (int i = 0; i < 20; ++i) mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(starts_ms, (std::vector<int64_t>{10, 13, 23}));
  EXPECT_EQ(mock.timer().NumPending(), 1);
  handle.Cancel();
  handle = PeriodicHandle();
}

TEST(PeriodicPolicyTest, ResetDuringARunThatOutlastsIt) {
  struct Case {
    MissedRuns missed;
    std::vector<int64_t> starts_ms;
  };
  // The run at 10 resets to 15 and ends at 30: the next run is due at once
  // (its grid point 15 passed), and that run is late for 25.
  for (const Case& c : {Case{MissedRuns::kSkip, {10, 30, 35, 45}},
                        Case{MissedRuns::kBurst, {10, 30, 30, 35, 45}},
                        Case{MissedRuns::kDelay, {10, 30, 40}}}) {
    SCOPED_TRACE(static_cast<int>(c.missed));
    MockTimer mock;
    std::vector<int64_t> starts_ms;
    PeriodicHandle handle;
    handle = mock.timer()
                 .SchedulePeriodic(
                     kPeriod, Options(c.missed),
                     [&] {
                       starts_ms.push_back(mock.clock().NowNanos() / kMs);
                       if (starts_ms.size() == 1) {
                         EXPECT_TRUE(handle.ResetAfter(absl::Milliseconds(5)));
                         mock.clock().AdvanceBy(absl::Milliseconds(20));
                       }
                     })
                 .value();
    mock.AdvanceBy(kPeriod);
    while (mock.clock().NowNanos() < 45 * kMs) {
      mock.AdvanceBy(absl::Milliseconds(1));
    }
    EXPECT_EQ(starts_ms, c.starts_ms);
    handle.Cancel();
    handle = PeriodicHandle();
  }
}

TEST(PeriodicPolicyTest, ResetFromAnotherThreadDuringARunThreads) {
  ManualClock clock;
  PoolExecutor pool(2);
  TimerOptions timer_options;
  timer_options.clock = &clock;
  timer_options.executor = &pool;
  timer_options.start_reaper = false;
  std::unique_ptr<Timer> timer = Timer::Create(timer_options).value();
  Latch running;
  Latch release;
  std::atomic<int> runs{0};
  PeriodicHandle handle = timer
                              ->SchedulePeriodic(kPeriod,
                                                 [&] {
                                                   if (runs.fetch_add(1) == 0) {
                                                     running.Open();
                                                     release.Wait();
                                                   }
                                                 })
                              .value();
  clock.AdvanceBy(kPeriod);
  timer->AdvanceClock(absl::ZeroDuration());
  ASSERT_TRUE(running.Wait());  // The run due at 10 ms is in progress.
  EXPECT_TRUE(handle.ResetAfter(absl::Milliseconds(3)));  // To 13 ms.
  EXPECT_FALSE(handle.scheduled());  // Not added beside the run.
  release.Open();
  ASSERT_TRUE(pool.AwaitIdle(absl::Seconds(15)));
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(handle.TimeRemaining(), absl::Milliseconds(3));
  clock.AdvanceBy(absl::Milliseconds(3));
  timer->AdvanceClock(absl::ZeroDuration());
  ASSERT_TRUE(pool.AwaitIdle(absl::Seconds(15)));
  EXPECT_EQ(runs.load(), 2);
  EXPECT_EQ(handle.TimeRemaining(), kPeriod);  // The grid goes on: 23 ms.
  handle.Cancel();
  timer->Shutdown();
}

// For an owner's event loop: a reset that makes the timer's next due
// instant earlier calls on_next_due_earlier, as a reschedule does.
TEST(PeriodicPolicyTest, ResetEarlierCallsTheNextDueEarlierHook) {
  TimerOptions options;
  int earlier = 0;
  options.on_next_due_earlier = [&] { ++earlier; };
  MockTimer mock(options);
  Recorder recorder(mock, PeriodicOptions());
  const int after_add = earlier;
  EXPECT_TRUE(recorder.handle.ResetAfter(absl::Seconds(1)));  // Later.
  EXPECT_EQ(earlier, after_add);
  EXPECT_TRUE(recorder.handle.ResetAfter(absl::Milliseconds(1)));  // Earlier.
  EXPECT_EQ(earlier, after_add + 1);
  EXPECT_LE(mock.timer().NextDueIn(), absl::Milliseconds(1));
}

TEST(PeriodicPolicyTest, ResetAfterCancelDoesNothing) {
  MockTimer mock;
  Recorder recorder(mock, PeriodicOptions());
  recorder.AdvanceTo(10);
  recorder.handle.Cancel();
  EXPECT_FALSE(recorder.handle.Reset());
  EXPECT_FALSE(recorder.handle.ResetAfter(absl::Milliseconds(1)));
  EXPECT_FALSE(recorder.handle.ResetAt(mock.timer().Now()));
  EXPECT_FALSE(recorder.handle.scheduled());
  recorder.AdvanceTo(50);
  EXPECT_EQ(recorder.starts_ms, (std::vector<int64_t>{10}));
  EXPECT_EQ(mock.timer().NumPending(), 0);
  EXPECT_FALSE(PeriodicHandle().Reset());  // An empty handle.
}

TEST(PeriodicPolicyTest, ResetAfterCancelDuringTheRunDoesNothing) {
  MockTimer mock;
  int runs = 0;
  bool reset_result = true;
  PeriodicHandle handle;
  handle = mock.timer()
               .SchedulePeriodic(kPeriod,
                                 [&] {
                                   ++runs;
                                   handle.Cancel();
                                   reset_result =
                                       handle.ResetAfter(absl::Milliseconds(1));
                                 })
               .value();
  mock.AdvanceBy(kPeriod);
  EXPECT_FALSE(reset_result);
  mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(mock.timer().NumPending(), 0);
  handle = PeriodicHandle();
}

TEST(PeriodicPolicyTest, ResetAfterShutdownOrTheTimersDeathDoesNothing) {
  auto mock = std::make_unique<MockTimer>();
  int runs = 0;
  PeriodicHandle handle =
      mock->timer().SchedulePeriodic(kPeriod, [&] { ++runs; }).value();
  mock->timer().Shutdown();
  EXPECT_FALSE(handle.Reset());
  EXPECT_FALSE(handle.ResetAt(TimePoint()));
  mock.reset();
  EXPECT_FALSE(handle.ResetAfter(absl::Milliseconds(1)));
  EXPECT_EQ(runs, 0);
}

TEST(PeriodicPolicyTest, NextPeriodicDueOnTime) {
  using internal::NextPeriodicDue;
  for (MissedRuns missed :
       {MissedRuns::kSkip, MissedRuns::kBurst, MissedRuns::kDelay}) {
    EXPECT_EQ(NextPeriodicDue(missed, 10, 10, 12), 20);
    EXPECT_EQ(NextPeriodicDue(missed, 10, 10, 20), 20);  // Ends on it.
    EXPECT_EQ(NextPeriodicDue(missed, -5, 10, 0), 5);    // Before origin.
  }
}

TEST(PeriodicPolicyTest, NextPeriodicDueLate) {
  using internal::NextPeriodicDue;
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kSkip, 10, 10, 21), 30);
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kSkip, 10, 10, 30), 30);
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kSkip, 10, 10, 55), 60);
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kBurst, 10, 10, 55), 20);
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kDelay, 10, 10, 55), 65);
}

TEST(PeriodicPolicyTest, NextPeriodicDueSaturates) {
  using internal::NextPeriodicDue;
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  for (MissedRuns missed :
       {MissedRuns::kSkip, MissedRuns::kBurst, MissedRuns::kDelay}) {
    EXPECT_EQ(NextPeriodicDue(missed, kNever - 5, 10, 0), kNever);
    EXPECT_EQ(NextPeriodicDue(missed, 0, internal::kMaxPeriodNanos, 0), kNever);
  }
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kSkip, 0, int64_t{1} << 60, kNever - 1),
            kNever);
  EXPECT_EQ(NextPeriodicDue(MissedRuns::kDelay, 0, 10, kNever - 3), kNever);
}

// The embedded timer for the tests below: counts runs, and reads its own
// TimeRemaining() while it runs.
class Probe : public EmbeddedTimer {
 public:
  ~Probe() override { Cancel(); }
  int runs = 0;
  absl::Duration remaining_while_running;

 private:
  void OnTimer() override {
    ++runs;
    remaining_while_running = TimeRemaining();
  }
};

TEST(EmbeddedTimeRemainingTest, PendingDueQueuedRanCancelled) {
  MockTimer mock;
  Probe probe;
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());  // Never.
  ASSERT_TRUE(probe.Schedule(mock.timer(), kPeriod).ok());
  EXPECT_EQ(probe.TimeRemaining(), kPeriod);  // Pending.
  mock.AdvanceBy(absl::Milliseconds(4));
  EXPECT_EQ(probe.TimeRemaining(), absl::Milliseconds(6));
  mock.clock().AdvanceBy(absl::Milliseconds(7));  // Due, not flushed.
  EXPECT_EQ(probe.TimeRemaining(), absl::ZeroDuration());
  ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(probe.TimeRemaining(), absl::ZeroDuration());  // Queued.
  mock.executor().RunAll();
  EXPECT_EQ(probe.runs, 1);
  EXPECT_EQ(probe.remaining_while_running, absl::InfiniteDuration());
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());  // Ran.
  ASSERT_TRUE(probe.Schedule(mock.timer(), absl::Hours(1)).ok());
  EXPECT_EQ(probe.TimeRemaining(), absl::Hours(1));
  EXPECT_TRUE(probe.Cancel());
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());  // Cancelled.
  ASSERT_TRUE(probe.Schedule(mock.timer(), absl::InfiniteDuration()).ok());
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());  // Never due.
}

TEST(EmbeddedTimeRemainingTest, CancelledWhileQueued) {
  MockTimer mock;
  Probe probe;
  ASSERT_TRUE(probe.Schedule(mock.timer(), kPeriod).ok());
  mock.clock().AdvanceBy(kPeriod);
  ASSERT_TRUE(mock.timer().AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(probe.TimeRemaining(), absl::ZeroDuration());
  EXPECT_TRUE(probe.Cancel());
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());
  mock.executor().RunAll();
  EXPECT_EQ(probe.runs, 0);
}

TEST(EmbeddedTimeRemainingTest, InfiniteOnceTheTimerIsShutDownOrGone) {
  auto mock = std::make_unique<MockTimer>();
  Probe probe;
  ASSERT_TRUE(probe.Schedule(mock->timer(), kPeriod).ok());
  mock->timer().Shutdown();
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());
  mock.reset();
  EXPECT_EQ(probe.TimeRemaining(), absl::InfiniteDuration());
}

}  // namespace
}  // namespace timingwheel
