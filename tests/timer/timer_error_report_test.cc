// Copyright 2026 The timingwheel Authors.
//
// With no on_callback_error hook, an exception thrown by a timer callback is
// reported on stderr, once per distinct exception type, and counted; with a
// hook, the hook gets it and nothing is printed. In its own binary: the
// report is once per process.

#include <stdexcept>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::MockTimer;

int CountOf(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(TimerErrorReportTest, WithoutAHookEachTypeIsReportedOnceOnStderr) {
  MockTimer mock;
  for (int i = 0; i < 3; ++i) {
    mock.timer()
        .Schedule(
            absl::Seconds(1),
            [i] { throw std::runtime_error("boom " + std::to_string(i)); })
        .value();
  }
  mock.timer()
      .Schedule(absl::Seconds(1), [] { throw std::logic_error("broken"); })
      .value();
  mock.timer().Schedule(absl::Seconds(1), [] { throw 42; }).value();
  bool later_ran = false;
  mock.timer().Schedule(absl::Seconds(2), [&] { later_ran = true; }).value();

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 5u);
  // Again later: the same types are not reported twice.
  mock.timer()
      .Schedule(absl::Seconds(1), [] { throw std::runtime_error("again"); })
      .value();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 2u);
  const std::string err = ::testing::internal::GetCapturedStderr();

  EXPECT_TRUE(later_ran);  // The executor went on.
  EXPECT_EQ(CountOf(err, "timingwheel: a timer callback threw"), 3) << err;
  EXPECT_EQ(CountOf(err, "runtime_error"), 1) << err;
  EXPECT_EQ(CountOf(err, "boom 0"), 1) << err;
  EXPECT_EQ(CountOf(err, "logic_error"), 1) << err;
  EXPECT_EQ(CountOf(err, "broken"), 1) << err;
  EXPECT_EQ(CountOf(err, "not derived from std::exception"), 1) << err;
  EXPECT_EQ(CountOf(err, "TimerOptions::on_callback_error"), 3) << err;
  EXPECT_EQ(mock.timer().Metrics().callback_errors, 6);
}

TEST(TimerErrorReportTest, AHookGetsTheErrorAndNothingIsPrinted) {
  TimerOptions options;
  int hooked = 0;
  options.on_callback_error = [&](std::exception_ptr) { ++hooked; };
  MockTimer mock(options);
  mock.timer()
      .Schedule(absl::Seconds(1), [] { throw std::out_of_range("hooked"); })
      .value();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(mock.AdvanceBy(absl::Seconds(1)), 1u);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(hooked, 1);
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace timingwheel
