// Copyright 2026 The timingwheel Authors.
//
// Behaviour of Timer driven by MockTimer (the real wheel on a manual clock,
// callbacks run inside AdvanceBy()): timing, cancel, re-add, callbacks that
// add, cancel, throw or shut down, limits, option validation, shutdown, a
// clock that steps backwards, saturated delays and the metrics' balance.

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::MockTimer;

int64_t Nanos(absl::Duration d) { return absl::ToInt64Nanoseconds(d); }

// A task that counts its runs and its destruction, and records the clock
// reading of its last run.
class CountingTask final : public TimerTask {
 public:
  CountingTask(Clock* clock, std::atomic<int>* destroyed = nullptr)
      : clock_(clock), destroyed_(destroyed) {}
  ~CountingTask() override {
    if (destroyed_ != nullptr) ++*destroyed_;
  }
  void Run() override {
    ++runs;
    ran_at = clock_->NowNanos();
  }

  std::atomic<int> runs{0};
  int64_t ran_at = -1;

 private:
  Clock* const clock_;
  std::atomic<int>* const destroyed_;
};

TimerOptions SmallWheel() {
  TimerOptions options;
  options.tick = absl::Milliseconds(10);
  options.wheel_size = 8;
  return options;
}

void ExpectBalanced(const Timer& timer) {
  const TimerMetrics m = timer.Metrics();
  EXPECT_EQ(m.added, m.expired + m.cancelled + m.pending)
      << "added " << m.added << " expired " << m.expired << " cancelled "
      << m.cancelled << " pending " << m.pending;
}

TEST(TimerMockTest, ZeroAndNegativeDelaysRunOnTheNextAdvanceNotInline) {
  MockTimer mock;
  int zero = 0;
  int negative = 0;
  int very_negative = 0;
  ASSERT_TRUE(
      mock.timer().Schedule(absl::ZeroDuration(), [&] { ++zero; }).ok());
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Seconds(-5), [&] { ++negative; }).ok());
  ASSERT_TRUE(mock.timer()
                  .Schedule(-absl::InfiniteDuration(), [&] { ++very_negative; })
                  .ok());
  // Nothing ran on the caller's thread inside Schedule().
  EXPECT_EQ(zero + negative + very_negative, 0);
  EXPECT_EQ(mock.timer().NumPending(), 3);
  // Due now: the next advance runs them without moving the clock.
  EXPECT_EQ(mock.RunDue(), 3u);
  EXPECT_EQ(zero, 1);
  EXPECT_EQ(negative, 1);
  EXPECT_EQ(very_negative, 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(10)), 0u);
  EXPECT_EQ(zero + negative + very_negative, 3);
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, HundredsOfTasksWithDistinctAndSharedDelaysRunOnceOnTime) {
  MockTimer mock(SmallWheel());
  constexpr int kTasks = 600;
  std::vector<int> runs(kTasks, 0);
  std::vector<int64_t> due(kTasks);
  std::vector<int64_t> ran_at(kTasks, -1);
  for (int i = 0; i < kTasks; ++i) {
    // Even ids share 30 delays; odd ids have distinct delays (sub-tick too).
    const absl::Duration delay = i % 2 == 0 ? absl::Milliseconds(17 * (i % 30))
                                            : absl::Microseconds(1'337 * i + 1);
    due[i] = Nanos(delay);
    ASSERT_TRUE(mock.timer()
                    .Schedule(delay,
                              [&, i] {
                                ++runs[i];
                                ran_at[i] = mock.clock().NowNanos();
                              })
                    .ok());
  }
  // Step by 0.25 ms: every distinct due instant falls inside some step.
  int64_t last = -1;
  while (mock.clock().NowNanos() < Nanos(absl::Seconds(1))) {
    mock.AdvanceBy(absl::Microseconds(250));
    const int64_t now = mock.clock().NowNanos();
    for (int i = 0; i < kTasks; ++i) {
      if (due[i] <= last) continue;
      // Due within this step: must have run exactly at this reading.
      if (due[i] <= now) {
        ASSERT_EQ(runs[i], 1) << "task " << i << " due " << due[i];
        ASSERT_EQ(ran_at[i], now) << "task " << i;
      } else {
        ASSERT_EQ(runs[i], 0) << "task " << i << " ran early";
      }
    }
    last = now;
  }
  for (int i = 0; i < kTasks; ++i) EXPECT_EQ(runs[i], 1) << i;
  EXPECT_EQ(mock.timer().NumPending(), 0);
  EXPECT_EQ(mock.timer().Metrics().expired, kTasks);
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, TaskBeyondTheWheelRunsAtExactlyItsDueTime) {
  MockTimer mock(SmallWheel());  // Level 0 covers 80 ms.
  int64_t ran_at = -1;
  int runs = 0;
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Milliseconds(270),
                            [&] {
                              ++runs;
                              ran_at = mock.clock().NowNanos();
                            })
                  .ok());
  EXPECT_GE(mock.timer().Metrics().levels, 2);
  for (int step = 0; step < 3000; ++step) {
    mock.AdvanceBy(absl::Microseconds(100));
    if (mock.clock().NowNanos() < Nanos(absl::Milliseconds(270))) {
      ASSERT_EQ(runs, 0) << "ran early at " << mock.clock().NowNanos();
    }
  }
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(ran_at, Nanos(absl::Milliseconds(270)));
}

