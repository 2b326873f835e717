// Copyright 2026 The timingwheel Authors.
//
// AdminStore's writes against a real PostgreSQL, on a store a
// DurableScheduler runs: what Cancel, Retry and Reschedule may and may not
// do to a task in an owner's wheel, and a retry racing the owner's cleanup.

#include <algorithm>
#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/store.h"
#include "durable/testing/statement_gate.h"
#include "gtest/gtest.h"
#include "tests/durable/admin_test_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

TEST_F(AdminStoreTest, CancelOnlyUnstartedTasks) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  MakeEveryState(*admin);
  if (HasFatalFailure()) return;
  for (const char* id : {"pending", "scheduled"}) {
    auto result = admin->Cancel(id);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->outcome, ActionOutcome::kDone) << id;
    EXPECT_TRUE(absl::IsNotFound(admin->Show(id).status())) << id;
  }
  for (const char* id : {"block-running", "done", "fail-x"}) {
    auto result = admin->Cancel(id);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->outcome, ActionOutcome::kWrongState) << id;
    EXPECT_NE(result->message.find(TaskStateName(result->before)),
              std::string::npos)
        << result->message;
  }
  auto missing = admin->Cancel("nothing");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->outcome, ActionOutcome::kNotFound);

  // A SCHEDULED task cancelled from the wheel never runs: a task due
  // soon is cancelled, one due after it runs, the first never did.
  ASSERT_TRUE(Ok(scheduler_->Schedule("soon", absl::Seconds(1), "p")));
  ASSERT_TRUE(WaitState(*admin, "soon", TaskState::kScheduled));
  ASSERT_TRUE(Ok(scheduler_->Schedule("after", absl::Milliseconds(1500), "p")));
  auto result = admin->Cancel("soon");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->outcome, ActionOutcome::kDone);
  ASSERT_TRUE(Succeeded("after"));
  EXPECT_EQ(recorder_.CountById().count("soon"), 0u);
}

TEST_F(AdminStoreTest, RetryRunsAFailedTaskAgain) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  MakeEveryState(*admin);
  if (HasFatalFailure()) return;
  for (const char* id : {"pending", "scheduled", "block-running", "done"}) {
    auto result = admin->Retry(id);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->outcome, ActionOutcome::kWrongState) << id;
  }
  EXPECT_EQ(admin->Retry("nothing")->outcome, ActionOutcome::kNotFound);

  heal_ = true;
  auto result = admin->Retry("fail-x");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->outcome, ActionOutcome::kDone);
  EXPECT_EQ(result->before, TaskState::kFailed);
  EXPECT_EQ(result->after, TaskState::kPending);
  EXPECT_TRUE(result->notified);  // Due now, within the owner's horizon.
  ASSERT_TRUE(Succeeded("fail-x"));
  auto shown = admin->Show("fail-x");
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->attempt, 1);  // Attempts were reset, then one ran.
  EXPECT_EQ(recorder_.CountById()["fail-x"], 2);

  // A retry at a later time waits for it.
  ASSERT_TRUE(Store().ForceState("done", TaskState::kFailed).ok());
  auto now = admin->DbNow();
  ASSERT_TRUE(now.ok());
  result = admin->Retry("done", AdminDue::At(*now + absl::Hours(3)));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->outcome, ActionOutcome::kDone);
  EXPECT_FALSE(result->notified);  // Beyond the owner's horizon.
  EXPECT_EQ(result->due, *now + absl::Hours(3));
  EXPECT_EQ(StateOf(*admin, "done"), TaskState::kPending);
}

