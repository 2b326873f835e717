// Copyright 2026 The timingwheel Authors.
//
// Driving a timer from an owner's event loop (timer/event_loop.h):
// NextDueIn(), EpollTimeoutMs() rounding, the on_next_due_earlier hook, and
// one AdvanceClock(absl::ZeroDuration()) flushing everything due.
// Deterministic (manual clock, inline executor). The real epoll loop is
// tests/examples/epoll_loop.cc.

#include "timer/event_loop.h"

#include <climits>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "timer/executor.h"
#include "timer/testing/manual_clock.h"
#include "timer/time_point.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::ManualClock;
using ::timingwheel::testing::RunWithin;

// Runs callbacks at once on the calling thread, as an event loop would.
class InlineExecutor final : public Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

TEST(EpollTimeoutMsTest, RoundsUpNeverDown) {
  EXPECT_EQ(EpollTimeoutMs(absl::InfiniteDuration()), -1);
  EXPECT_EQ(EpollTimeoutMs(absl::ZeroDuration()), 0);
  EXPECT_EQ(EpollTimeoutMs(absl::Milliseconds(-5)), 0);
  EXPECT_EQ(EpollTimeoutMs(absl::Nanoseconds(1)), 1);
  EXPECT_EQ(EpollTimeoutMs(absl::Microseconds(1200)), 2);
  EXPECT_EQ(EpollTimeoutMs(absl::Milliseconds(7)), 7);
  EXPECT_EQ(EpollTimeoutMs(absl::Milliseconds(7) + absl::Nanoseconds(1)), 8);
  EXPECT_EQ(EpollTimeoutMs(absl::Hours(24 * 365)), INT_MAX);
}

class EventLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.clock = &clock_;
    options_.executor = &executor_;
    options_.start_reaper = false;
    options_.on_next_due_earlier = [this] {
      ++wakeups_;
      // No lock of the timer is held: calling it must not deadlock.
      hook_saw_ = timer_->NextDueIn();
    };
    timer_ = Timer::Create(options_).value();
  }

  ManualClock clock_;
  InlineExecutor executor_;
  TimerOptions options_;
  std::unique_ptr<Timer> timer_;
  int wakeups_ = 0;
  absl::Duration hook_saw_ = absl::ZeroDuration();
};

