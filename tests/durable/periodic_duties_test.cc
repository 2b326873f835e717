// Copyright 2026 The timingwheel Authors.
//
// PeriodicDuties: the maintenance thread's table runs every-round duties
// each round, periodic ones when due or asked for, in the order added, and
// reports the earliest next-due instant to sleep until.

#include "durable/engine/periodic_duties.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

class PeriodicDutiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    duties_.Add("lease", 30, 30, [this] { ran_.push_back("lease"); });
    duties_.Add("requeue", 0, 0, [this] { ran_.push_back("requeue"); });
    duties_.Add(
        "load", 100, 100, [this] { ran_.push_back("load"); },
        [this] { return load_asked_; });
    duties_.Add("fire", 0, 0, [this] { ran_.push_back("fire"); });
  }

  std::vector<std::string> Round(int64_t now) {
    ran_.clear();
    duties_.RunDue(now);
    return ran_;
  }

  PeriodicDuties duties_;
  std::vector<std::string> ran_;
  bool load_asked_ = false;
};

TEST_F(PeriodicDutiesTest, EveryRoundDutiesRunEachRoundPeriodicOnesWhenDue) {
  EXPECT_EQ(Round(0), (std::vector<std::string>{"requeue", "fire"}));
  EXPECT_EQ(duties_.NextDue(), 30);
  EXPECT_EQ(Round(29), (std::vector<std::string>{"requeue", "fire"}));
  // Due: in the order added, and then due again one period after the round.
  EXPECT_EQ(Round(31), (std::vector<std::string>{"lease", "requeue", "fire"}));
  EXPECT_EQ(duties_.NextDueOf("lease"), 61);
  EXPECT_EQ(duties_.NextDue(), 61);
  EXPECT_EQ(Round(100),
            (std::vector<std::string>{"lease", "requeue", "load", "fire"}));
  EXPECT_EQ(duties_.NextDueOf("load"), 200);
  EXPECT_EQ(duties_.NextDue(), 130);
}

TEST_F(PeriodicDutiesTest, AskedForDutyRunsEarlyAndRestartsItsPeriod) {
  load_asked_ = true;
  EXPECT_EQ(Round(10), (std::vector<std::string>{"requeue", "load", "fire"}));
  EXPECT_EQ(duties_.NextDueOf("load"), 110);
  load_asked_ = false;
  EXPECT_EQ(Round(105), (std::vector<std::string>{"lease", "requeue", "fire"}));
  EXPECT_EQ(Round(110), (std::vector<std::string>{"requeue", "load", "fire"}));
}

TEST(PeriodicDutiesEmptyTest, NothingPeriodicMeansNoDeadline) {
  PeriodicDuties duties;
  int rounds = 0;
  duties.Add("every round", 0, 0, [&rounds] { ++rounds; });
  duties.RunDue(5);
  duties.RunDue(6);
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(duties.NextDue(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(duties.NextDueOf("missing"), std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