// A retried task starts counting its attempts again from 1; a snooze of
// its new attempt 1 replaces the earlier snoozes of that same attempt, not
// the records of the runs before the operator's retry: the history shows
// every run, before and after the retry.
TEST_F(AdminStoreTest, RetryKeepsTheSnoozesOfTheRunsBeforeIt) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  std::atomic<int> runs{0};
  // Runs: snooze, fail (FAILED: one attempt); after the retry: snooze, ok.
  recorder_.SetResult([&runs](const DurableTask&) {
    const int run = ++runs;
    if (run == 1 || run == 3) return Snooze(absl::Milliseconds(1));
    if (run == 2) return absl::InternalError("boom");
    return absl::OkStatus();
  });
  StartScheduler();
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Ok(scheduler_->Schedule("snoozy", absl::ZeroDuration(), "p")));
  ASSERT_TRUE(WaitState(*admin, "snoozy", TaskState::kFailed));
  auto before = admin->Show("snoozy");
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->attempts.size(), 2u);
  auto retried = admin->Retry("snoozy");
  ASSERT_TRUE(retried.ok()) << retried.status();
  ASSERT_EQ(retried->outcome, ActionOutcome::kDone);
  ASSERT_TRUE(Succeeded("snoozy"));
  EXPECT_EQ(runs.load(), 4);
  auto shown = admin->Show("snoozy");
  ASSERT_TRUE(shown.ok()) << shown.status();
  std::vector<AttemptOutcome> outcomes;
  for (const AttemptRecord& a : shown->attempts) outcomes.push_back(a.outcome);
  EXPECT_EQ(outcomes,
            (std::vector<AttemptOutcome>{
                AttemptOutcome::kSnoozed, AttemptOutcome::kFailed,
                AttemptOutcome::kOperatorRetry, AttemptOutcome::kSnoozed,
                AttemptOutcome::kSucceeded}))
      << "the snooze before the retry was lost";
}

// The owner's cleanup of finished rows, waiting on the row a retry holds,
// must not delete the retried task once the retry commits.
TEST_F(AdminStoreTest, DiscardAndRetryMatchingDeadLetters) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  StartScheduler();
  ASSERT_FALSE(HasFatalFailure());
  for (const char* id : {"fail-a", "fail-b", "fail-c"}) {
    ASSERT_TRUE(Ok(scheduler_->Schedule(id, absl::ZeroDuration(), "p")));
  }
  for (const char* id : {"fail-a", "fail-b", "fail-c"}) {
    ASSERT_TRUE(WaitState(*admin, id, TaskState::kFailed)) << id;
  }
  ASSERT_TRUE(Ok(scheduler_->Schedule("done", absl::ZeroDuration(), "d")));
  ASSERT_TRUE(WaitState(*admin, "done", TaskState::kSuccess));
  // Discard: FAILED only.
  auto discarded = admin->Discard("fail-c");
  ASSERT_TRUE(discarded.ok()) << discarded.status();
  EXPECT_EQ(discarded->outcome, ActionOutcome::kDone);
  EXPECT_TRUE(absl::IsNotFound(admin->Show("fail-c").status()));
  auto refused = admin->Discard("done");
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->outcome, ActionOutcome::kWrongState);
  // Retry every FAILED task with the prefix, one page of one at a time.
  heal_ = true;
  TaskFilter filter;
  filter.id_prefix = "fail-";
  filter.limit = 1;
  auto retried = admin->RetryMatching(filter);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(*retried, 2);
  EXPECT_TRUE(WaitState(*admin, "fail-a", TaskState::kSuccess));
  EXPECT_TRUE(WaitState(*admin, "fail-b", TaskState::kSuccess));
}

TEST_F(AdminStoreTest, TheClientAndTheSchedulerHandTheAdminApi) {
  StartScheduler();
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_TRUE(Ok(scheduler_->Schedule("fail-1", absl::ZeroDuration(), "p")));
  auto from_scheduler = scheduler_->Admin();
  ASSERT_TRUE(from_scheduler.ok()) << from_scheduler.status();
  ASSERT_TRUE(WaitState(**from_scheduler, "fail-1", TaskState::kFailed));
  EXPECT_EQ(*scheduler_->Admin(), *from_scheduler);  // Kept.
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 1;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto admin = (*client)->Admin();
  ASSERT_TRUE(admin.ok()) << admin.status();
  TaskFilter failed;
  failed.state = TaskState::kFailed;
  auto page = (*admin)->List(failed);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->tasks.size(), 1u);
  EXPECT_EQ(page->tasks[0].id, "fail-1");
  auto status = (*admin)->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  auto discarded = (*admin)->Discard("fail-1");
  ASSERT_TRUE(discarded.ok()) << discarded.status();
  EXPECT_EQ(discarded->outcome, ActionOutcome::kDone);
}

