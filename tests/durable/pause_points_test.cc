// Copyright 2026 The timingwheel Authors.
//
// PausePoint: the first thread at a point waits until Resume() or the
// PausePoint's end, later visits pass, several PausePoints coexist, and the
// hook is removed with the last one. Meant to run under --config=tsan too.

#include "durable/testing/pause_points.h"

#include <atomic>
#include <thread>

#include "absl/time/time.h"
#include "durable/engine/fault_point.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace {

using durable_internal::FaultHookSlot;
using durable_internal::FaultPoint;
using durable_testing::PausePoint;

TEST(PausePointTest, HoldsFirstThreadUntilResume) {
  PausePoint pause("x");
  std::atomic<bool> passed{false};
  int written_before = 0;  // Plain: TSan checks the hand-over.
  std::thread thread([&] {
    written_before = 1;
    FaultPoint("x");
    passed = true;
  });
  ASSERT_TRUE(pause.WaitReached(absl::Seconds(30)));
  EXPECT_EQ(written_before, 1);
  // Held: it cannot pass until Resume().
  EXPECT_FALSE(passed);
  EXPECT_EQ(pause.hits(), 1);
  pause.Resume();
  thread.join();
  EXPECT_TRUE(passed);

  // Later visits pass and count.
  FaultPoint("x");
  EXPECT_EQ(pause.hits(), 2);
  EXPECT_TRUE(pause.WaitReached(absl::ZeroDuration()));
}

TEST(PausePointTest, OtherPointsPass) {
  PausePoint pause("x");
  FaultPoint("y");
  EXPECT_EQ(pause.hits(), 0);
  EXPECT_FALSE(pause.WaitReached(absl::Milliseconds(1)));
}

TEST(PausePointTest, SeveralPausePointsHoldTheirOwnThreads) {
  PausePoint a("a");
  PausePoint b("b");
  PausePoint b_again("b");
  std::atomic<int> passed{0};
  std::thread at_a([&] {
    FaultPoint("a");
    passed += 1;
  });
  std::thread first_b([&] {
    FaultPoint("b");
    passed += 10;
  });
  ASSERT_TRUE(a.WaitReached(absl::Seconds(30)));
  ASSERT_TRUE(b.WaitReached(absl::Seconds(30)) ||
              b_again.WaitReached(absl::Seconds(30)));
  std::thread second_b([&] {
    FaultPoint("b");
    passed += 100;
  });
  ASSERT_TRUE(b.WaitReached(absl::Seconds(30)));
  ASSERT_TRUE(b_again.WaitReached(absl::Seconds(30)));
  EXPECT_EQ(passed, 0);
  EXPECT_EQ(b.hits(), 2);
  EXPECT_EQ(b_again.hits(), 2);

  // Each Resume() lets exactly its own thread go.
  a.Resume();
  at_a.join();
  EXPECT_EQ(passed, 1);
  b.Resume();
  b_again.Resume();
  first_b.join();
  second_b.join();
  EXPECT_EQ(passed, 111);
}

TEST(PausePointTest, DestructionResumesAndRemovesTheHook) {
  std::atomic<bool> passed{false};
  std::thread thread;
  {
    PausePoint pause("x");
    EXPECT_NE(FaultHookSlot().load(), nullptr);
    thread = std::thread([&] {
      FaultPoint("x");
      passed = true;
    });
    ASSERT_TRUE(pause.WaitReached(absl::Seconds(30)));
    EXPECT_FALSE(passed);
  }
  thread.join();
  EXPECT_TRUE(passed);
  EXPECT_EQ(FaultHookSlot().load(), nullptr);
  FaultPoint("x");  // No hook: passes.
}

}  // namespace
}  // namespace timingwheel
