// Copyright 2026 The timingwheel Authors.
//
// ThreadExecutor on its own: FIFO order, Shutdown() runs what was queued
// before it (also when called from the executor's own thread), and
// callbacks handed over after Shutdown() are destroyed without running.

#include "timer/executor.h"

#include <atomic>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/timer/test_sync.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Latch;

TEST(ThreadExecutorTest, ShutdownFromItsOwnThreadStillRunsWhatWasQueued) {
  auto executor = std::make_unique<ThreadExecutor>();
  ThreadExecutor* const raw = executor.get();
  Latch first_running;
  Latch second_queued;
  std::atomic<bool> second_ran{false};
  executor->Execute([&, raw] {
    first_running.Open();
    // Wait until the second callback is queued behind this one (so the
    // loop has already taken this one's batch), then shut down from here.
    EXPECT_TRUE(second_queued.Wait());
    raw->Shutdown();
  });
  ASSERT_TRUE(first_running.Wait());
  executor->Execute([&] { second_ran = true; });
  second_queued.Open();
  executor.reset();  // Joins the thread (from this one).
  EXPECT_TRUE(second_ran);
}

TEST(ThreadExecutorTest, RunsInOrderAndDropsAfterShutdown) {
  ThreadExecutor executor;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i)
    executor.Execute([&order, i] { order.push_back(i); });
  executor.Shutdown();  // Runs the queue first.
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  // Dropped: destroyed, never run.
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  executor.Execute([alive = std::move(alive)] { ++*alive; });
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace timingwheel
