// Copyright 2026 The timingwheel Authors.
//
// The baselines must be correct for the comparison to mean anything: one
// typed suite checks each hand-written baseline, driven deterministically by
// a step clock (no thread, no sleeping), for never early, bounded lateness,
// exactly once, and cancel.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "benchmarks/baselines/heap_timer.h"
#include "benchmarks/baselines/hierarchical_tick_timer.h"
#include "benchmarks/baselines/lazy_heap_timer.h"
#include "benchmarks/baselines/round_wheel_timer.h"
#include "benchmarks/step_clock.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace bench {
namespace {

constexpr int64_t kMs = 1000000;

// Factories: each baseline on the step clock, with its lateness bound.
struct Heap {
  static std::unique_ptr<LoopTimer> Make(Clock* clock) {
    return std::make_unique<HeapTimer>(clock);
  }
  static constexpr int64_t kMaxLate = 1 * kMs;  // One step of the test.
};
struct LazyHeap {
  static std::unique_ptr<LoopTimer> Make(Clock* clock) {
    return std::make_unique<LazyHeapTimer>(clock);
  }
  static constexpr int64_t kMaxLate = 1 * kMs;
};
struct RoundWheel {
  static std::unique_ptr<LoopTimer> Make(Clock* clock) {
    return std::make_unique<RoundWheelTimer>(absl::Milliseconds(1), 512, clock);
  }
  static constexpr int64_t kMaxLate = 2 * kMs;  // A tick plus a step.
};
struct HierTick {
  static std::unique_ptr<LoopTimer> Make(Clock* clock) {
    return std::make_unique<HierarchicalTickTimer>(absl::Milliseconds(1), 8,
                                                   clock);
  }
  static constexpr int64_t kMaxLate = 2 * kMs;
};

template <typename T>
class BaselineTest : public ::testing::Test {};

using Baselines = ::testing::Types<Heap, LazyHeap, RoundWheel, HierTick>;
TYPED_TEST_SUITE(BaselineTest, Baselines);

TYPED_TEST(BaselineTest, FiresOnceNeverEarlyAndHonoursCancel) {
  StepClock clock;
  std::unique_ptr<LoopTimer> timer = TypeParam::Make(&clock);
  std::mt19937_64 rng(1);
  // Up to 10 minutes: several levels of the small (8-slot) hierarchical
  // wheel, several revolutions of the round wheel.
  std::uniform_int_distribution<int64_t> delay(0, 600000 * kMs);
  constexpr int kTimers = 2000;
  std::vector<int64_t> due(kTimers), fired(kTimers, -1);
  std::vector<int> runs(kTimers, 0);
  std::vector<TimerId> ids(kTimers);
  int64_t last_due = 0;
  for (int i = 0; i < kTimers; ++i) {
    // Spread the adds over the first second, as if the clock moved.
    clock.Set((i % 1000) * kMs);
    timer->RunDue();
    const int64_t d = delay(rng);
    due[i] = clock.NowNanos() + d;
    last_due = std::max(last_due, due[i]);
    ids[i] = timer->Schedule(absl::Nanoseconds(d), [&, i] {
      fired[i] = clock.NowNanos();
      ++runs[i];
    });
  }
  for (int i = 0; i < kTimers; i += 3) {
    EXPECT_TRUE(timer->Cancel(ids[i])) << i;
    EXPECT_FALSE(timer->Cancel(ids[i])) << i;  // Already cancelled.
  }
  for (int64_t t = 1000 * kMs; t <= last_due + 3 * kMs; t += kMs) {
    clock.Set(t);
    timer->RunDue();
  }
  for (int i = 0; i < kTimers; ++i) {
    if (i % 3 == 0) {
      EXPECT_EQ(runs[i], 0) << "cancelled timer " << i << " ran";
      continue;
    }
    ASSERT_EQ(runs[i], 1) << "timer " << i;
    EXPECT_GE(fired[i], due[i]) << "timer " << i << " fired early";
    EXPECT_LE(fired[i] - due[i], TypeParam::kMaxLate) << "timer " << i;
    EXPECT_FALSE(timer->Cancel(ids[i])) << "cancel after firing, " << i;
  }
}

// Cancelling most timers (the lazy heap then compacts), then reusing the
// freed slots: the survivors and the new timers fire once, never early, the
// cancelled never; stale ids are refused.
TYPED_TEST(BaselineTest, CancellingMostKeepsTheRestAndRefusesStaleIds) {
  StepClock clock;
  std::unique_ptr<LoopTimer> timer = TypeParam::Make(&clock);
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int64_t> delay(1 * kMs, 5000 * kMs);
  constexpr int kTimers = 1000;
  std::vector<int64_t> due(2 * kTimers), fired(2 * kTimers, -1);
  std::vector<int> runs(2 * kTimers, 0);
  std::vector<TimerId> ids(2 * kTimers);
  auto schedule = [&](int i) {
    const int64_t d = delay(rng);
    due[i] = clock.NowNanos() + d;
    ids[i] = timer->Schedule(absl::Nanoseconds(d), [&, i] {
      fired[i] = clock.NowNanos();
      ++runs[i];
    });
  };
  for (int i = 0; i < kTimers; ++i) schedule(i);
  std::vector<int> order(kTimers);
  for (int i = 0; i < kTimers; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  const int cancelled = kTimers * 9 / 10;
  for (int k = 0; k < cancelled; ++k) {
    ASSERT_TRUE(timer->Cancel(ids[order[k]])) << order[k];
  }
  for (int i = kTimers; i < 2 * kTimers; ++i) schedule(i);  // Reuses slots.
  for (int k = 0; k < cancelled; ++k) {
    EXPECT_FALSE(timer->Cancel(ids[order[k]])) << "stale id " << order[k];
  }
  for (int64_t t = kMs; t <= 5003 * kMs; t += kMs) {
    clock.Set(t);
    timer->RunDue();
  }
  std::vector<bool> is_cancelled(2 * kTimers, false);
  for (int k = 0; k < cancelled; ++k) is_cancelled[order[k]] = true;
  for (int i = 0; i < 2 * kTimers; ++i) {
    if (is_cancelled[i]) {
      EXPECT_EQ(runs[i], 0) << "cancelled timer " << i << " ran";
      continue;
    }
    ASSERT_EQ(runs[i], 1) << "timer " << i;
    EXPECT_GE(fired[i], due[i]) << "timer " << i << " fired early";
    EXPECT_LE(fired[i] - due[i], TypeParam::kMaxLate) << "timer " << i;
  }
}

TYPED_TEST(BaselineTest, ZeroDelayRunsOnTheNextAdvance) {
  StepClock clock;
  std::unique_ptr<LoopTimer> timer = TypeParam::Make(&clock);
  int runs = 0;
  timer->Schedule(absl::ZeroDuration(), [&] { ++runs; });
  EXPECT_EQ(runs, 0);  // Never on the caller's thread inside Schedule().
  clock.Set(2 * kMs);
  timer->RunDue();
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel
