#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

TEST(DepsSmokeTest, DebianAbseilLinks) {
  absl::StatusOr<int> value = absl::InvalidArgumentError("bad");
  EXPECT_FALSE(value.ok());
  EXPECT_EQ(
      absl::StrFormat("%d ms", absl::ToInt64Milliseconds(absl::Seconds(2))),
      "2000 ms");
}
