// Copyright 2026 The timingwheel Authors.
//
// Scheduler processes joining and leaving while tasks fire: a third process
// joins two running ones and the slots rebalance to a fair share within two
// renewal rounds; a process shut down cleanly (SIGTERM) hands its slots over
// at once, not after the lease TTL. No task is lost or run twice, and no
// slot is ever taken while its owner's lease is valid.

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::TaskMatch;

// Long enough that "at once" (the next renewal round, a third of it) and
// "after the TTL" are seconds apart.
constexpr int kTtlMs = 3000;
constexpr absl::Duration kRound = absl::Milliseconds(kTtlMs / 3);
constexpr int kTasks = 300;

TEST(FaultMembershipTest, JoinRebalancesAndCleanLeaveHandsOverAtOnce) {
  std::string error;
  std::unique_ptr<FaultDb> db = FaultDb::Create(&error);
  ASSERT_NE(db, nullptr) << error;
  SchedulerProcess p1, p2, p3;
  ASSERT_TRUE(p1.Start(db->conninfo(), "member-1", kTtlMs));
  ASSERT_TRUE(WaitFor([&] { return db->SlotsOf("member-1") == 64; }));
  ASSERT_TRUE(db->WatchLeases());
  ASSERT_TRUE(p2.Start(db->conninfo(), "member-2", kTtlMs));
  ASSERT_TRUE(WaitFor([&] {
    return db->SlotsOf("member-1") == 32 && db->SlotsOf("member-2") == 32;
  })) << "two members never split the slots 32/32";
  // Tasks due over the next 6 s, firing while members join and leave.
  ASSERT_TRUE(db->ScheduleTasks("m-", kTasks, absl::Milliseconds(200),
                                absl::Milliseconds(20)));

  // A third member joins: within two renewal rounds (of every member) each
  // holds its fair share, ceil(64 / 3) = 22, or the remainder.
  ASSERT_TRUE(p3.Start(db->conninfo(), "member-3", kTtlMs));
  ASSERT_TRUE(WaitFor([&] {
    auto member = db->store().HasNode("member-3");
    return member.ok() && *member;
  }));
  const absl::Time joined = absl::Now();
  auto fair = [&] {
    int64_t a = db->SlotsOf("member-1"), b = db->SlotsOf("member-2"),
            c = db->SlotsOf("member-3");
    return a + b + c == 64 && std::max({a, b, c}) <= 22 &&
           std::min({a, b, c}) >= 20;
  };
  ASSERT_TRUE(WaitFor(fair, absl::Seconds(20)))
      << "no fair share: " << db->SlotsOf("member-1") << "/"
      << db->SlotsOf("member-2") << "/" << db->SlotsOf("member-3");
  const absl::Duration rebalance = absl::Now() - joined;
  // Two rounds, plus slack for a loaded (or sanitized) machine.
  EXPECT_LT(rebalance, 2 * kRound + absl::Milliseconds(800));

  // member-2 leaves cleanly: its slots are free at once and taken at the
  // others' next round, well before its lease would have run out.
  const absl::Time leaving = absl::Now();
  ASSERT_TRUE(p2.Terminate()) << "member-2 did not shut down cleanly";
  EXPECT_EQ(db->SlotsOf("member-2"), 0);
  ASSERT_TRUE(WaitFor([&] {
    return db->SlotsOf("member-1") + db->SlotsOf("member-3") == 64;
  })) << "member-2's slots were not taken over";
  const absl::Duration handover = absl::Now() - leaving;
  EXPECT_LT(handover, absl::Milliseconds(kTtlMs))
      << "the clean shutdown's slots waited for the TTL";

  ASSERT_TRUE(WaitFor([&] {
    return db->CountTasks(TaskMatch().State(TaskState::kSuccess)) == kTasks;
  })) << "tasks lost: "
      << db->CountTasks(TaskMatch().State(TaskState::kSuccess)) << " of "
      << kTasks << " SUCCESS";
  std::map<std::string, int> runs = db->RunsById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kTasks));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id << " ran " << n;
  EXPECT_EQ(db->EarlyTakeovers(), 0)
      << "a slot was taken before its lease ran out";
  EXPECT_EQ(db->RunsBeforeDue(), 0);
  std::printf(
      "join: fair share %.0f ms after the third member's heartbeat (rounds "
      "of %.0f ms); clean leave: slots taken over in %.0f ms (TTL %d ms); "
      "runs per member: %lld/%lld/%lld\n",
      absl::ToDoubleMilliseconds(rebalance), absl::ToDoubleMilliseconds(kRound),
      absl::ToDoubleMilliseconds(handover), kTtlMs,
      static_cast<long long>(
          db->Query("SELECT count(*) FROM test_runs WHERE node = 'member-1'")),
      static_cast<long long>(
          db->Query("SELECT count(*) FROM test_runs WHERE node = 'member-2'")),
      static_cast<long long>(
          db->Query("SELECT count(*) FROM test_runs WHERE node = 'member-3'")));
  EXPECT_TRUE(p1.Terminate());
  EXPECT_TRUE(p3.Terminate());
}

}  // namespace
}  // namespace timingwheel