TEST_F(AdminStoreTest, RetryRacingTheCleanupKeepsTheTask) {
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 1;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  durable_testing::InsertedTask old;  // Due at the epoch, long FAILED.
  old.id = "old-failure";
  old.due_in_us = 0;
  old.due_absolute = true;
  old.state = TaskState::kFailed;
  old.last_error = "e";
  old.finished_us = 1;
  ASSERT_NO_FATAL_FAILURE(Insert(old));
  // The retry's statement waits once it has written its rows, before it
  // commits.
  auto gate = durable_testing::StatementGate::Install(
      db_->conninfo(), "tw_timer", "UPDATE", "/* admin retry */",
      durable_testing::StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  absl::StatusOr<ActionResult> retried = absl::UnknownError("not run");
  std::thread retry([&] { retried = admin->Retry("old-failure"); });
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(20)));
  auto store = durable_internal::Store::Connect(db_->conninfo());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<int64_t> deleted = absl::UnknownError("not run");
  std::thread cleanup([&] {
    durable_internal::SlotEpoch slot{0, 0};
    deleted = (*store)->DeleteFinished({&slot, 1}, 1000, 100);
  });
  // The cleanup waits on the row the retry holds.
  const bool cleanup_waits =
      WaitForLockWaiter("DELETE FROM tw_timer WHERE task_id IN");
  (*gate)->Release();
  retry.join();
  cleanup.join();
  ASSERT_TRUE(cleanup_waits);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->outcome, ActionOutcome::kDone);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 0);
  auto shown = admin->Show("old-failure");
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_EQ(shown->state, TaskState::kPending);
  EXPECT_EQ(shown->attempt, 0);
  EXPECT_EQ(shown->last_error, "e");
  EXPECT_FALSE(shown->finished.has_value());
}

// Moved earlier: the wheel holds it at +20 min; it runs at the new time,
// once, never before it.
TEST_F(AdminStoreTest, RescheduleOfAScheduledTaskNeverFiresAtTheOldTime) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  MakeEveryState(*admin);
  if (HasFatalFailure()) return;
  auto now = admin->DbNow();
  ASSERT_TRUE(now.ok());
  const absl::Time due = *now + absl::Milliseconds(500);
  auto result = admin->Reschedule("scheduled", AdminDue::At(due));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->outcome, ActionOutcome::kDone);
  EXPECT_EQ(result->before, TaskState::kScheduled);
  EXPECT_TRUE(result->notified);
  ASSERT_TRUE(Succeeded("scheduled"));
  std::vector<durable_test::Recorder::Call> calls;
  for (const auto& c : recorder_.calls()) {
    if (c.task.id == "scheduled") calls.push_back(c);
  }
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.due, due);
  EXPECT_GE(calls[0].at, due);
  EXPECT_EQ(calls[0].task.attempt, 1);
}

// Moved later: the wheel's entry at the old time is refused; a task due
// after the old time runs, the moved one does not, and is PENDING at the
// new time.
TEST_F(AdminStoreTest, RescheduleLaterNeverFiresEarly) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  StartScheduler();
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Ok(scheduler_->Schedule("moved", absl::Milliseconds(1500), "p")));
  ASSERT_TRUE(WaitState(*admin, "moved", TaskState::kScheduled));
  ASSERT_TRUE(
      Ok(scheduler_->Schedule("marker", absl::Milliseconds(2500), "p")));
  auto result = admin->Reschedule("moved", AdminDue::In(absl::Hours(2)));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->outcome, ActionOutcome::kDone) << result->message;
  EXPECT_FALSE(result->notified);
  ASSERT_TRUE(Succeeded("marker"));
  EXPECT_EQ(recorder_.CountById().count("moved"), 0u);
  auto shown = admin->Show("moved");
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->state, TaskState::kPending);
  EXPECT_EQ(shown->due, result->due);
  EXPECT_GT(shown->due, shown->db_now + absl::Minutes(119));
}

TEST_F(AdminStoreTest, RescheduleRefusesRunningAndFinished) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  MakeEveryState(*admin);
  if (HasFatalFailure()) return;
  for (const char* id : {"block-running", "done", "fail-x"}) {
    auto result = admin->Reschedule(id, AdminDue::In(absl::Minutes(1)));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->outcome, ActionOutcome::kWrongState) << id;
  }
  EXPECT_EQ(StateOf(*admin, "block-running"), TaskState::kRunning);
  auto result = admin->Reschedule("pending", AdminDue::In(absl::Hours(5)));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->outcome, ActionOutcome::kDone);
  EXPECT_EQ(result->before, TaskState::kPending);
  EXPECT_EQ(admin->Reschedule("nothing", AdminDue::Now())->outcome,
            ActionOutcome::kNotFound);
}

// The server ends the admin's session: the next read reconnects and
// succeeds; a write fails once (Unavailable) and the next one works.

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
