// Copyright 2026 The timingwheel Authors.
//
// Review tests of the producer inboxes that show defects (tagged manual in
// BUILD until the fix): a handle's Reschedule()/RescheduleAt() overtakes a
// task the same thread buffered before it for the same instant, against
// timer.h's per-thread order promise.

#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MockTimer;

// timer.h: "per-thread order (tasks one thread adds for the same instant
// run in the order added) hold[s] as for locked adds". A handle's
// Reschedule() adds under the lock without draining the thread's stripe
// first, so it overtakes a task the same thread buffered before it.
TEST(TimerInboxReviewDefectTest,
     RescheduleAfterABufferedAddKeepsPerThreadOrder) {
  MockTimer mock;
  std::vector<int> order;
  TimerHandle second =
      mock.timer()
          .Schedule(absl::Seconds(100), [&order] { order.push_back(2); })
          .value();
  EXPECT_EQ(mock.timer().NumPending(), 1);  // Drained: in the wheel.
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Seconds(1), [&order] { order.push_back(1); })
                  .ok());  // Buffered.
  // Added after the first, for the same instant.
  EXPECT_EQ(second.Reschedule(absl::Seconds(1)), RescheduleResult::kMoved);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 2u);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
}

// The same with RescheduleAt().
TEST(TimerInboxReviewDefectTest,
     RescheduleAtAfterABufferedAddKeepsPerThreadOrder) {
  MockTimer mock;
  std::vector<int> order;
  TimerHandle second =
      mock.timer()
          .Schedule(absl::Seconds(100), [&order] { order.push_back(2); })
          .value();
  EXPECT_EQ(mock.timer().NumPending(), 1);
  ASSERT_TRUE(mock.timer()
                  .Schedule(absl::Seconds(1), [&order] { order.push_back(1); })
                  .ok());
  EXPECT_EQ(second.RescheduleAt(mock.timer().Now() + absl::Seconds(1)),
            RescheduleResult::kMoved);
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 2u);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
}

}  // namespace
}  // namespace timingwheel
