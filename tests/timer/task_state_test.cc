// Copyright 2026 The timingwheel Authors.
//
// The named transitions of a task's state word (timer/internal/task_state.h),
// each on its own, single-threaded: from each starting word that matters,
// the word it leaves, what it returns, and the due time where it writes one.

#include "timer/internal/task_state.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "timer/internal/test_hooks.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {
namespace {

using State = TaskState;
using Peer = TaskTestPeer;

constexpr uint32_t kOwner = 5;
constexpr int64_t kDue = 1234;

class NopTask final : public TimerTask {
 public:
  void Run() override {}
};

// A task whose word is `Make(kOwner, flags)` and whose due time is kDue.
class TaskStateTest : public ::testing::Test {
 protected:
  TimerTask* With(uint32_t flags) {
    Peer::SetState(task_, State::Make(kOwner, flags));
    Peer::SetDue(task_, kDue);
    return &task_;
  }
  uint32_t Word() const { return State::Load(&task_); }
  int64_t Due() const { return Peer::Due(task_); }
  static uint32_t Mk(uint32_t flags) { return State::Make(kOwner, flags); }

  NopTask task_;
};

TEST_F(TaskStateTest, MakeOfNoBusyFlagIsIdle) {
  EXPECT_EQ(State::Make(kOwner, 0), 0u);
  EXPECT_EQ(State::Make(kOwner, State::kStopped), 0u);
  EXPECT_EQ(State::Owner(Mk(State::kPending)), kOwner);
}

TEST_F(TaskStateTest, MarkQueuedTurnsPendingIntoQueued) {
  State::MarkQueued(With(State::kPending));
  EXPECT_EQ(Word(), Mk(State::kQueued));
  // Pending again while it runs (re-added): still running, now queued.
  State::MarkQueued(With(State::kPending | State::kRunning));
  EXPECT_EQ(Word(), Mk(State::kQueued | State::kRunning));
}

TEST_F(TaskStateTest, ClearPendingLeavesTheOtherFlags) {
  State::ClearPending(With(State::kPending));
  EXPECT_EQ(Word(), 0u);
  State::ClearPending(With(State::kPending | State::kRunning));
  EXPECT_EQ(Word(), Mk(State::kRunning));
  EXPECT_EQ(Due(), kDue);  // Not its to write.
}

TEST_F(TaskStateTest, SweepPendingStopsARunningTask) {
  State::SweepPending(With(State::kPending), kOwner);
  EXPECT_EQ(Word(), 0u);
  State::SweepPending(With(State::kPending | State::kRunning), kOwner);
  EXPECT_EQ(Word(), Mk(State::kRunning | State::kStopped));
  State::SweepPending(
      With(State::kPending | State::kRunning | State::kDeferred), kOwner);
  EXPECT_EQ(Word(), Mk(State::kRunning | State::kDeferred | State::kStopped));
}

TEST_F(TaskStateTest, TryClaimForRunClaimsAQueuedIdleTask) {
  EXPECT_EQ(State::TryClaimForRun(With(State::kQueued)),
            State::Claim::kClaimed);
  EXPECT_EQ(Word(), Mk(State::kRunning));
}

TEST_F(TaskStateTest, TryClaimForRunHandsOnToTheRunningThread) {
  EXPECT_EQ(State::TryClaimForRun(With(State::kQueued | State::kRunning)),
            State::Claim::kHandedOn);
  EXPECT_EQ(Word(), Mk(State::kQueued | State::kRunning | State::kDeferred));
}

TEST_F(TaskStateTest, TryClaimForRunSkipsWhatIsNotQueuedOrAlreadyOwed) {
  for (uint32_t flags : {uint32_t{0}, State::kPending, State::kRunning,
                         State::kRunning | State::kStopped}) {
    TimerTask* task = With(flags);
    const uint32_t before = Word();
    EXPECT_EQ(State::TryClaimForRun(task), State::Claim::kSkipped) << flags;
    EXPECT_EQ(Word(), before) << flags;
  }
  const uint32_t owed = State::kQueued | State::kRunning | State::kDeferred;
  EXPECT_EQ(State::TryClaimForRun(With(owed)), State::Claim::kSkipped);
  EXPECT_EQ(Word(), Mk(owed));
}

TEST_F(TaskStateTest, FinishRunGoesIdle) {
  EXPECT_EQ(State::FinishRun(With(State::kRunning)), State::RunEnd::kDone);
  EXPECT_EQ(Word(), 0u);
  // Stopped (cancelled while running): adds may go again.
  EXPECT_EQ(State::FinishRun(With(State::kRunning | State::kStopped)),
            State::RunEnd::kDone);
  EXPECT_EQ(Word(), 0u);
}

TEST_F(TaskStateTest, FinishRunKeepsAnAddMadeWhileItRan) {
  EXPECT_EQ(State::FinishRun(With(State::kRunning | State::kPending)),
            State::RunEnd::kDone);
  EXPECT_EQ(Word(), Mk(State::kPending));
  EXPECT_EQ(State::FinishRun(With(State::kRunning | State::kQueued)),
            State::RunEnd::kDone);
  EXPECT_EQ(Word(), Mk(State::kQueued));
}

TEST_F(TaskStateTest, FinishRunRunsAgainWhenARunIsOwed) {
  EXPECT_EQ(State::FinishRun(
                With(State::kRunning | State::kDeferred | State::kQueued)),
            State::RunEnd::kAgain);
  EXPECT_EQ(Word(), Mk(State::kRunning));
}

TEST_F(TaskStateTest, FinishRunDropsADeferredRunCancelledMeanwhile) {
  EXPECT_EQ(State::FinishRun(With(State::kRunning | State::kDeferred)),
            State::RunEnd::kDoneDropDeferred);
  EXPECT_EQ(Word(), 0u);
  EXPECT_EQ(State::FinishRun(With(State::kRunning | State::kDeferred |
                                  State::kStopped | State::kPending)),
            State::RunEnd::kDoneDropDeferred);
  EXPECT_EQ(Word(), Mk(State::kPending));
}

TEST_F(TaskStateTest, TryCancelQueuedCancelsAQueuedTask) {
  EXPECT_TRUE(State::TryCancelQueued(With(State::kQueued)));
  EXPECT_EQ(Word(), 0u);
  EXPECT_EQ(Due(), State::kCancelledDue);
  EXPECT_TRUE(State::TryCancelQueued(With(State::kQueued | State::kRunning)));
  EXPECT_EQ(Word(), Mk(State::kRunning));
}

TEST_F(TaskStateTest, TryCancelQueuedLeavesAnUnqueuedTask) {
  for (uint32_t flags : {uint32_t{0}, State::kPending, State::kRunning}) {
    TimerTask* task = With(flags);
    const uint32_t before = Word();
    EXPECT_FALSE(State::TryCancelQueued(task)) << flags;
    EXPECT_EQ(Word(), before) << flags;
    EXPECT_EQ(Due(), kDue) << flags;
  }
}

TEST_F(TaskStateTest, TryMarkInboxTakesOnlyAnIdleTask) {
  Peer::SetState(task_, 0);
  // The swap is weak: it may fail spuriously, never succeed wrongly.
  bool marked = false;
  for (int i = 0; i < 100 && !marked; ++i) {
    marked = State::TryMarkInbox(&task_, kOwner);
  }
  EXPECT_TRUE(marked);
  EXPECT_EQ(Word(), Mk(State::kInbox));
  for (uint32_t flags :
       {State::kPending, State::kQueued, State::kRunning, State::kInbox}) {
    TimerTask* task = With(flags);
    EXPECT_FALSE(State::TryMarkInbox(task, kOwner)) << flags;
    EXPECT_EQ(Word(), Mk(flags)) << flags;
  }
}

TEST_F(TaskStateTest, TryRevokeBufferedRevokesOnce) {
  TimerTask* task = With(State::kInbox);
  EXPECT_EQ(State::TryRevokeBuffered(task, kOwner), State::Revoke::kRevoked);
  EXPECT_EQ(Word(), Mk(State::kInbox | State::kRevoked));
  EXPECT_EQ(State::TryRevokeBuffered(task, kOwner),
            State::Revoke::kAlreadyRevoked);
  EXPECT_EQ(Word(), Mk(State::kInbox | State::kRevoked));
}

TEST_F(TaskStateTest, TryRevokeBufferedLeavesWhatIsNotInTheOwnersInbox) {
  EXPECT_EQ(State::TryRevokeBuffered(With(State::kInbox), kOwner + 1),
            State::Revoke::kNotBuffered);
  EXPECT_EQ(Word(), Mk(State::kInbox));
  EXPECT_EQ(State::TryRevokeBuffered(With(State::kPending), kOwner),
            State::Revoke::kNotBuffered);
  EXPECT_EQ(Word(), Mk(State::kPending));
}

TEST_F(TaskStateTest, WithdrawBufferedOnlyFromTheLiveInboxWord) {
  EXPECT_TRUE(State::WithdrawBuffered(With(State::kInbox), kOwner));
  EXPECT_EQ(Word(), Mk(State::kInbox | State::kRevoked));
  EXPECT_FALSE(
      State::WithdrawBuffered(With(State::kInbox | State::kRevoked), kOwner));
  EXPECT_EQ(Word(), Mk(State::kInbox | State::kRevoked));
  EXPECT_FALSE(State::WithdrawBuffered(With(State::kPending), kOwner));
  EXPECT_EQ(Word(), Mk(State::kPending));
  EXPECT_FALSE(State::WithdrawBuffered(With(State::kInbox), kOwner + 1));
  EXPECT_EQ(Word(), Mk(State::kInbox));
}

TEST_F(TaskStateTest, TakeFromInboxPlacesALiveTask) {
  EXPECT_EQ(State::TakeFromInbox(With(State::kInbox), kOwner),
            State::Drained::kPlaced);
  EXPECT_EQ(Word(), Mk(State::kPending));
  EXPECT_EQ(Due(), kDue);
}

TEST_F(TaskStateTest, TakeFromInboxReleasesARevokedTask) {
  EXPECT_EQ(State::TakeFromInbox(With(State::kInbox | State::kRevoked), kOwner),
            State::Drained::kReleased);
  EXPECT_EQ(Word(), 0u);
  EXPECT_EQ(Due(), State::kCancelledDue);
}

TEST_F(TaskStateTest, ReleaseRevokedGoesIdle) {
  State::ReleaseRevoked(With(State::kInbox | State::kRevoked));
  EXPECT_EQ(Word(), 0u);
  EXPECT_EQ(Due(), State::kCancelledDue);
}

}  // namespace
}  // namespace internal
}  // namespace timingwheel