TEST(TimerMockTest, SubTickDeadlinesAreExact) {
  MockTimer mock(SmallWheel());
  std::vector<int64_t> ran_at;
  for (int us : {10'001, 10'002, 19'999, 95'000}) {
    ASSERT_TRUE(
        mock.timer()
            .Schedule(absl::Microseconds(us),
                      [&] { ran_at.push_back(mock.clock().NowNanos()); })
            .ok());
  }
  while (mock.clock().NowNanos() < Nanos(absl::Milliseconds(100))) {
    mock.AdvanceBy(absl::Microseconds(1));
  }
  EXPECT_EQ(ran_at, (std::vector<int64_t>{10'001'000, 10'002'000, 19'999'000,
                                          95'000'000}));
}

TEST(TimerMockTest, CancelBeforeDuringAndAfterFiring) {
  MockTimer mock(SmallWheel());
  int before_runs = 0;
  TimerHandle before =
      mock.timer()
          .Schedule(absl::Milliseconds(30), [&] { ++before_runs; })
          .value();
  EXPECT_TRUE(before.pending());
  EXPECT_TRUE(before.Cancel());
  EXPECT_FALSE(before.pending());
  EXPECT_FALSE(before.Cancel());  // Twice: the second finds nothing.

  TimerHandle during;
  int during_runs = 0;
  bool cancel_inside = true;
  during = mock.timer()
               .Schedule(absl::Milliseconds(40),
                         [&] {
                           ++during_runs;
                           cancel_inside = during.Cancel();
                         })
               .value();

  int after_runs = 0;
  TimerHandle after =
      mock.timer()
          .Schedule(absl::Milliseconds(50), [&] { ++after_runs; })
          .value();

  mock.AdvanceBy(absl::Milliseconds(100));
  EXPECT_EQ(before_runs, 0);
  EXPECT_EQ(during_runs, 1);
  EXPECT_FALSE(cancel_inside);  // Running: too late to cancel.
  EXPECT_EQ(after_runs, 1);
  EXPECT_FALSE(after.Cancel());  // Ran already.
  EXPECT_FALSE(after.pending());
  EXPECT_FALSE(TimerHandle().Cancel());  // An empty handle.

  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.cancelled, 1);
  EXPECT_EQ(m.expired, 2);
  EXPECT_EQ(m.pending, 0);
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, DroppingAHandleDoesNotCancel) {
  MockTimer mock;
  int runs = 0;
  {
    TimerHandle handle =
        mock.timer().Schedule(absl::Milliseconds(5), [&] { ++runs; }).value();
  }
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Milliseconds(6), [&] { ++runs; }).ok());
  EXPECT_EQ(mock.timer().NumPending(), 2);
  mock.AdvanceBy(absl::Milliseconds(6));
  EXPECT_EQ(runs, 2);
}

