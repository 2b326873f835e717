// Copyright 2026 The timingwheel Authors.
//
// ScheduleOrReplace(), ScheduleOrReplaceBatch(), Reschedule() and
// RescheduleAfter() on a real PostgreSQL (bash .ci/test starts one): every
// ReplaceMode against tasks that are waiting in the table, waiting in their
// owner's wheel, running, and finished; a replacement from another process
// (DurableClient) of a task in the scheduler's wheel; the answers of
// Schedule() for an id that exists.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/store.h"
#include "durable/testing/statement_gate.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

class ReplaceTest : public DurableFixture {
 protected:
  // The row's state ("PENDING", ...), or "none" when there is none.
  std::string StateOf(const std::string& id) {
    auto task = Store().Task(id);
    if (absl::IsNotFound(task.status())) return "none";
    EXPECT_TRUE(task.ok()) << task.status();
    return task.ok() ? TaskStateName(task->state) : task.status().ToString();
  }
  int64_t DueOf(const std::string& id) {
    auto task = Store().Task(id);
    EXPECT_TRUE(task.ok()) << task.status();
    return task.ok() ? task->due_us : -1;
  }
  // A producer with the default 30 s statement timeout: a replacement that
  // waits on a held row outlasts the scheduler's own (a quarter of its 1 s
  // lease).
  std::unique_ptr<DurableClient> Client() {
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 1;
    auto client = DurableClient::Create(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }
  static ScheduleRequest In(const std::string& id, absl::Duration delay,
                            const std::string& payload) {
    ScheduleRequest request;
    request.id = id;
    request.delay = delay;
    request.payload = payload;
    return request;
  }
};

TEST_F(ReplaceTest, ANewIdIsScheduled) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  auto outcome =
      scheduler->ScheduleOrReplace(In("t", absl::Milliseconds(100), "p"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kScheduled);
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_EQ(recorder_.size(), 1u);
}

TEST_F(ReplaceTest,
       ATaskInTheOwnersWheelRunsOnceAtItsNewTimeWithItsNewPayload) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(600), "old").ok());
  // Claimed into the wheel (SCHEDULED) before it is replaced.
  ASSERT_TRUE(
      WaitFor([&] { return StateOf("t") == "SCHEDULED"; }, absl::Seconds(10)));
  auto outcome = scheduler->ScheduleOrReplace(In("t", absl::Seconds(2), "new"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  const int64_t new_due_us = DueOf("t");
  ASSERT_TRUE(Succeeded("t"));
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u) << "ran at the old time and the new one";
  EXPECT_EQ(calls[0].task.payload, "new");
  EXPECT_EQ(absl::ToUnixMicros(calls[0].task.due), new_due_us);
  EXPECT_GE(calls[0].at, calls[0].task.due) << "ran before its new due time";
  EXPECT_EQ(calls[0].task.attempt, 1);
}

TEST_F(ReplaceTest, AReplacementDueEarlierRunsEarlier) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Hours(5), "p").ok());  // Table.
  auto outcome =
      scheduler->ScheduleOrReplace(In("t", absl::Milliseconds(200), "q"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_EQ(recorder_.size(), 1u);
}

TEST_F(ReplaceTest, KeepLaterIsADebounce) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Seconds(30), "p1").ok());
  const int64_t first_due = DueOf("t");
  auto kept = scheduler->ScheduleOrReplace(In("t", absl::Seconds(10), "p2"),
                                           ReplaceMode::kKeepLater);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, ScheduleOutcome::kKept);
  EXPECT_EQ(DueOf("t"), first_due);
  auto later = scheduler->ScheduleOrReplace(In("t", absl::Seconds(60), "p3"),
                                            ReplaceMode::kKeepLater);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ(*later, ScheduleOutcome::kReplaced);
  EXPECT_GT(DueOf("t"), first_due);
  EXPECT_EQ(Count(TaskMatch().Id("t").Payload("p3")), 1);
}

