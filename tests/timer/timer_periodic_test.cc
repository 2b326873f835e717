// Copyright 2026 The timingwheel Authors.
//
// Timer::SchedulePeriodic() driven deterministically by MockTimer: fixed
// rate without drift, skipped (not bursted) runs after an overrun, never
// early, Cancel() from outside and from inside the callback, exceptions,
// shutdown, a ScopedTimerHandle that ends the series, and handles that
// outlive the timer.

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/scoped_timer_handle.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MockTimer;

TEST(PeriodicTest, RunsEveryPeriodNeverEarly) {
  MockTimer mock;
  std::vector<int64_t> ran_at;
  PeriodicHandle handle =
      mock.timer()
          .SchedulePeriodic(absl::Milliseconds(10),
                            [&] { ran_at.push_back(mock.clock().NowNanos()); })
          .value();
  EXPECT_TRUE(handle.scheduled());
  EXPECT_EQ(handle.TimeRemaining(), absl::Milliseconds(10));
  for (int i = 1; i <= 5; ++i) {
    mock.AdvanceBy(absl::Milliseconds(10) - absl::Nanoseconds(1));
    EXPECT_EQ(ran_at.size(), static_cast<size_t>(i - 1));
    mock.AdvanceBy(absl::Nanoseconds(1));
    ASSERT_EQ(ran_at.size(), static_cast<size_t>(i));
    EXPECT_EQ(ran_at.back(), i * 10'000'000);
  }
  handle.Cancel();
}

TEST(PeriodicTest, FixedRateDoesNotDriftWhenRunsStartLate) {
  MockTimer mock;
  std::vector<int64_t> ran_at;
  PeriodicHandle handle =
      mock.timer()
          .SchedulePeriodic(absl::Milliseconds(10),
                            [&] { ran_at.push_back(mock.clock().NowNanos()); })
          .value();
  // Each advance lands 3 ms after a due time: the runs start late, but the
  // next due time comes from the previous due time, not from the run.
  mock.AdvanceBy(absl::Milliseconds(13));  // Run 1 at 13 ms.
  mock.AdvanceBy(absl::Milliseconds(6));   // 19 ms: run 2 is due at 20.
  EXPECT_EQ(ran_at.size(), 1u);
  mock.AdvanceBy(absl::Milliseconds(1));  // 20 ms.
  ASSERT_EQ(ran_at.size(), 2u);
  EXPECT_EQ(ran_at[1], 20'000'000);
  handle.Cancel();
}

TEST(PeriodicTest, OverrunSkipsMissedRunsInsteadOfBursting) {
  MockTimer mock;
  int runs = 0;
  PeriodicHandle handle =
      mock.timer()
          .SchedulePeriodic(absl::Milliseconds(10),
                            [&] {
                              if (++runs == 1) {
                                // Overrun: the run ends at 45 ms.
                                mock.clock().AdvanceBy(absl::Milliseconds(35));
                              }
                            })
          .value();
  mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(runs, 1);
  // Due times 20, 30 and 40 were missed; the next is 50, not now.
  EXPECT_EQ(handle.TimeRemaining(), absl::Milliseconds(5));
  mock.RunDue();
  EXPECT_EQ(runs, 1);
  mock.AdvanceBy(absl::Milliseconds(5) - absl::Nanoseconds(1));
  EXPECT_EQ(runs, 1);
  mock.AdvanceBy(absl::Nanoseconds(1));
  EXPECT_EQ(runs, 2);
  mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(runs, 3);
  handle.Cancel();
}

TEST(PeriodicTest, AnAdvanceOverManyPeriodsRunsOnce) {
  MockTimer mock;
  int runs = 0;
  PeriodicHandle handle =
      mock.timer()
          .SchedulePeriodic(absl::Milliseconds(10), [&] { ++runs; })
          .value();
  mock.AdvanceBy(absl::Milliseconds(95));
  EXPECT_EQ(runs, 1);  // Skipped, not made up.
  EXPECT_EQ(handle.TimeRemaining(), absl::Milliseconds(5));
  handle.Cancel();
}

