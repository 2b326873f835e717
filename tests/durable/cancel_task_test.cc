// Copyright 2026 The timingwheel Authors.
//
// CancelTask() on a real PostgreSQL (bash .ci/test starts one): a waiting
// task is deleted; a running one is deleted, its handler told to stop in
// the owner process (from this scheduler and from a DurableClient), and
// nothing is retried; a finished one and an unknown id are reported as
// such.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/pause_points.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

class CancelTaskTest : public DurableFixture {
 protected:
  int64_t Rows(const std::string& id) { return Count(TaskMatch().Id(id)); }
  std::unique_ptr<DurableClient> Client() {
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 1;
    auto client = DurableClient::Create(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }
};

TEST_F(CancelTaskTest, AWaitingTaskIsDeletedAndNeverRuns) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(500), "p").ok());
  auto outcome = scheduler->CancelTask("t");
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, CancelOutcome::kCancelled);
  EXPECT_EQ(Rows("t"), 0);
  auto again = scheduler->CancelTask("t");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, CancelOutcome::kNotFound);
}

TEST_F(CancelTaskTest, AFinishedTaskIsLeftAlone) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(20), "p").ok());
  ASSERT_TRUE(Succeeded("t"));
  auto outcome = scheduler->CancelTask("t");
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, CancelOutcome::kFinished);
  EXPECT_EQ(Rows("t"), 1);
}

// For each canceller (the scheduler itself, and another process's client)
// and each id length (one byte, and kMaxIdBytes: its hex form in the stop
// notification must fit PostgreSQL's 8,000-byte payload limit).
class CancelRunningTest
    : public CancelTaskTest,
      public ::testing::WithParamInterface<std::tuple<bool, bool>> {};

TEST_P(CancelRunningTest, ARunningTaskIsToldToStopAndNotRetried) {
  const bool from_client = std::get<0>(GetParam());
  const std::string id =
      std::get<1>(GetParam()) ? std::string(kMaxIdBytes, 'i') : "t";
  std::atomic<bool> running{false};
  std::atomic<bool> told{false};
  recorder_.SetResult([&](const DurableTask& task) {
    running = true;
    told = WaitFor([&] { return task.stop_requested(); }, absl::Seconds(20));
    return absl::AbortedError("stopped");  // Would be retried if it counted.
  });
  DurableOptions options = Options("a");
  options.retry.max_attempts = 5;
  options.retry.initial_backoff = absl::Milliseconds(10);
  options.max_id_bytes = kMaxIdBytes;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  DurableClientOptions client_options;
  client_options.conninfo = db_->conninfo();
  client_options.slot_count = 1;
  client_options.max_id_bytes = kMaxIdBytes;
  auto client = DurableClient::Create(client_options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(scheduler->Schedule(id, absl::Milliseconds(20), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return running.load(); }, absl::Seconds(10)));
  auto outcome =
      from_client ? (*client)->CancelTask(id) : scheduler->CancelTask(id);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, CancelOutcome::kStopRequested);
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1 && told.load(); },
                      absl::Seconds(20)))
      << "the handler was never told to stop";
  // Its outcome finds no row: nothing is retried.
  ASSERT_TRUE(WaitFor([&] { return scheduler->Metrics().dropped >= 1; },
                      absl::Seconds(10)));
  EXPECT_EQ(Rows(id), 0);
  EXPECT_EQ(recorder_.size(), 1u);
}

// CancelTask() between the fire and the handler's start (the fire made the
// row RUNNING; the executor has not begun the attempt): the owner hears the
// stop first, and the handler never starts.
TEST_F(CancelTaskTest, AStopHeardBeforeTheHandlerStartsKeepsItFromStarting) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  durable_testing::PausePoint before_start("attempt.before_start");
  durable_testing::PausePoint stops_raised("notify.stops_raised");
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(before_start.WaitReached(absl::Seconds(10)));
  auto outcome = scheduler->CancelTask("t");
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, CancelOutcome::kStopRequested);
  const bool heard = stops_raised.WaitReached(absl::Seconds(10));
  stops_raised.Resume();
  before_start.Resume();
  ASSERT_TRUE(heard) << "the owner never heard the stop";
  ASSERT_TRUE(WaitFor([&] { return scheduler->Metrics().abandoned >= 1; },
                      absl::Seconds(10)));
  EXPECT_EQ(recorder_.size(), 0u) << "the handler started after the stop";
  EXPECT_EQ(Rows("t"), 0);
}

INSTANTIATE_TEST_SUITE_P(FromSchedulerAndClient, CancelRunningTest,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Bool()));

TEST_F(CancelTaskTest, AnIdPastTheLimitIsRefusedBeforeTheStore) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  const std::string too_long(1025, 'i');  // max_id_bytes: 1024 by default.
  for (const std::string& id : {too_long, std::string()}) {
    auto outcome = scheduler->CancelTask(id);
    EXPECT_TRUE(absl::IsInvalidArgument(outcome.status())) << outcome.status();
    auto cancelled = scheduler->Cancel(id);
    EXPECT_TRUE(absl::IsInvalidArgument(cancelled.status()))
        << cancelled.status();
    auto info = scheduler->Get(id);
    EXPECT_TRUE(absl::IsInvalidArgument(info.status())) << info.status();
  }
  auto edge = scheduler->CancelTask(std::string(1024, 'i'));
  ASSERT_TRUE(edge.ok()) << edge.status();
  EXPECT_EQ(*edge, CancelOutcome::kNotFound);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