TEST_F(ReplaceTest, KeepEarlierKeepsTheFirstDeadline) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Seconds(30), "p1").ok());
  const int64_t first_due = DueOf("t");
  auto kept = scheduler->ScheduleOrReplace(In("t", absl::Seconds(60), "p2"),
                                           ReplaceMode::kKeepEarlier);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, ScheduleOutcome::kKept);
  EXPECT_EQ(DueOf("t"), first_due);
  EXPECT_EQ(Count(TaskMatch().Id("t").Payload("p1")), 1);
  auto earlier = scheduler->ScheduleOrReplace(In("t", absl::Seconds(10), "p3"),
                                              ReplaceMode::kKeepEarlier);
  ASSERT_TRUE(earlier.ok()) << earlier.status();
  EXPECT_EQ(*earlier, ScheduleOutcome::kReplaced);
  EXPECT_LT(DueOf("t"), first_due);
}

TEST_F(ReplaceTest, ARunningTaskIsLeftAlone) {
  std::atomic<bool> release{false};
  std::atomic<bool> running{false};
  recorder_.SetResult([&](const DurableTask&) {
    running = true;
    WaitFor([&] { return release.load(); }, absl::Seconds(20));
    return absl::OkStatus();
  });
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(50), "p").ok());
  ASSERT_TRUE(WaitFor([&] { return running.load(); }, absl::Seconds(10)));
  auto replace = scheduler->ScheduleOrReplace(In("t", absl::Seconds(1), "q"));
  auto reschedule = scheduler->RescheduleAfter("t", absl::Seconds(1));
  release = true;
  ASSERT_TRUE(replace.ok()) << replace.status();
  EXPECT_EQ(*replace, ScheduleOutcome::kAlreadyRunning);
  ASSERT_TRUE(reschedule.ok()) << reschedule.status();
  EXPECT_EQ(*reschedule, ScheduleOutcome::kAlreadyRunning);
  EXPECT_TRUE(Succeeded("t"));
  EXPECT_EQ(recorder_.size(), 1u);
}

TEST_F(ReplaceTest, AFinishedTaskStartsAfreshButIsNotRescheduled) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(50), "p").ok());
  ASSERT_TRUE(Succeeded("t"));
  auto reschedule = scheduler->RescheduleAfter("t", absl::Milliseconds(50));
  ASSERT_TRUE(reschedule.ok()) << reschedule.status();
  EXPECT_EQ(*reschedule, ScheduleOutcome::kFinished);
  EXPECT_EQ(StateOf("t"), "SUCCESS");
  auto again =
      scheduler->ScheduleOrReplace(In("t", absl::Milliseconds(50), "p2"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, ScheduleOutcome::kScheduled);
  ASSERT_TRUE(
      WaitFor([&] { return recorder_.size() == 2; }, absl::Seconds(15)));
  std::vector<Recorder::Call> calls = recorder_.calls();
  EXPECT_EQ(calls[1].task.payload, "p2");
  EXPECT_EQ(calls[1].task.attempt, 1);  // A new task: attempts from 0.
}

TEST_F(ReplaceTest, RescheduleMovesAndKeepsThePayloadUnlessGiven) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  EXPECT_TRUE(absl::IsNotFound(
      scheduler->RescheduleAfter("none", absl::Seconds(1)).status()));
  EXPECT_EQ(StateOf("none"), "none");  // Never creates a task.
  ASSERT_TRUE(scheduler->Schedule("t", absl::Hours(3), "p").ok());
  const absl::Time at = absl::FromUnixSeconds(4102444800);  // 2100-01-01.
  auto moved = scheduler->Reschedule("t", at);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(*moved, ScheduleOutcome::kReplaced);
  EXPECT_EQ(DueOf("t"), absl::ToUnixMicros(at));
  EXPECT_EQ(Count(TaskMatch().Id("t").Payload("p")), 1);
  auto with_payload = scheduler->Reschedule("t", at, std::string("q"));
  ASSERT_TRUE(with_payload.ok()) << with_payload.status();
  EXPECT_EQ(Count(TaskMatch().Id("t").Payload("q")), 1);
}

