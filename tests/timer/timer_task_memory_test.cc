// Copyright 2026 The timingwheel Authors.
//
// Tests of the memory of the tasks Timer::Schedule() creates (pooled, see
// timer/internal/task_pool.h) and of TimerOptions::expected_pending: every
// callback's captures are destroyed exactly once (run, cancelled, or swept
// by shutdown), whatever thread frees the task; over-aligned and large
// callbacks keep their alignment and run; Create() reserves room for
// expected_pending tasks, and only what the pool lacks.

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/internal/task_pool.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MockTimer;

TEST(TimerTaskMemoryTest, CapturesAreDestroyedOnceWhetherRunCancelledOrSwept) {
  auto token = std::make_shared<int>(0);
  std::atomic<int> runs{0};
  {
    MockTimer mock;
    std::vector<TimerHandle> cancel_later;
    for (int i = 0; i < 300; ++i) {
      auto handle = mock.timer().Schedule(absl::Milliseconds(1 + i % 3),
                                          [token, &runs] { ++runs; });
      ASSERT_TRUE(handle.ok());
      if (i % 3 == 1) cancel_later.push_back(*std::move(handle));
    }
    // 100 never come due before the timer ends: swept by Shutdown().
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(mock.timer()
                      .Schedule(absl::Hours(1), [token, &runs] { ++runs; })
                      .ok());
    }
    EXPECT_EQ(token.use_count(), 401);
    for (TimerHandle& handle : cancel_later) EXPECT_TRUE(handle.Cancel());
    cancel_later.clear();  // The handles' references too.
    EXPECT_EQ(token.use_count(), 301);
    mock.AdvanceBy(absl::Milliseconds(3));
    EXPECT_EQ(runs.load(), 200);
    EXPECT_EQ(token.use_count(), 101);
  }
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_EQ(runs.load(), 200);
}

TEST(TimerTaskMemoryTest, TasksFreedOnAnotherThreadAreReleasedOnce) {
  auto token = std::make_shared<int>(0);
  MockTimer mock;
  // Producers on their own threads; this thread runs (and frees) them.
  std::vector<std::thread> producers;
  for (int p = 0; p < 2; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        ASSERT_TRUE(
            mock.timer().Schedule(absl::Milliseconds(1), [token] {}).ok());
      }
    });
  }
  for (std::thread& producer : producers) producer.join();
  EXPECT_EQ(token.use_count(), 4001);
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(1)), 4000u);
  EXPECT_EQ(token.use_count(), 1);
  // The blocks are reused by a thread that schedules again.
  std::thread again([&] {
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(
          mock.timer().Schedule(absl::Milliseconds(1), [token] {}).ok());
    }
  });
  again.join();
  EXPECT_EQ(mock.AdvanceBy(absl::Milliseconds(1)), 2000u);
  EXPECT_EQ(token.use_count(), 1);
}

TEST(TimerTaskMemoryTest, OverAlignedCallbacksKeepTheirAlignment) {
  struct alignas(64) Aligned {
    int value = 7;
  };
  MockTimer mock;
  int seen = 0;
  bool aligned = true;
  for (int i = 0; i < 50; ++i) {
    Aligned capture;
    ASSERT_TRUE(
        mock.timer()
            .Schedule(absl::Milliseconds(1),
                      [capture, &seen, &aligned] {
                        aligned &=
                            reinterpret_cast<uintptr_t>(&capture) % 64 == 0;
                        seen += capture.value;
                      })
            .ok());
  }
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(seen, 50 * 7);
  EXPECT_TRUE(aligned);
}

TEST(TimerTaskMemoryTest, LargeCallbacksRun) {
  struct Large {
    char bytes[1024] = {};
  };
  MockTimer mock;
  int runs = 0;
  Large large;
  large.bytes[1023] = 5;
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Milliseconds(1),
                            [large, &runs] { runs += large.bytes[1023]; })
                  .ok());
  mock.AdvanceBy(absl::Milliseconds(1));
  EXPECT_EQ(runs, 5);
}

TEST(TimerExpectedPendingTest, NegativeIsRefused) {
  TimerOptions options;
  options.expected_pending = -1;
  EXPECT_EQ(Timer::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TimerExpectedPendingTest, TooLargeIsRefused) {
  TimerOptions options;
  options.expected_pending = INT64_MAX / 2;
  options.start_reaper = false;
  EXPECT_EQ(Timer::Create(options).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(TimerExpectedPendingTest, CreateReservesRoomOnceForManyTimers) {
  constexpr int64_t kExpected = 50000;
  TimerOptions options;
  options.expected_pending = kExpected;
  MockTimer first(options);
  const internal::TaskPoolStats reserved = internal::TaskPool::Stats();
  EXPECT_GE(reserved.uncarved_bytes, kExpected * 40);
  // Scheduling them takes no chunk beyond the reservation.
  for (int64_t i = 0; i < kExpected; ++i) {
    ASSERT_TRUE(first.timer().Schedule(absl::Seconds(1), [] {}).ok());
  }
  EXPECT_EQ(internal::TaskPool::Stats().chunk_bytes, reserved.chunk_bytes);
  EXPECT_EQ(first.AdvanceBy(absl::Seconds(1)), static_cast<size_t>(kExpected));
  // The freed tasks count as room: more timers with the same expectation
  // do not grow the pool.
  for (int t = 0; t < 3; ++t) {
    MockTimer another(options);
  }
  EXPECT_EQ(internal::TaskPool::Stats().chunk_bytes, reserved.chunk_bytes);
}

}  // namespace
}  // namespace timingwheel