TEST(TimerMockTest, ReAddOfAPendingTaskMovesIt) {
  MockTimer mock(SmallWheel());
  auto later = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(later, absl::Milliseconds(100)).ok());
  ASSERT_TRUE(mock.timer().Add(later, absl::Milliseconds(300)).ok());
  auto sooner = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(sooner, absl::Milliseconds(900)).ok());
  ASSERT_TRUE(mock.timer().Add(sooner, absl::Milliseconds(45)).ok());
  EXPECT_EQ(mock.timer().NumPending(), 2);

  for (int ms = 0; ms < 1000; ++ms) mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(later->runs, 1);
  EXPECT_EQ(later->ran_at, Nanos(absl::Milliseconds(300)));
  EXPECT_EQ(sooner->runs, 1);
  EXPECT_EQ(sooner->ran_at, Nanos(absl::Milliseconds(45)));
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.added, 4);  // Moves count as adds...
  EXPECT_EQ(m.expired, 2);
  EXPECT_EQ(m.cancelled, 0);  // ...not as cancels.
  EXPECT_EQ(m.pending, 0);
}

TEST(TimerMockTest, ReAddAfterItRanSchedulesItAgain) {
  MockTimer mock;
  auto task = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(task, absl::Milliseconds(10)).ok());
  mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(task->runs, 1);
  ASSERT_TRUE(mock.timer().Add(task, absl::Milliseconds(10)).ok());
  EXPECT_EQ(mock.timer().NumPending(), 1);
  mock.AdvanceBy(absl::Milliseconds(9));
  EXPECT_EQ(task->runs, 1);
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(task->runs, 2);
  EXPECT_EQ(task->ran_at, Nanos(absl::Milliseconds(20)));
  // And after a cancel.
  ASSERT_TRUE(mock.timer().Add(task, absl::Milliseconds(10)).ok());
  EXPECT_TRUE(mock.timer().Cancel(*task));
  ASSERT_TRUE(mock.timer().Add(task, absl::Milliseconds(10)).ok());
  mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(task->runs, 3);
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, CallbacksAddAndCancelTimers) {
  MockTimer mock(SmallWheel());
  int child_runs = 0;
  int victim_runs = 0;
  int64_t child_ran_at = -1;
  TimerHandle victim =
      mock.timer()
          .Schedule(absl::Milliseconds(500), [&] { ++victim_runs; })
          .value();
  bool cancelled_victim = false;
  int immediate_runs = 0;
  ASSERT_TRUE(
      mock.timer()
          .Schedule(absl::Milliseconds(100),
                    [&] {
                      cancelled_victim = victim.Cancel();
                      ASSERT_TRUE(mock.timer()
                                      .Schedule(absl::Milliseconds(250),
                                                [&] {
                                                  ++child_runs;
                                                  child_ran_at =
                                                      mock.clock().NowNanos();
                                                })
                                      .ok());
                      ASSERT_TRUE(mock.timer()
                                      .Schedule(absl::ZeroDuration(),
                                                [&] { ++immediate_runs; })
                                      .ok());
                    })
          .ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(100)), 2u);  // Parent, then 0.
  EXPECT_TRUE(cancelled_victim);
  EXPECT_EQ(immediate_runs, 1);
  for (int ms = 0; ms < 600; ++ms) mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(child_runs, 1);
  EXPECT_EQ(child_ran_at, Nanos(absl::Milliseconds(350)));
  EXPECT_EQ(victim_runs, 0);
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, ThrowingCallbacksAreCountedAndOthersStillRun) {
  TimerOptions options;
  std::vector<std::string> errors;
  options.on_callback_error = [&](std::exception_ptr error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    } catch (int) {
      errors.push_back("int");
    }
    throw std::runtime_error("the hook's own failure is swallowed");
  };
  MockTimer mock(options);
  int ok_runs = 0;
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Milliseconds(1),
                            [] { throw std::runtime_error("first"); })
                  .ok());
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Milliseconds(1), [&] { ++ok_runs; }).ok());
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Milliseconds(2), [] { throw 42; }).ok());
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Milliseconds(3), [&] { ++ok_runs; }).ok());
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(5)), 4u);
  EXPECT_EQ(ok_runs, 2);
  EXPECT_EQ(errors, (std::vector<std::string>{"first", "int"}));
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.callback_errors, 2);
  EXPECT_EQ(m.expired, 4);
}

