// Copyright 2026 The timingwheel Authors.
//
// One completion batch whose rows include a bad one: every other outcome
// of the batch is written, and the bad one gets a definite outcome. The
// batch is forced: the handlers run on a manual executor from the test's
// thread while the maintenance thread is held before its outcome write,
// so every outcome goes in one statement.

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/handler_outcome.h"
#include "durable/testing/pause_points.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "timer/testing/manual_executor.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::PausePoint;
using durable_testing::TaskMatch;

class OutcomeBatchTest : public DurableFixture {
 protected:
  DurableOptions BatchOptions() {
    DurableOptions options = Options("a");
    options.executor = &executor_;
    options.max_in_flight = 64;
    return options;
  }

  // Schedules `ids` due now, waits until all their attempts are queued on
  // the executor, then runs them while the maintenance thread is held
  // before it writes outcomes: all are written by one statement.
  void RunInOneBatch(DurableScheduler& scheduler,
                     const std::vector<std::string>& ids) {
    for (const std::string& id : ids) {
      ASSERT_TRUE(scheduler.Schedule(id, absl::ZeroDuration(), "p").ok());
    }
    ASSERT_TRUE(WaitFor([&] { return executor_.size() == ids.size(); }))
        << executor_.size() << " attempts queued";
    PausePoint before("outcomes.before");
    EXPECT_EQ(executor_.RunAll(), ids.size());
    ASSERT_TRUE(before.WaitReached(absl::Seconds(10)));
    before.Resume();
  }

  bool InState(const std::string& id, TaskState state) {
    return WaitFor([&] { return Count(TaskMatch().Id(id).State(state)) == 1; });
  }

  testing::ManualExecutor executor_;
};

// The database refuses one row of a batch (a trigger rejects its SUCCESS):
// the batch is split, its other rows are written, and the refused one is
// recorded FAILED with the refusal; the scheduler goes on.
TEST_F(OutcomeBatchTest, ARowTheDatabaseRefusesFailsAloneAndTheRestIsWritten) {
  auto scheduler = Start(BatchOptions());
  ASSERT_NE(scheduler, nullptr);
  // Created with the schema.
  Exec(R"sql(
CREATE FUNCTION tw_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.task_id = convert_to('poison', 'UTF8') AND NEW.state = 3 THEN
    RAISE EXCEPTION 'test: this outcome is refused';
  END IF;
  RETURN NEW;
END $$)sql");
  Exec(
      "CREATE TRIGGER tw_test_refuse BEFORE UPDATE ON tw_timer "
      "FOR EACH ROW EXECUTE FUNCTION tw_test_refuse()");
  std::vector<std::string> ids = {"poison"};
  for (int i = 0; i < 7; ++i) ids.push_back(absl::StrCat("good-", i));
  RunInOneBatch(*scheduler, ids);
  for (int i = 0; i < 7; ++i) {
    EXPECT_TRUE(Succeeded(absl::StrCat("good-", i)))
        << "good-" << i << " waits behind the refused row";
  }
  ASSERT_TRUE(InState("poison", TaskState::kFailed));
  auto poison = Store().Task("poison");
  ASSERT_TRUE(poison.ok()) << poison.status();
  EXPECT_NE(poison->last_error.value_or("").find("refused"), std::string::npos)
      << poison->last_error.value_or("");
  EXPECT_TRUE(WaitFor([&] { return scheduler->Metrics().succeeded == 7; }));
  const DurableMetrics m = scheduler->Metrics();
  EXPECT_EQ(m.outcomes_refused, 1);
  EXPECT_EQ(m.failed, 1);
  EXPECT_GE(m.db_errors, 1);
  // Nothing is left queued: a later task runs and is recorded.
  ASSERT_TRUE(scheduler->Schedule("after", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return executor_.size() == 1; }));
  executor_.RunAll();
  EXPECT_TRUE(Succeeded("after"));
  scheduler->Shutdown();
  EXPECT_EQ(recorder_.size(), ids.size() + 1);
}

