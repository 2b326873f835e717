// Copyright 2026 The timingwheel Authors.
//
// The default report of an exception a callback threw names its type
// readably ("std::runtime_error", "int"), and tells apart exception types not
// derived from std::exception (each is reported once, not once for all).
// In its own binary: the report is once per process.

#include "timer/internal/report_error.h"

#include <exception>
#include <stdexcept>
#include <string>

#include "gtest/gtest.h"

namespace timingwheel {
namespace internal {
namespace {

template <typename E>
std::exception_ptr Thrown(E e) {
  try {
    throw e;
  } catch (...) {
    return std::current_exception();
  }
}

std::string Report(std::exception_ptr error) {
  ::testing::internal::CaptureStderr();
  ReportUnhandledError(error, "a test callback", "TestOptions::hook");
  return ::testing::internal::GetCapturedStderr();
}

TEST(ReportErrorTest, NamesTypesReadablyAndTellsNonStandardTypesApart) {
  EXPECT_EQ(Report(Thrown(std::runtime_error("boom"))),
            "timingwheel: a test callback threw (std::runtime_error: boom); "
            "set TestOptions::hook to handle it (this type is reported "
            "once)\n");
  EXPECT_EQ(Report(Thrown(std::runtime_error("again"))), "");
  EXPECT_EQ(Report(Thrown(42)),
            "timingwheel: a test callback threw (int: an exception not "
            "derived from std::exception); set TestOptions::hook to handle "
            "it (this type is reported once)\n");
  // Another type not derived from std::exception is reported too.
  const std::string text = Report(Thrown(std::string("text")));
  EXPECT_NE(text.find("threw (std::"), std::string::npos) << text;
  EXPECT_NE(text.find("string"), std::string::npos) << text;
  EXPECT_EQ(Report(Thrown(7)), "");
}

}  // namespace
}  // namespace internal
}  // namespace timingwheel
