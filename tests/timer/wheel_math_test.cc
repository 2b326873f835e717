// Copyright 2026 The timingwheel Authors.
//
// Tests of the wheel's pure arithmetic (timer/internal/wheel_math.h).

#include "timer/internal/wheel_math.h"

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace internal {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(SaturatingAddTest, AddsWithinRange) {
  EXPECT_EQ(SaturatingAdd(0, 0), 0);
  EXPECT_EQ(SaturatingAdd(3, 4), 7);
  EXPECT_EQ(SaturatingAdd(kMax - 5, 5), kMax);
  EXPECT_EQ(SaturatingAdd(0, kMax), kMax);
}

TEST(SaturatingAddTest, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(SaturatingAdd(kMax - 5, 6), kMax);
  EXPECT_EQ(SaturatingAdd(1, kMax), kMax);
  EXPECT_EQ(SaturatingAdd(kMax, kMax), kMax);
  EXPECT_EQ(SaturatingAdd(kMax / 2 + 1, kMax / 2 + 1), kMax);
}

TEST(SaturatingMultiplyTest, MultipliesWithinRange) {
  EXPECT_EQ(SaturatingMultiply(0, 7), 0);
  EXPECT_EQ(SaturatingMultiply(10, 5), 50);
  EXPECT_EQ(SaturatingMultiply(int64_t{1} << 31, int64_t{1} << 31),
            int64_t{1} << 62);
  EXPECT_EQ(SaturatingMultiply(kMax, 1), kMax);
  EXPECT_EQ(SaturatingMultiply(kMax / 3, 3), kMax / 3 * 3);
}

TEST(SaturatingMultiplyTest, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(SaturatingMultiply(int64_t{1} << 32, int64_t{1} << 31), kMax);
  EXPECT_EQ(SaturatingMultiply(kMax / 3 + 1, 3), kMax);
  EXPECT_EQ(SaturatingMultiply(kMax, 2), kMax);
  EXPECT_EQ(SaturatingMultiply(kMax, kMax), kMax);
}

TEST(DelayToNanosTest, NegativeAndZeroAreDueNow) {
  EXPECT_EQ(DelayToNanos(absl::ZeroDuration()), 0);
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(-1)), 0);
  EXPECT_EQ(DelayToNanos(absl::Seconds(-5)), 0);
  EXPECT_EQ(DelayToNanos(-absl::InfiniteDuration()), 0);
}

TEST(DelayToNanosTest, ConvertsFiniteDelays) {
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(1)), 1);
  EXPECT_EQ(DelayToNanos(absl::Milliseconds(270)), 270'000'000);
  EXPECT_EQ(DelayToNanos(absl::Hours(24 * 365)),
            int64_t{24} * 365 * 3600 * 1'000'000'000);
}

TEST(DelayToNanosTest, SubNanosecondDelaysRoundUp) {
  // Never early, to the nanosecond: a sub-nanosecond part rounds up.
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(1) / 4), 1);
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(7) + absl::Nanoseconds(1) / 2), 8);
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(7) + absl::Nanoseconds(1) / 4), 8);
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(7)), 7);  // Whole: unchanged.
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(kMax) - absl::Nanoseconds(1) / 2),
            kMax);
}