// Handlers that park their task (RetryAfter or Snooze with an infinite
// delay) beside handlers that succeed, in one batch: every outcome is
// written, the parked tasks wait 100 years (PENDING), and the scheduler
// keeps working.
TEST_F(OutcomeBatchTest, InfiniteDelaysParkTheTaskAndEveryOutcomeIsWritten) {
  recorder_.SetResult([](const DurableTask& task) {
    if (task.id == "park-retry") {
      return RetryAfter(absl::InfiniteDuration(), "later");
    }
    if (task.id == "park-snooze") return Snooze(absl::InfiniteDuration());
    return absl::OkStatus();
  });
  auto scheduler = Start(BatchOptions());
  ASSERT_NE(scheduler, nullptr);
  std::vector<std::string> ids = {"park-retry", "park-snooze"};
  for (int i = 0; i < 5; ++i) ids.push_back(absl::StrCat("ok-", i));
  RunInOneBatch(*scheduler, ids);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(Succeeded(absl::StrCat("ok-", i)))
        << "ok-" << i << " waits behind a parked task's outcome";
  }
  const int64_t hundred_years_us = absl::ToInt64Microseconds(kMaxVerdictDelay);
  for (const char* id : {"park-retry", "park-snooze"}) {
    ASSERT_TRUE(InState(id, TaskState::kPending)) << id;
    auto row = Store().Task(id);
    ASSERT_TRUE(row.ok()) << row.status();
    EXPECT_GE(row->due_us - row->now_us, hundred_years_us - 60'000'000) << id;
    EXPECT_LE(row->due_us - row->now_us, hundred_years_us) << id;
  }
  EXPECT_EQ(Store().Task("park-retry")->attempt, 1);
  EXPECT_EQ(Store().Task("park-snooze")->attempt, 0);
  const DurableMetrics m = scheduler->Metrics();
  EXPECT_EQ(m.succeeded, 5);
  EXPECT_EQ(m.retried, 2);
  EXPECT_EQ(m.outcomes_refused, 0);
  ASSERT_TRUE(scheduler->Schedule("after", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return executor_.size() == 1; }));
  executor_.RunAll();
  EXPECT_TRUE(Succeeded("after"));
  scheduler->Shutdown();
}

// DurableOptions::outcome_writers: each number allowed holds one
// connection per writer (beside client calls, maintenance and renewals),
// and writes a backlog of more outcomes than one batch helper's threshold
// (256), every one of them, whether writers after the first help or not.
TEST_F(OutcomeBatchTest, EachNumberOfOutcomeWritersWritesABacklog) {
  for (int writers : {1, 3}) {
    SCOPED_TRACE(absl::StrCat(writers, " outcome writers"));
    DurableOptions options = BatchOptions();
    options.outcome_writers = writers;
    options.max_in_flight = 1000;
    auto scheduler = Start(options);
    ASSERT_NE(scheduler, nullptr);
    const std::string sessions =
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() "
        "AND application_name LIKE 'timingwheel scheduler %'";
    EXPECT_TRUE(WaitFor([&] { return Query(sessions) == 3 + writers; }))
        << Query(sessions) << " sessions";
    constexpr int kTasks = 600;
    for (int i = 0; i < kTasks; ++i) {
      ASSERT_TRUE(scheduler
                      ->Schedule(absl::StrCat(writers, "-", i),
                                 absl::ZeroDuration(), "p")
                      .ok());
    }
    ASSERT_TRUE(WaitFor([&] { return executor_.size() == kTasks; }))
        << executor_.size() << " attempts queued";
    EXPECT_EQ(executor_.RunAll(), static_cast<size_t>(kTasks));
    EXPECT_TRUE(WaitFor([&] {
      return scheduler->Metrics().succeeded == kTasks;
    })) << scheduler->Metrics().succeeded
        << " outcomes written";
    EXPECT_EQ(Count(TaskMatch()
                        .State(TaskState::kSuccess)
                        .IdPrefix(absl::StrCat(writers, "-"))),
              kTasks);
    scheduler->Shutdown();
  }
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