TEST(PeriodicTest, CancelStopsIt) {
  MockTimer mock;
  int runs = 0;
  PeriodicHandle handle =
      mock.timer()
          .SchedulePeriodic(absl::Milliseconds(10), [&] { ++runs; })
          .value();
  mock.AdvanceBy(absl::Milliseconds(20));
  ASSERT_EQ(runs, 2);
  handle.Cancel();
  EXPECT_FALSE(handle.scheduled());
  handle.Cancel();  // Idempotent.
  mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(PeriodicTest, CancelFromInsideTheCallbackStopsIt) {
  MockTimer mock;
  int runs = 0;
  PeriodicHandle handle;
  handle = mock.timer()
               .SchedulePeriodic(absl::Milliseconds(10),
                                 [&] {
                                   if (++runs == 3) handle.Cancel();
                                 })
               .value();
  mock.AdvanceBy(absl::Milliseconds(30));
  mock.AdvanceBy(absl::Seconds(1));
  for (int i = 0; i < 10; ++i) mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(handle.scheduled());
  EXPECT_EQ(mock.timer().NumPending(), 0);
  handle = PeriodicHandle();
}

TEST(PeriodicTest, KeepsItsScheduleWhenTheCallbackThrows) {
  TimerOptions options;
  int errors = 0;
  options.on_callback_error = [&](std::exception_ptr) { ++errors; };
  MockTimer mock(options);
  int runs = 0;
  PeriodicHandle handle =
      mock.timer()
          .SchedulePeriodic(absl::Milliseconds(10),
                            [&] {
                              ++runs;
                              throw std::runtime_error("boom");
                            })
          .value();
  for (int i = 0; i < 3; ++i) mock.AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(errors, 3);
  handle.Cancel();
}

TEST(PeriodicTest, RefusesANonPositivePeriod) {
  MockTimer mock;
  EXPECT_EQ(mock.timer()
                .SchedulePeriodic(absl::ZeroDuration(), [] {})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mock.timer()
                .SchedulePeriodic(absl::Milliseconds(-1), [] {})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mock.timer().Metrics().added, 0);
  mock.timer().Shutdown();
  EXPECT_EQ(mock.timer()
                .SchedulePeriodic(absl::Milliseconds(1), [] {})
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(PeriodicTest, ShutdownEndsItAndHandlesOutliveTheTimer) {
  auto mock = std::make_unique<MockTimer>();
  int runs = 0;
  PeriodicHandle handle =
      mock->timer()
          .SchedulePeriodic(absl::Milliseconds(10), [&] { ++runs; })
          .value();
  mock->AdvanceBy(absl::Milliseconds(10));
  EXPECT_EQ(mock->timer().Shutdown().size(), 1u);
  EXPECT_FALSE(handle.scheduled());
  mock.reset();
  handle.Cancel();  // Harmless.
  EXPECT_EQ(handle.TimeRemaining(), absl::InfiniteDuration());
  EXPECT_EQ(runs, 1);
}

TEST(PeriodicTest, ScopedHandleEndsTheSeries) {
  MockTimer mock;
  int runs = 0;
  {
    ScopedTimerHandle scoped(
        mock.timer()
            .SchedulePeriodic(absl::Milliseconds(10), [&] { ++runs; })
            .value());
    mock.AdvanceBy(absl::Milliseconds(20));
  }
  mock.AdvanceBy(absl::Seconds(1));
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(PeriodicTest, OneTaskForItsWholeLife) {
  MockTimer mock;
  PeriodicHandle handle =
      mock.timer().SchedulePeriodic(absl::Milliseconds(1), [] {}).value();
  for (int i = 0; i < 100; ++i) mock.AdvanceBy(absl::Milliseconds(1));
  const TimerMetrics m = mock.timer().Metrics();
  EXPECT_EQ(m.pending, 1);
  EXPECT_EQ(m.expired, 100);
  EXPECT_EQ(m.added, 101);  // Each run re-adds the same task.
  handle.Cancel();
}

}  // namespace
}  // namespace timingwheel