TEST(DelayToNanosTest, AgreesWithAbseilAroundTheInlineBranchsEnd) {
  // The inline branch covers whole seconds below kMax / 10^9 - 1; around
  // that bound both branches must give Abseil's value, rounded up.
  const int64_t last_fast = kMax / 1'000'000'000 - 2;
  for (int64_t s = last_fast - 1; s <= last_fast + 3; ++s) {
    for (const absl::Duration extra :
         {absl::ZeroDuration(), absl::Nanoseconds(1) / 4,
          absl::Nanoseconds(999'999'999),
          absl::Nanoseconds(999'999'999) + absl::Nanoseconds(3) / 4}) {
      const absl::Duration d = absl::Seconds(s) + extra;
      const int64_t whole = absl::ToInt64Nanoseconds(d);
      const int64_t expected =
          d > absl::Nanoseconds(whole) && whole < kMax ? whole + 1 : whole;
      EXPECT_EQ(DelayToNanos(d), expected) << d;
    }
  }
  EXPECT_EQ(DelayToNanos(absl::Seconds(1) - absl::Nanoseconds(1) / 4),
            1'000'000'000);
  EXPECT_EQ(DelayToNanos(-absl::Nanoseconds(1) / 4), 0);
}

TEST(DelayToNanosTest, InfiniteAndHugeDelaysSaturate) {
  EXPECT_EQ(DelayToNanos(absl::InfiniteDuration()), kMax);
  EXPECT_EQ(DelayToNanos(absl::Hours(std::numeric_limits<int64_t>::max())),
            kMax);
  EXPECT_EQ(DelayToNanos(absl::Hours(24 * 365 * 1000)), kMax);  // 1000 years.
  EXPECT_EQ(DelayToNanos(absl::Nanoseconds(kMax)), kMax);
}

TEST(FloorToTickTest, RoundsDownToTheTickStart) {
  EXPECT_EQ(FloorToTick(0, 10), 0);
  EXPECT_EQ(FloorToTick(9, 10), 0);
  EXPECT_EQ(FloorToTick(10, 10), 10);
  EXPECT_EQ(FloorToTick(137, 50), 100);
  EXPECT_EQ(FloorToTick(137, 1), 137);
  EXPECT_EQ(FloorToTick(kMax, 10), kMax - kMax % 10);
  EXPECT_EQ(FloorToTick(kMax, kMax), kMax);
  EXPECT_EQ(FloorToTick(kMax - 1, kMax), 0);
}

TEST(LevelTickTest, EachLevelMultipliesByTheWheelSize) {
  EXPECT_EQ(LevelTick(10, 5, 0), 10);
  EXPECT_EQ(LevelTick(10, 5, 1), 50);
  EXPECT_EQ(LevelTick(10, 5, 2), 250);
  EXPECT_EQ(LevelTick(1'000'000, 512, 2), int64_t{1'000'000} * 512 * 512);
}

TEST(LevelTickTest, SaturatesAndStaysSaturated) {
  EXPECT_EQ(LevelTick(1, 2, 62), int64_t{1} << 62);
  EXPECT_EQ(LevelTick(1, 2, 63), kMax);
  EXPECT_EQ(LevelTick(1, 2, 100), kMax);
  EXPECT_EQ(LevelTick(kMax, 2, 0), kMax);
  EXPECT_EQ(LevelTick(kMax, 2, 5), kMax);
  // 10 * 5^26 > 2^63 > 10 * 5^25.
  int64_t tick = 10;
  for (int i = 0; i < 25; ++i) tick *= 5;
  EXPECT_EQ(LevelTick(10, 5, 25), tick);
  EXPECT_EQ(LevelTick(10, 5, 26), kMax);
}

TEST(DividerTest, MatchesHardwareDivisionEverywhere) {
  std::mt19937_64 random(42);
  const int64_t divisors[] = {1,
                              2,
                              3,
                              7,
                              10,
                              1'000'000,
                              512'000'000,
                              262'144'000'000,
                              (int64_t{1} << 62) + 1,
                              kMax - 1,
                              kMax};
  for (int64_t d : divisors) {
    const Divider divider(d);
    EXPECT_EQ(divider.divisor(), d);
    std::vector<int64_t> values = {0, 1, 2, d - 1, d, kMax, kMax - 1};
    if (d < kMax / 3) {
      values.insert(values.end(), {d + 1, 2 * d - 1, 2 * d, 3 * d + 1});
    }
    for (int i = 0; i < 20000; ++i) {
      values.push_back(static_cast<int64_t>(random() >> 1));
      values.push_back(static_cast<int64_t>(random() >> (1 + i % 60)));
    }
    for (int64_t n : values) {
      if (n < 0) continue;
      ASSERT_EQ(divider.Divide(n), n / d) << n << " / " << d;
      ASSERT_EQ(divider.Floor(n), n - n % d) << n << " / " << d;
    }
  }
}

TEST(IsPowerOfTwoTest, RecognizesPowersOfTwo) {
  EXPECT_FALSE(IsPowerOfTwo(0));
  EXPECT_FALSE(IsPowerOfTwo(-8));
  EXPECT_TRUE(IsPowerOfTwo(1));
  EXPECT_TRUE(IsPowerOfTwo(2));
  EXPECT_TRUE(IsPowerOfTwo(512));
  EXPECT_FALSE(IsPowerOfTwo(5));
  EXPECT_FALSE(IsPowerOfTwo(513));
  EXPECT_TRUE(IsPowerOfTwo(int64_t{1} << 62));
  EXPECT_FALSE(IsPowerOfTwo(kMax));
}

}  // namespace
}  // namespace internal
}  // namespace timingwheel
