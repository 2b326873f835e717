// Copyright 2026 The timingwheel Authors.
//
// The database stopped and started again while two scheduler processes fire
// tasks (through $TIMINGWHEEL_PG_CTL: the real server, stopped with
// `pg_ctl -m fast`). Fires due during the outage are delayed (counted and
// printed), none is lost, none runs twice. A handler that always fails
// (tasks "bad-*") ends FAILED after its attempts, and does not hold up the
// tasks fired in the same batch. Exclusive: it stops the shared server.

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::ServerControl;
using durable_testing::TaskMatch;

constexpr int kTtlMs = 3000;
constexpr int kTasks = 200;  // "ok-*", due over 4 s.
constexpr int kBatch = 20;   // "same-*" and "bad-*", due at one instant.

TEST(FaultOutageTest, FiresDuringAnOutageAreDelayedNotLostNorDoubled) {
  std::string error;
  std::unique_ptr<FaultDb> db = FaultDb::Create(&error);
  ASSERT_NE(db, nullptr) << error;
  const std::vector<std::string> flags = {"--fail_prefix=bad-",
                                          "--max_attempts=3",
                                          "--backoff_ms=200", "--threads=2"};
  SchedulerProcess p1, p2;
  ASSERT_TRUE(p1.Start(db->conninfo(), "outage-1", kTtlMs, flags));
  ASSERT_TRUE(WaitFor([&] { return db->SlotsOf("outage-1") == 64; }));
  ASSERT_TRUE(db->WatchLeases());
  ASSERT_TRUE(p2.Start(db->conninfo(), "outage-2", kTtlMs, flags));
  ASSERT_TRUE(WaitFor([&] {
    return db->SlotsOf("outage-1") == 32 && db->SlotsOf("outage-2") == 32;
  }));

  // One instant: as many failing handlers as good ones in the same batches.
  ASSERT_TRUE(db->ScheduleTasks("bad-", kBatch / 2, absl::Milliseconds(300)) &&
              db->ScheduleTasks("same-", kBatch / 2, absl::Milliseconds(300)));
  ASSERT_TRUE(db->store().ForceDueAtEarliest().ok());
  ASSERT_TRUE(db->ScheduleTasks("ok-", kTasks, absl::Milliseconds(500),
                                absl::Milliseconds(4000) / kTasks));
  ASSERT_TRUE(WaitFor([&] {
    return db->CountTasks(
               TaskMatch().State(TaskState::kSuccess).IdPrefix("ok-")) >= 10;
  }));

  // The outage: about 2 s with the stop and start, shorter than the TTL.
  ASSERT_TRUE(ServerControl("stop").ok());
  const absl::Time stopped = absl::Now();
  absl::SleepFor(absl::Milliseconds(1500));
  ASSERT_TRUE(ServerControl("start").ok());
  const absl::Time started = absl::Now();

  auto count_state = [&](const std::string& prefix, TaskState state) {
    return db->CountTasks(TaskMatch().State(state).IdPrefix(prefix));
  };
  ASSERT_TRUE(WaitFor([&] {
    return count_state("ok-", TaskState::kSuccess) == kTasks &&
           count_state("same-", TaskState::kSuccess) == kBatch / 2 &&
           count_state("bad-", TaskState::kFailed) == kBatch / 2;
  })) << "after the outage: ok SUCCESS "
      << count_state("ok-", TaskState::kSuccess) << "/" << kTasks
      << ", same SUCCESS " << count_state("same-", TaskState::kSuccess)
      << ", bad FAILED " << count_state("bad-", TaskState::kFailed);

  std::map<std::string, int> runs = db->RunsById();
  for (int i = 0; i < kTasks; ++i) {
    EXPECT_EQ(runs[absl::StrCat("ok-", i)], 1) << "ok-" << i;
  }
  for (int i = 0; i < kBatch / 2; ++i) {
    EXPECT_EQ(runs[absl::StrCat("same-", i)], 1) << "same-" << i;
    EXPECT_EQ(runs[absl::StrCat("bad-", i)], 3) << "bad-" << i;
  }
  EXPECT_EQ(db->CountTasks(TaskMatch().State(TaskState::kFailed).NotAttempt(3)),
            0);
  // The failing handlers did not hold up the good tasks of their batch.
  EXPECT_LT(db->LatenessUs(1.0, TaskMatch().IdPrefix("same-")), 1000000);
  // Never early (a retry moves its task's due time: bad-* are not compared).
  bool read = false;
  const std::vector<FaultDb::RunAgainstDue> all_runs =
      db->RunsAgainstDue(TaskMatch(), &read);
  auto count_runs = [&](auto pred) {
    return read ? std::count_if(all_runs.begin(), all_runs.end(), pred) : -1;
  };
  EXPECT_EQ(count_runs([](const FaultDb::RunAgainstDue& r) {
              return r.at_us < r.due_us && !absl::StartsWith(r.id, "bad-");
            }),
            0);
  EXPECT_EQ(db->EarlyTakeovers(), 0);
  // Fires due during the outage ran after it.
  const int64_t stopped_us = absl::ToUnixMicros(stopped);
  const int64_t started_us = absl::ToUnixMicros(started);
  auto in_outage = [&](const FaultDb::RunAgainstDue& r) {
    return r.due_us >= stopped_us && r.due_us <= started_us;
  };
  const int64_t delayed = count_runs([&](const FaultDb::RunAgainstDue& r) {
    return in_outage(r) && r.at_us >= started_us;
  });
  int64_t delay_max_us = read ? 0 : -1;
  for (const FaultDb::RunAgainstDue& r : all_runs) {
    if (in_outage(r)) delay_max_us = std::max(delay_max_us, r.at_us - r.due_us);
  }
  EXPECT_GT(delayed, 0) << "no fire fell into the outage";
  EXPECT_TRUE(p1.Terminate());
  EXPECT_TRUE(p2.Terminate());
  std::printf(
      "outage of %.0f ms: %lld fires delayed past it (at most %.0f ms late), "
      "none lost, none doubled; db errors %lld + %lld, reconnects %lld + "
      "%lld; %d always-failing handlers FAILED after 3 attempts\n",
      absl::ToDoubleMilliseconds(started - stopped),
      static_cast<long long>(delayed), delay_max_us / 1000.0,
      static_cast<long long>(p1.Metric("db_errors")),
      static_cast<long long>(p2.Metric("db_errors")),
      static_cast<long long>(p1.Metric("reconnects")),
      static_cast<long long>(p2.Metric("reconnects")), kBatch / 2);
  EXPECT_GT(p1.Metric("reconnects") + p2.Metric("reconnects"), 0);
}

}  // namespace
}  // namespace timingwheel