TEST_F(EventLoopTest, NextDueInFollowsTheEarliestTask) {
  EXPECT_EQ(timer_->NextDueIn(), absl::InfiniteDuration());
  timer_->Schedule(absl::Microseconds(1500), [] {}).value();
  EXPECT_EQ(timer_->NextDueIn(), absl::Microseconds(1500));
  EXPECT_EQ(EpollTimeoutMs(timer_->NextDueIn()), 2);
  clock_.AdvanceBy(absl::Microseconds(600));
  EXPECT_EQ(timer_->NextDueIn(), absl::Microseconds(900));
  EXPECT_EQ(EpollTimeoutMs(timer_->NextDueIn()), 1);
  clock_.AdvanceBy(absl::Microseconds(900));
  EXPECT_EQ(timer_->NextDueIn(), absl::ZeroDuration());
  EXPECT_EQ(EpollTimeoutMs(timer_->NextDueIn()), 0);
  EXPECT_TRUE(timer_->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(timer_->NextDueIn(), absl::InfiniteDuration());
  EXPECT_EQ(EpollTimeoutMs(timer_->NextDueIn()), -1);
}

TEST_F(EventLoopTest, NeverLaterThanTheDueTimeAcrossLevels) {
  // A timer in an upper level: the next due instant may come early (a
  // cascade), never late, and the advance it calls for runs nothing early.
  bool ran = false;
  timer_->Schedule(absl::Seconds(90), [&] { ran = true; }).value();
  absl::Duration elapsed = absl::ZeroDuration();
  for (int turn = 0; turn < 100 && !ran; ++turn) {
    const absl::Duration next = timer_->NextDueIn();
    ASSERT_LE(elapsed + next, absl::Seconds(90));
    clock_.AdvanceBy(next);
    elapsed += next;
    timer_->AdvanceClock(absl::ZeroDuration());
    EXPECT_EQ(ran, elapsed >= absl::Seconds(90));
  }
  EXPECT_TRUE(ran);
  EXPECT_EQ(elapsed, absl::Seconds(90));
}

TEST_F(EventLoopTest, OneZeroAdvanceFlushesEverythingDue) {
  std::vector<int> order;
  for (int i = 0; i < 3000; ++i) {
    // Spread over levels 0 and 1 (512 ms per level-0 revolution).
    timer_
        ->Schedule(absl::Milliseconds(1 + i),
                   [&order, i] { order.push_back(i); })
        .value();
  }
  // A callback that adds a task already due: run in the same call.
  timer_
      ->Schedule(
          absl::Milliseconds(5),
          [&] {
            timer_->Schedule(absl::ZeroDuration(), [&] { order.push_back(-1); })
                .value();
          })
      .value();
  clock_.AdvanceBy(absl::Seconds(10));
  EXPECT_TRUE(timer_->AdvanceClock(absl::ZeroDuration()));
  EXPECT_EQ(order.size(), 3001u);
  EXPECT_EQ(timer_->NumPending(), 0);
  EXPECT_FALSE(timer_->AdvanceClock(absl::ZeroDuration()));
}

TEST_F(EventLoopTest, HookCalledOnlyWhenTheNextDueInstantMovesEarlier) {
  RunWithin("the hook (a lock held would deadlock it)", [&] {
    timer_->Schedule(absl::Seconds(10), [] {}).value();
    EXPECT_EQ(wakeups_, 1);  // Empty -> 10 s.
    EXPECT_EQ(hook_saw_, absl::Seconds(10));
    timer_->Schedule(absl::Seconds(20), [] {}).value();
    EXPECT_EQ(wakeups_, 1);  // Later: the loop's timeout is still right.
    timer_->Schedule(absl::Seconds(3), [] {}).value();
    EXPECT_EQ(wakeups_, 2);
    EXPECT_EQ(hook_saw_, absl::Seconds(3));
    timer_->Schedule(absl::Seconds(3), [] {}).value();
    EXPECT_EQ(wakeups_, 2);  // Same instant: not earlier.
  });
}

// A task that does nothing, for AddAt() and AddBatch().
class Noop final : public TimerTask {
 public:
  void Run() override {}
};

TEST_F(EventLoopTest, AbsoluteDeadlinesCallTheHookWhenEarlier) {
  RunWithin("the hook (a lock held would deadlock it)", [&] {
    const TimePoint now = timer_->Now();
    timer_->ScheduleAt(now + absl::Seconds(10), [] {}).value();
    EXPECT_EQ(wakeups_, 1);  // Empty -> 10 s.
    EXPECT_EQ(hook_saw_, absl::Seconds(10));
    ASSERT_TRUE(timer_->AddAt(MakeTask<Noop>(), now + absl::Seconds(20)).ok());
    EXPECT_EQ(wakeups_, 1);  // Later: not earlier.
    ASSERT_TRUE(timer_->AddAt(MakeTask<Noop>(), now + absl::Seconds(4)).ok());
    EXPECT_EQ(wakeups_, 2);
    EXPECT_EQ(hook_saw_, absl::Seconds(4));
  });
}

TEST_F(EventLoopTest, BatchCallsTheHookOnceWhenItMakesTheNextDueEarlier) {
  RunWithin("the hook (a lock held would deadlock it)", [&] {
    timer_->Schedule(absl::Seconds(10), [] {}).value();
    ASSERT_EQ(wakeups_, 1);
    std::vector<TimerBatchEntry> later = {
        {MakeTask<Noop>(), absl::Seconds(30)},
        {MakeTask<Noop>(), absl::Seconds(20)}};
    ASSERT_TRUE(timer_->AddBatch(later).ok());
    EXPECT_EQ(wakeups_, 1);  // Nothing earlier than 10 s.
    std::vector<TimerBatchEntry> earlier = {
        {MakeTask<Noop>(), absl::Seconds(30)},
        {MakeTask<Noop>(), absl::Seconds(5)},
        {MakeTask<Noop>(), absl::Seconds(2)}};
    ASSERT_TRUE(timer_->AddBatch(earlier).ok());
    EXPECT_EQ(wakeups_, 2);  // Once for the batch, after it.
    EXPECT_EQ(hook_saw_, absl::Seconds(2));
  });
}

TEST_F(EventLoopTest, RescheduleEarlierCallsTheHook) {
  RunWithin("the hook (a lock held would deadlock it)", [&] {
    TimerHandle first = timer_->Schedule(absl::Seconds(10), [] {}).value();
    TimerHandle second = timer_->Schedule(absl::Seconds(20), [] {}).value();
    ASSERT_EQ(wakeups_, 1);
    EXPECT_EQ(second.Reschedule(absl::Seconds(15)), RescheduleResult::kMoved);
    EXPECT_EQ(wakeups_, 1);  // Still after the first.
    EXPECT_EQ(second.RescheduleAt(timer_->Now() + absl::Seconds(1)),
              RescheduleResult::kMoved);
    EXPECT_EQ(wakeups_, 2);
    EXPECT_EQ(hook_saw_, absl::Seconds(1));
  });
}

}  // namespace
}  // namespace timingwheel