TEST_F(ReplaceTest, ABatchAnswersInOrderAndRefusesAnIdTwice) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("old", absl::Hours(1), "p").ok());
  std::vector<ScheduleRequest> batch = {In("new", absl::Hours(2), "x"),
                                        In("old", absl::Hours(2), "y")};
  auto outcomes = scheduler->ScheduleOrReplaceBatch(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  EXPECT_EQ(*outcomes,
            (std::vector<ScheduleOutcome>{ScheduleOutcome::kScheduled,
                                          ScheduleOutcome::kReplaced}));
  std::vector<ScheduleRequest> twice = {In("d", absl::Hours(1), "x"),
                                        In("d", absl::Hours(2), "y")};
  EXPECT_TRUE(absl::IsInvalidArgument(
      scheduler->ScheduleOrReplaceBatch(twice).status()));
  EXPECT_EQ(StateOf("d"), "none");  // Nothing of the refused batch.
}

TEST_F(ReplaceTest, AnotherProcessReplacesATaskInTheOwnersWheel) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  DurableClientOptions client_options;
  client_options.conninfo = db_->conninfo();
  client_options.slot_count = 1;
  auto client = DurableClient::Create(client_options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->Schedule("t", absl::Seconds(20), "old").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateOf("t") == "SCHEDULED"; }, absl::Seconds(10)));
  auto outcome =
      (*client)->ScheduleOrReplace(In("t", absl::Milliseconds(300), "new"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  // The owner is woken and loads it at once: it runs at its new time, long
  // before the old one.
  ASSERT_TRUE(Succeeded("t", absl::Seconds(10)));
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.payload, "new");
  EXPECT_GE(calls[0].at, calls[0].task.due);
}

TEST_F(ReplaceTest, ScheduleOfAnExistingIdIsAnIdempotentInsertOnly) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Hours(1), "p").ok());
  // The same id and payload: OK (a retry), nothing changes.
  const int64_t due = DueOf("t");
  EXPECT_TRUE(scheduler->Schedule("t", absl::Hours(2), "p").ok());
  EXPECT_EQ(DueOf("t"), due);
  // Another payload: AlreadyExists, whatever the state.
  EXPECT_TRUE(
      absl::IsAlreadyExists(scheduler->Schedule("t", absl::Hours(1), "other")));
  ScheduleRequest request = In("t", absl::Hours(1), "other");
  EXPECT_TRUE(absl::IsAlreadyExists(scheduler->ScheduleBatch({&request, 1})));
}

// The fire (SCHEDULED -> RUNNING) has written, not committed, when a
// replacement comes: the replacement waits for the row, then finds it
// running and leaves it alone. The handler runs once, as fired.
// A lease long enough that the scheduler's statements (a quarter of it) do
// not time out while a gate holds them, even under a sanitizer.
DurableOptions PatientOptions(DurableOptions options) {
  options.lease_ttl = absl::Seconds(20);
  return options;
}

TEST_F(ReplaceTest, AReplacementAfterTheFireFindsItRunning) {
  // The handler waits until the replacement has answered, so the task is
  // still running (not finished) whenever the replacement reads it.
  std::atomic<bool> answered{false};
  recorder_.SetResult([&](const DurableTask&) {
    WaitFor([&] { return answered.load(); }, absl::Seconds(20));
    return absl::OkStatus();
  });
  auto scheduler = Start(PatientOptions(Options("a")));
  ASSERT_NE(scheduler, nullptr);
  auto gate = durable_testing::StatementGate::Install(
      db_->conninfo(), "tw_timer", "UPDATE", "SET state = 2, version",
      durable_testing::StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(300), "old").ok());
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(20)));
  auto client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ScheduleOutcome> outcome = absl::UnknownError("not run");
  std::thread replace([&] {
    outcome = client->ScheduleOrReplace(In("t", absl::Seconds(1), "new"));
  });
  // The replacement waits on the row the fire holds.
  const bool waits = WaitForLockWaiter("prior AS (");
  (*gate)->Release();
  replace.join();
  answered = true;
  ASSERT_TRUE(waits) << "the replacement never waited on the fire's row";
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kAlreadyRunning);
  ASSERT_TRUE(Succeeded("t"));
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task.payload, "old");
}