TEST(TimerMockTest, ShutdownFromItsOwnCallbackDoesNotDeadlock) {
  MockTimer mock;
  int later_runs = 0;
  ASSERT_TRUE(
      mock.timer().Schedule(absl::Seconds(1), [&] { ++later_runs; }).ok());
  size_t swept = 99;
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Milliseconds(1),
                            [&] { swept = mock.timer().Shutdown().size(); })
                  .ok());
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(swept, 1u);
  mock.AdvanceBy(absl::Seconds(2));
  EXPECT_EQ(later_runs, 0);
  EXPECT_TRUE(mock.timer().Shutdown().empty());
  EXPECT_EQ(mock.timer()
                .Schedule(absl::ZeroDuration(), [&] { ++later_runs; })
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(TimerMockTest, MaxPendingRejectsBeyondTheLimitAndFreesNothingWrongly) {
  TimerOptions options;
  options.max_pending = 3;
  MockTimer mock(options);
  int runs = 0;
  std::vector<TimerHandle> handles;
  for (int i = 0; i < 3; ++i) {
    handles.push_back(mock.timer()
                          .Schedule(absl::Milliseconds(10 + i), [&] { ++runs; })
                          .value());
  }
  auto token = std::make_shared<int>(0);
  absl::StatusOr<TimerHandle> rejected =
      mock.timer().Schedule(absl::Milliseconds(1), [&runs, token] { ++runs; });
  EXPECT_EQ(rejected.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(token.use_count(), 1);  // The callback was destroyed.
  std::atomic<int> destroyed{0};
  {
    auto task = MakeTask<CountingTask>(&mock.clock(), &destroyed);
    EXPECT_EQ(mock.timer().Add(task, absl::Milliseconds(1)).code(),
              absl::StatusCode::kResourceExhausted);
  }
  EXPECT_EQ(destroyed, 1);  // No reference kept by the timer.
  EXPECT_EQ(mock.timer().NumPending(), 3);

  // Moving a pending task is not a new task: allowed at the limit.
  auto mover = MakeTask<CountingTask>(&mock.clock());
  EXPECT_TRUE(handles[2].Cancel());
  ASSERT_TRUE(mock.timer().Add(mover, absl::Milliseconds(50)).ok());
  ASSERT_TRUE(mock.timer().Add(mover, absl::Milliseconds(20)).ok());
  EXPECT_EQ(mock.timer().NumPending(), 3);

  for (int ms = 0; ms < 100; ++ms) mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(mover->runs, 1);
  EXPECT_EQ(mover->ran_at, Nanos(absl::Milliseconds(20)));
  // Room again.
  EXPECT_TRUE(
      mock.timer().Schedule(absl::Milliseconds(1), [&] { ++runs; }).ok());
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 3);
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.added, 6);  // 4 tasks + 1 move + 1 after the room came back.
  EXPECT_EQ(m.expired + m.cancelled + m.pending, 5);
}

TEST(TimerMockTest, MaxPendingRefusalSaysHowManyArePending) {
  for (const int limit : {1, 2}) {
    TimerOptions options;
    options.max_pending = limit;
    MockTimer mock(options);
    for (int i = 0; i < limit; ++i) {
      ASSERT_TRUE(mock.timer().Schedule(absl::Seconds(1), [] {}).ok());
    }
    const absl::Status refused =
        mock.timer().Schedule(absl::Seconds(1), [] {}).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(std::string(refused.message()),
              limit == 1
                  ? "timingwheel: 1 task pending, the limit (max_pending)"
                  : "timingwheel: 2 tasks pending, the limit (max_pending)");
  }
}

TEST(TimerCreateTest, RejectsBadOptions) {
  auto code_of = [](TimerOptions options) {
    options.start_reaper = false;
    return Timer::Create(options).status().code();
  };
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  TimerOptions options;
  options.tick = absl::ZeroDuration();
  EXPECT_EQ(code_of(options), kInvalid);
  options.tick = absl::Milliseconds(-1);
  EXPECT_EQ(code_of(options), kInvalid);
  options.tick = absl::Nanoseconds(1) / 2;
  EXPECT_EQ(code_of(options), kInvalid);
  options.tick = -absl::InfiniteDuration();
  EXPECT_EQ(code_of(options), kInvalid);
  options = TimerOptions();
  for (int64_t size :
       {int64_t{0}, int64_t{1}, int64_t{-8}, (int64_t{1} << 20) + 1,
        int64_t{1} << 40, std::numeric_limits<int64_t>::max()}) {
    options.wheel_size = size;
    EXPECT_EQ(code_of(options), kInvalid) << size;
  }
  options = TimerOptions();
  options.max_pending = -1;
  EXPECT_EQ(code_of(options), kInvalid);
}

