// Copyright 2026 The timingwheel Authors.
//
// A consumer's timer tests, written from the README alone against the
// public labels it names (@timingwheel//timer, :scoped_timer_handle,
// :testing): an idle timeout pushed back by traffic (MockTimer), a request
// deadline owned by a ScopedTimerHandle, the reaper thread on a ManualClock
// (AwaitSleeper with the deadline the timer gave), callbacks on a
// PoolExecutor.

#include "timer/timer.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/scoped_timer_handle.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/mock_timer.h"
#include "timer/testing/pool_executor.h"

namespace {

// Closes itself after `idle` without traffic.
class Connection {
 public:
  Connection(timingwheel::Timer& timer, absl::Duration idle)
      : idle_(idle),
        timeout_(timer.Schedule(idle, [this] { closed_ = true; }).value()) {}
  void OnTraffic() { timeout_.Reschedule(idle_); }
  bool closed() const { return closed_; }

 private:
  const absl::Duration idle_;
  bool closed_ = false;
  timingwheel::ScopedTimerHandle
      timeout_;  // Last: cancels before closed_ goes.
};

TEST(ConsumerTimerTest, TrafficPushesTheIdleTimeoutBack) {
  timingwheel::testing::MockTimer mock;
  Connection connection(mock.timer(), absl::Seconds(30));
  mock.AdvanceBy(absl::Seconds(20));
  connection.OnTraffic();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(29)), 0u);
  EXPECT_FALSE(connection.closed());
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  EXPECT_TRUE(connection.closed());
}

TEST(ConsumerTimerTest, AScopedDeadlineIsCancelledWhenTheRequestEnds) {
  timingwheel::testing::MockTimer mock;
  bool timed_out = false;
  {
    timingwheel::ScopedTimerHandle deadline(
        mock.timer()
            .Schedule(absl::Seconds(2), [&] { timed_out = true; })
            .value());
  }
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(5)), 0u);
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(mock.timer().NumPending(), 0u);
}

TEST(ConsumerTimerTest, TheReaperFiresWhenTheManualClockReachesTheDeadline) {
  timingwheel::testing::PoolExecutor pool(2);
  timingwheel::testing::ManualClock clock;
  timingwheel::TimerOptions options;
  options.clock = &clock;
  options.executor = &pool;
  auto timer = timingwheel::Timer::Create(options).value();
  std::promise<bool> fired;
  std::future<bool> done = fired.get_future();
  const timingwheel::TimePoint deadline = timer->Now() + absl::Seconds(1);
  timer->ScheduleAt(deadline, [&] { fired.set_value(pool.IsWorkerThread()); })
      .value();
  ASSERT_TRUE(clock.AwaitSleeper(deadline));
  clock.AdvanceBy(absl::Seconds(1));
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(done.get());  // It ran on one of the pool's threads.
}

}  // namespace