// The replacement has written, not committed, when the task comes due: the
// fire waits for the row, finds it PENDING and is refused; the owner claims
// the task again and runs it once, at its new time, with its new payload.
TEST_F(ReplaceTest, AFireAfterTheReplacementIsRefusedAndTheTaskRunsOnceAnew) {
  auto scheduler = Start(PatientOptions(Options("a")));
  ASSERT_NE(scheduler, nullptr);
  // The gate first: installing it takes a while, and the task must still
  // wait in the wheel when the replacement comes.
  auto gate = durable_testing::StatementGate::Install(
      db_->conninfo(), "tw_timer", "UPDATE", "prior AS (",
      durable_testing::StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  ASSERT_TRUE(scheduler->Schedule("t", absl::Seconds(2), "old").ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateOf("t") == "SCHEDULED"; }, absl::Seconds(10)));
  auto client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ScheduleOutcome> outcome = absl::UnknownError("not run");
  std::thread replace([&] {
    outcome = client->ScheduleOrReplace(In("t", absl::Seconds(4), "new"));
  });
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(20)));
  // The old due time passes; the fire waits on the row the replacement holds.
  const bool fire_waits = WaitForLockWaiter("SET state = 2, version");
  (*gate)->Release();
  replace.join();
  ASSERT_TRUE(fire_waits) << "the fire never waited on the replaced row";
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kReplaced);
  ASSERT_TRUE(Succeeded("t"));
  std::vector<Recorder::Call> calls = recorder_.calls();
  ASSERT_EQ(calls.size(), 1u) << "ran at the old time and the new one";
  EXPECT_EQ(calls[0].task.payload, "new");
  EXPECT_GE(calls[0].at, calls[0].task.due);
}

// The scheduler's cleanup of finished rows picks a finished task, then waits
// on its row lock while a replacement turns it into a new PENDING task: the
// cleanup must re-check the row and keep it.
TEST_F(ReplaceTest, AReplacementRacingTheCleanupKeepsTheTask) {
  DurableClientOptions client_options;
  client_options.conninfo = db_->conninfo();
  client_options.slot_count = 1;
  auto client = DurableClient::Create(client_options);
  ASSERT_TRUE(client.ok()) << client.status();
  durable_testing::InsertedTask finished;  // Due at the epoch, long done.
  finished.id = "t";
  finished.due_in_us = 0;
  finished.due_absolute = true;
  finished.state = TaskState::kSuccess;
  finished.finished_us = 1;
  ASSERT_NO_FATAL_FAILURE(Insert(finished));
  // The replacement waits after it wrote its row, before it commits.
  auto gate = durable_testing::StatementGate::Install(
      db_->conninfo(), "tw_timer", "UPDATE", "prior AS (",
      durable_testing::StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  absl::StatusOr<ScheduleOutcome> outcome = absl::UnknownError("not run");
  std::thread replace([&] {
    outcome = (*client)->ScheduleOrReplace(In("t", absl::Hours(1), "q"));
  });
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(20)));
  auto store = durable_internal::Store::Connect(db_->conninfo());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<int64_t> deleted = absl::UnknownError("not run");
  std::thread cleanup([&] {
    durable_internal::SlotEpoch slot{0, 0};
    deleted = (*store)->DeleteFinished({&slot, 1}, 1000, 100);
  });
  const bool cleanup_waits =
      WaitForLockWaiter("DELETE FROM tw_timer WHERE task_id IN");
  (*gate)->Release();
  replace.join();
  cleanup.join();
  ASSERT_TRUE(cleanup_waits) << "the cleanup never waited on the row";
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, ScheduleOutcome::kScheduled);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 0) << "the cleanup deleted the new task";
  EXPECT_EQ(StateOf("t"), "PENDING");
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