TEST(TimerCreateTest, AcceptsEdgeOptions) {
  TimerOptions options;
  options.start_reaper = false;
  options.tick = absl::Nanoseconds(1);
  options.wheel_size = 2;
  EXPECT_TRUE(Timer::Create(options).ok());
  options.wheel_size = int64_t{1} << 20;
  EXPECT_TRUE(Timer::Create(options).ok());
  options.wheel_size = 5;
  options.tick = absl::Hours(24 * 365);
  options.max_pending = 0;
  EXPECT_TRUE(Timer::Create(options).ok());
}

TEST(TimerMockTest, AddAfterShutdownFailsAndReleasesTheTask) {
  MockTimer mock;
  EXPECT_TRUE(mock.timer().Shutdown().empty());
  auto token = std::make_shared<int>(0);
  int runs = 0;
  EXPECT_EQ(mock.timer()
                .Schedule(absl::ZeroDuration(), [&runs, token] { ++runs; })
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(token.use_count(), 1);
  std::atomic<int> destroyed{0};
  {
    auto task = MakeTask<CountingTask>(&mock.clock(), &destroyed);
    EXPECT_EQ(mock.timer().Add(task, absl::Milliseconds(1)).code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_FALSE(mock.timer().Cancel(*task));
  }
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 0u);
  EXPECT_EQ(runs, 0);
  EXPECT_FALSE(mock.timer().AdvanceClock(absl::ZeroDuration()));
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.added, 0);
  EXPECT_EQ(m.pending, 0);
}

TEST(TimerMockTest, ShutdownReturnsEachPendingTaskOnceAndIsIdempotent) {
  MockTimer mock(SmallWheel());
  std::atomic<int> destroyed{0};
  std::vector<TaskPtr<CountingTask>> tasks;
  std::set<TimerTask*> expected_swept;
  for (int i = 0; i < 40; ++i) {
    tasks.push_back(MakeTask<CountingTask>(&mock.clock(), &destroyed));
    // Delays 0..1950 ms across levels; some at the same instant.
    ASSERT_TRUE(
        mock.timer().Add(tasks.back(), absl::Milliseconds(50 * (i / 2))).ok());
  }
  // Five run, two are cancelled, one is moved.
  mock.AdvanceBy(absl::Milliseconds(100));  // Runs i = 0..5 (0, 50, 100 ms).
  EXPECT_TRUE(mock.timer().Cancel(*tasks[10]));
  EXPECT_TRUE(mock.timer().Cancel(*tasks[39]));
  ASSERT_TRUE(mock.timer().Add(tasks[20], absl::Hours(1)).ok());
  for (int i = 6; i < 40; ++i) {
    if (i != 10 && i != 39) expected_swept.insert(tasks[i].get());
  }
  std::vector<TaskPtr<TimerTask>> swept = mock.timer().Shutdown();
  std::set<TimerTask*> swept_set;
  for (const auto& task : swept) swept_set.insert(task.get());
  EXPECT_EQ(swept.size(), swept_set.size());  // Each once.
  EXPECT_EQ(swept_set, expected_swept);
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.cancelled, 2 + static_cast<int64_t>(expected_swept.size()));
  EXPECT_EQ(m.pending, 0);
  EXPECT_EQ(m.expired, 6);
  EXPECT_TRUE(mock.timer().Shutdown().empty());  // Idempotent.
  EXPECT_EQ(mock.timer().Metrics().cancelled, m.cancelled);
  // Nothing runs afterwards, swept tasks are no longer pending.
  EXPECT_EQ(mock.AdvanceBy(absl::Hours(2)), 0u);
  int total_runs = 0;
  for (const auto& task : tasks) total_runs += task->runs;
  EXPECT_EQ(total_runs, 6);
  EXPECT_FALSE(mock.timer().Cancel(*tasks[20]));
  // The caller owns the swept references: dropping everything frees all.
  swept.clear();
  tasks.clear();
  EXPECT_EQ(destroyed, 40);
}

