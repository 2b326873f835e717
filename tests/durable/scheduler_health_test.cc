// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler::Health() against a real server: OK while the process
// works; DeadlineExceeded once its maintenance thread has been wedged past
// the stall limit (held at a pause point, so the window is hit every run),
// OK again when it moves; Cancelled after Shutdown(). The node id taken
// over (FailedPrecondition) is proven by FaultNodeIdTest, whose helper
// process exits on that status.

#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/pause_points.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"

namespace timingwheel {
namespace {

using durable_test::DurableFixture;
using durable_test::WaitFor;
using durable_testing::PausePoint;

class SchedulerHealthTest : public DurableFixture {};

TEST_F(SchedulerHealthTest, AWedgedMaintenanceThreadIsUnhealthyUntilItMoves) {
  auto scheduler = Start(Options("node-a"));
  ASSERT_NE(scheduler, nullptr);
  EXPECT_TRUE(scheduler->Health().ok()) << scheduler->Health();
  PausePoint claimed("load.claimed");
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(300), "p").ok());
  ASSERT_TRUE(claimed.WaitReached(absl::Seconds(10)));
  // The stall limit is 2 TTLs and 4 statement timeouts (about 3 s here).
  EXPECT_TRUE(
      WaitFor([&] { return absl::IsDeadlineExceeded(scheduler->Health()); },
              absl::Seconds(20)))
      << scheduler->Health();
  claimed.Resume();
  EXPECT_TRUE(WaitFor([&] { return scheduler->Health().ok(); }))
      << scheduler->Health();
  EXPECT_TRUE(Succeeded("t"));
  scheduler->Shutdown();
  EXPECT_TRUE(absl::IsCancelled(scheduler->Health())) << scheduler->Health();
}

}  // namespace
}  // namespace timingwheel
