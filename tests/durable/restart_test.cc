// Copyright 2026 The timingwheel Authors.
//
// The database restarted, and stopped for a while, under a running
// scheduler: real faults on the server `.ci/with-postgres` started (through
// $TIMINGWHEEL_PG_CTL). Exclusive: no other test runs meanwhile.

#include <memory>
#include <string>

#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::Recorder;
using durable_test::WaitFor;
using durable_testing::ServerControl;
using durable_testing::TestDatabase;

bool StateIs(DurableScheduler& s, const std::string& id, TaskState state) {
  auto info = s.Get(id);
  return info.ok() && info->state == state;
}

TEST(RestartTest, SchedulerSurvivesDatabaseRestartAndOutage) {
  auto db = TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  Recorder recorder;
  DurableOptions options;
  options.conninfo = (*db)->conninfo();
  options.handler = recorder.Handler();
  options.lease_ttl = absl::Seconds(3);
  options.slot_count = 64;
  auto s = DurableScheduler::Create(options);
  ASSERT_TRUE(s.ok()) << s.status();

  // Committed before the restart, due after it.
  ASSERT_TRUE((*s)->Schedule("before", absl::Seconds(2), "p").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(**s, "before", TaskState::kScheduled); }));
  ASSERT_TRUE(ServerControl("restart").ok());
  // The client connection reconnects by itself.
  EXPECT_TRUE((*s)->Schedule("after", absl::Milliseconds(100), "p").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(**s, "before", TaskState::kSuccess); }));
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(**s, "after", TaskState::kSuccess); }));
  EXPECT_GE((*s)->Metrics().reconnects, 1);

  // An outage: calls answer Unavailable; fires wait and run afterwards.
  ASSERT_TRUE((*s)->Schedule("during", absl::Milliseconds(500), "p").ok());
  ASSERT_TRUE(ServerControl("stop").ok());
  absl::Status down = (*s)->Schedule("refused", absl::Seconds(1), "p");
  EXPECT_TRUE(absl::IsUnavailable(down)) << down;
  EXPECT_TRUE(absl::IsUnavailable((*s)->Get("during").status()));
  ASSERT_TRUE(WaitFor([&] { return (*s)->Metrics().db_errors > 0; }));
  ASSERT_TRUE(ServerControl("start").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateIs(**s, "during", TaskState::kSuccess); }));
  EXPECT_TRUE(absl::IsNotFound((*s)->Get("refused").status()));
  EXPECT_EQ(
      recorder.CountById(),
      (std::map<std::string, int>{{"after", 1}, {"before", 1}, {"during", 1}}));
}

}  // namespace
}  // namespace timingwheel