TEST(TimerMockTest, DestructorShutsDownAndReleasesPendingTasks) {
  std::atomic<int> destroyed{0};
  ManualClock clock;
  int runs = 0;
  auto token = std::make_shared<int>(0);
  {
    TimerOptions options;
    options.clock = &clock;
    options.start_reaper = false;
    std::unique_ptr<Timer> timer = Timer::Create(options).value();
    ASSERT_TRUE(
        timer->Add(MakeTask<CountingTask>(&clock, &destroyed), absl::Seconds(1))
            .ok());
    ASSERT_TRUE(
        timer->Schedule(absl::Hours(5), [&runs, token] { ++runs; }).ok());
    EXPECT_EQ(destroyed, 0);  // The timer holds the only reference.
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_EQ(runs, 0);
}

TEST(TimerMockTest, ClockGoingBackwardsNeverMovesTheWheelBack) {
  MockTimer mock(SmallWheel());
  auto first = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(first, absl::Milliseconds(100)).ok());
  auto marker = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(marker, absl::Milliseconds(50)).ok());
  mock.AdvanceBy(absl::Milliseconds(50));  // A flush: the wheel is at 50 ms.
  ASSERT_EQ(marker->runs, 1);
  mock.clock().SetNanos(Nanos(absl::Milliseconds(10)));  // Back 40 ms.
  EXPECT_EQ(mock.RunDue(), 0u);
  // Due 60 ms after the wheel's time (50 ms), not after the clock (10 ms).
  auto second = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(second, absl::Milliseconds(60)).ok());
  // Even a task due "now" is due at the wheel's time.
  auto third = MakeTask<CountingTask>(&mock.clock());
  ASSERT_TRUE(mock.timer().Add(third, absl::ZeroDuration()).ok());
  EXPECT_EQ(mock.RunDue(), 1u);
  EXPECT_EQ(third->runs, 1);
  // The clock reads 10 ms again: from here it must travel 90 ms to reach
  // the first task and 100 ms to reach the second.
  for (int ms = 1; ms <= 120; ++ms) {
    mock.AdvanceBy(absl::Milliseconds(1));
    EXPECT_EQ(first->runs, ms >= 90 ? 1 : 0) << ms;
    EXPECT_EQ(second->runs, ms >= 100 ? 1 : 0) << ms;
  }
  EXPECT_EQ(first->ran_at, Nanos(absl::Milliseconds(100)));
  EXPECT_EQ(second->ran_at, Nanos(absl::Milliseconds(110)));
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, HugeDelaysSaturateAndCanBeCancelled) {
  MockTimer mock(SmallWheel());
  int runs = 0;
  std::vector<TimerHandle> handles;
  for (absl::Duration delay :
       {absl::InfiniteDuration(),
        absl::Hours(std::numeric_limits<int64_t>::max()),
        absl::Nanoseconds(std::numeric_limits<int64_t>::max()),
        absl::Hours(24 * 365 * 300), absl::Hours(24 * 365 * 10)}) {
    absl::StatusOr<TimerHandle> handle =
        mock.timer().Schedule(delay, [&] { ++runs; });
    ASSERT_TRUE(handle.ok()) << delay;
    handles.push_back(*std::move(handle));
  }
  EXPECT_EQ(mock.timer().NumPending(), 5);
  mock.AdvanceBy(absl::Hours(24 * 365));
  EXPECT_EQ(runs, 0);
  mock.AdvanceBy(absl::Hours(24 * 365 * 9));  // 10 years: the last one.
  EXPECT_EQ(runs, 1);
  for (size_t i = 0; i + 1 < handles.size(); ++i) {
    EXPECT_TRUE(handles[i].Cancel()) << i;
  }
  EXPECT_FALSE(handles.back().Cancel());
  EXPECT_EQ(mock.timer().NumPending(), 0);
  ExpectBalanced(mock.timer());
}

TEST(TimerMockTest, MetricsBalance) {
  MockTimer mock(SmallWheel());
  std::vector<TimerHandle> handles;
  for (int i = 0; i < 300; ++i) {
    handles.push_back(mock.timer()
                          .Schedule(absl::Milliseconds((i * 7) % 400), [] {})
                          .value());
  }
  for (int i = 0; i < 300; i += 3) handles[i].Cancel();
  for (int step = 0; step < 20; ++step) {
    mock.AdvanceBy(absl::Milliseconds(10));
    ExpectBalanced(mock.timer());
  }
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.added, 300);
  EXPECT_EQ(m.cancelled, 100);
  EXPECT_GT(m.expired, 0);
  EXPECT_GT(m.pending, 0);
  mock.timer().Shutdown();
  const TimerMetrics after = mock.timer().Metrics();
  EXPECT_EQ(after.pending, 0);
  EXPECT_EQ(after.added, after.expired + after.cancelled);
}

}  // namespace
}  // namespace timingwheel
