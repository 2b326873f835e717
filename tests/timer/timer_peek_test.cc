// Copyright 2026 The timingwheel Authors.
//
// Timer::PeekNext() (the task due first, not only its time) and
// TimerOptions::default_timeout (Schedule()/Add() without a delay), on the
// manual clock.

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/probe_task.h"
#include "timer/embedded_timer.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MockTimer;
using ::timingwheel::testing::ProbeTask;

TEST(TimerPeekTest, NothingPendingIsNullopt) {
  MockTimer mock;
  EXPECT_FALSE(mock.timer().PeekNext().has_value());
  mock.timer().ScheduleAt(TimePoint::Max(), [] {}).value();
  EXPECT_FALSE(mock.timer().PeekNext().has_value());  // Never due.
}

TEST(TimerPeekTest, ReturnsTheTaskDueFirstAcrossLevels) {
  MockTimer mock;
  const TimePoint start = mock.timer().Now();
  TimerHandle far = mock.timer().Schedule(absl::Hours(3), [] {}).value();
  TimerHandle mid = mock.timer().Schedule(absl::Seconds(40), [] {}).value();
  TimerHandle near =
      mock.timer().Schedule(absl::Milliseconds(300), [] {}).value();
  std::optional<Timer::Peeked> next = mock.timer().PeekNext();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->handle, near);
  EXPECT_EQ(next->due, start + absl::Milliseconds(300));
  EXPECT_EQ(next->embedded, nullptr);
  // Changes nothing: the same again, and the task still runs once.
  EXPECT_EQ(mock.timer().PeekNext()->handle, near);
  EXPECT_TRUE(near.Cancel());
  EXPECT_EQ(mock.timer().PeekNext()->handle, mid);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(40)), 1u);
  EXPECT_EQ(mock.timer().PeekNext()->handle, far);
  EXPECT_EQ(mock.timer().PeekNext()->due, start + absl::Hours(3));
}

TEST(TimerPeekTest, MatchesTheEarliestOfManyRandomTasks) {
  MockTimer mock;
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int64_t> micros(1, 4'000'000'000);
  const TimePoint start = mock.timer().Now();
  std::vector<std::pair<int64_t, TimerHandle>> tasks;
  for (int i = 0; i < 2000; ++i) {
    const int64_t delay = micros(random);
    tasks.emplace_back(
        delay, mock.timer().Schedule(absl::Microseconds(delay), [] {}).value());
  }
  std::sort(tasks.begin(), tasks.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (int round = 0; round < 50; ++round) {
    std::optional<Timer::Peeked> next = mock.timer().PeekNext();
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(next->due, start + absl::Microseconds(tasks[round].first));
    EXPECT_EQ(next->handle, tasks[round].second);
    // Run exactly that one: the clock reaches its due time.
    mock.AdvanceBy(next->due - mock.timer().Now());
    EXPECT_EQ(tasks[round].second.status(), TaskStatus::kRan);
  }
}

TEST(TimerPeekTest, ReportsTasksAndEmbeddedTimers) {
  MockTimer mock;
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(mock.timer().Add(task, absl::Seconds(2)).ok());
  CallbackTimer embedded([] {});
  ASSERT_TRUE(embedded.Schedule(mock.timer(), absl::Seconds(1)).ok());
  std::optional<Timer::Peeked> next = mock.timer().PeekNext();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->embedded, &embedded);
  EXPECT_FALSE(next->handle.valid());
  EXPECT_EQ(next->task, nullptr);
  EXPECT_TRUE(embedded.Cancel());
  next = mock.timer().PeekNext();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->task, TaskPtr<TimerTask>(task));
  EXPECT_TRUE(next->handle.pending());
  // The peeked handle cancels like any.
  EXPECT_TRUE(next->handle.Cancel());
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(TimerPeekTest, NulloptAfterShutdown) {
  MockTimer mock;
  mock.timer().Schedule(absl::Seconds(1), [] {}).value();
  mock.timer().Shutdown();
  EXPECT_FALSE(mock.timer().PeekNext().has_value());
}

TEST(TimerDefaultTimeoutTest, ScheduleAndAddWithoutADelayUseIt) {
  TimerOptions options;
  options.default_timeout = absl::Seconds(5);
  MockTimer mock(options);
  int runs = 0;
  TimerHandle handle = mock.timer().Schedule([&runs] { ++runs; }).value();
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  ASSERT_TRUE(mock.timer().Add(task).ok());
  EXPECT_EQ(handle.TimeRemaining(), absl::Seconds(5));
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5) - absl::Nanoseconds(1)), 0u);
  EXPECT_EQ(mock.AdvanceBy(absl::Nanoseconds(1)), 2u);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(counts.runs.load(), 1);
}

TEST(TimerDefaultTimeoutTest, WithoutOneTheCallsFailAndNothingIsAdded) {
  MockTimer mock;
  auto token = std::make_shared<int>(0);
  absl::StatusOr<TimerHandle> handle = mock.timer().Schedule([token] {});
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(token.use_count(), 1);  // The callback was destroyed.
  ProbeTask::Counts counts;
  TaskPtr<ProbeTask> task = MakeTask<ProbeTask>(&counts);
  EXPECT_EQ(mock.timer().Add(task).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(mock.timer().NumPending(), 0);
}

TEST(TimerDefaultTimeoutTest, ANegativeOneIsRefusedAtCreate) {
  TimerOptions options;
  options.default_timeout = -absl::Seconds(1);
  EXPECT_EQ(Timer::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace timingwheel
