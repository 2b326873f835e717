// Copyright 2026 The timingwheel Authors.
//
// AdminStore against a real PostgreSQL, on a store a DurableScheduler runs
// (one slot, so it owns every task): tasks in every state, what Status,
// List and Show report, and what Cancel, Retry and Reschedule may and may
// not do to a task in an owner's wheel.

#include "durable/admin_store.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::WaitFor;

::testing::AssertionResult Ok(const absl::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status;
}

class AdminStoreTest : public durable_test::DurableFixture {
 protected:
  void SetUp() override {
    DurableFixture::SetUp();
    if (HasFatalFailure()) return;
    // Ids starting "fail" fail; "block" wait until released.
    recorder_.SetResult([this](const DurableTask& task) {
      if (absl::StartsWith(task.id, "fail") && !heal_) {
        return absl::InternalError("boom: it's \"broken\"");
      }
      if (absl::StartsWith(task.id, "block")) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, std::chrono::seconds(30), [&] { return released_; });
      }
      return absl::OkStatus();
    });
  }

  void TearDown() override {
    Release();
    if (scheduler_ != nullptr) scheduler_->Shutdown();
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  void StartScheduler() {
    DurableOptions options = Options("admin-node");
    options.horizon = absl::Minutes(30);
    options.retry.max_attempts = 1;
    options.executor = &pool_;
    scheduler_ = Start(options);
    ASSERT_NE(scheduler_, nullptr);
  }

  std::unique_ptr<AdminStore> Admin() {
    auto admin = AdminStore::Connect(db_->conninfo());
    EXPECT_TRUE(admin.ok()) << admin.status();
    return admin.ok() ? *std::move(admin) : nullptr;
  }

  TaskState StateOf(AdminStore& admin, const std::string& id) {
    auto d = admin.Show(id);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? d->state : TaskState::kPending;
  }

  bool WaitState(AdminStore& admin, const std::string& id, TaskState state) {
    return WaitFor([&] {
      auto d = admin.Show(id);
      return d.ok() && d->state == state;
    });
  }

  // One task in every state: "pending" (beyond the horizon), "scheduled"
  // (in the wheel), "block-running", "done" (SUCCESS), "fail-x" (FAILED).
  void MakeEveryState(AdminStore& admin) {
    StartScheduler();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(Ok(scheduler_->Schedule("pending", absl::Hours(2), "p")));
    ASSERT_TRUE(Ok(scheduler_->Schedule("scheduled", absl::Minutes(20), "s")));
    ASSERT_TRUE(scheduler_
                    ->Schedule("block-running", absl::ZeroDuration(),
                               std::string("r\0r", 3))
                    .ok());
    ASSERT_TRUE(Ok(scheduler_->Schedule("done", absl::ZeroDuration(), "d")));
    ASSERT_TRUE(
        Ok(scheduler_->Schedule("fail-x", absl::ZeroDuration(), "payload-f")));
    ASSERT_TRUE(WaitState(admin, "scheduled", TaskState::kScheduled));
    ASSERT_TRUE(WaitState(admin, "block-running", TaskState::kRunning));
    ASSERT_TRUE(WaitState(admin, "done", TaskState::kSuccess));
    ASSERT_TRUE(WaitState(admin, "fail-x", TaskState::kFailed));
    ASSERT_EQ(StateOf(admin, "pending"), TaskState::kPending);
  }

  timingwheel::testing::PoolExecutor pool_{4};  // Outlives scheduler_.
  std::unique_ptr<DurableScheduler> scheduler_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  std::atomic<bool> heal_{false};
};

TEST_F(AdminStoreTest, StatusCountsEveryState) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  MakeEveryState(*admin);
  if (HasFatalFailure()) return;
  auto status = admin->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  for (int s = 0; s < kTaskStateCount; ++s) {
    EXPECT_EQ(status->counts[s], 1) << TaskStateName(static_cast<TaskState>(s));
  }
  EXPECT_EQ(status->schema_version, 3);
  EXPECT_EQ(status->slot_count, 1);
  ASSERT_EQ(status->nodes.size(), 1u);
  EXPECT_EQ(status->nodes[0].node_id, "admin-node");
  EXPECT_EQ(status->nodes[0].slots_held, 1);
  EXPECT_LT(status->nodes[0].since_heartbeat, absl::Seconds(5));
  ASSERT_EQ(status->slots.size(), 1u);
  EXPECT_EQ(status->slots[0].owner, "admin-node");
  EXPECT_TRUE(status->slots[0].lease_valid);
  EXPECT_GE(status->slots[0].epoch, 1);
  EXPECT_EQ(status->slots[0].horizon, absl::Minutes(30));
  EXPECT_EQ(status->slots_unowned, 0);
  ASSERT_TRUE(status->next_due.has_value());
  EXPECT_EQ(status->next_due_id, "scheduled");
  EXPECT_GT(*status->next_due, status->db_now + absl::Minutes(19));
  EXPECT_EQ(status->overdue, 0);
  EXPECT_FALSE(status->oldest_overdue_due.has_value());
}

// Without a scheduler nothing runs: tasks due in the past are overdue.
TEST_F(AdminStoreTest, StatusReportsTheOldestOverdue) {
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 4;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(
      Ok((*client)->ScheduleAt("late-2", absl::Now() - absl::Seconds(5), "p")));
  ASSERT_TRUE(Ok(
      (*client)->ScheduleAt("late-1", absl::Now() - absl::Seconds(60), "p")));
  ASSERT_TRUE(Ok((*client)->Schedule("future", absl::Hours(1), "p")));
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto status = admin->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->overdue, 2);
  EXPECT_EQ(status->oldest_overdue_id, "late-1");
  ASSERT_TRUE(status->oldest_overdue_due.has_value());
  EXPECT_LT(*status->oldest_overdue_due, status->db_now - absl::Seconds(59));
  EXPECT_EQ(status->next_due_id, "future");
  EXPECT_EQ(status->slots_unowned, 4);
  EXPECT_TRUE(status->nodes.empty());
  EXPECT_EQ(status->counts[0], 3);
}

TEST_F(AdminStoreTest, StatusWithoutAStoreSaysHowToMakeOne) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  absl::Status status = admin->Status().status();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_NE(status.message().find("twctl migrate"), std::string::npos);
}

TEST_F(AdminStoreTest, ListFiltersAndPages) {
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 4;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(
        Ok((*client)->Schedule(absl::StrCat("a-", i < 10 ? "0" : "", i),
                               absl::Minutes(i), std::string(i + 1, 'x'))));
    ASSERT_TRUE(
        (*client)->Schedule(absl::StrCat("b-", i), absl::Hours(5), "p").ok());
  }
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  TaskFilter filter;
  filter.id_prefix = "a-";
  filter.limit = 10;
  std::vector<std::string> seen;
  int pages = 0;
  for (;;) {
    auto page = admin->List(filter);
    ASSERT_TRUE(page.ok()) << page.status();
    ++pages;
    for (const TaskSummary& t : page->tasks) seen.push_back(t.id);
    if (!page->more) break;
    filter.after_id = page->next_after;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(seen.size(), 25u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 25u);

  // Due range: a-05 .. a-09 are due in [now+4.5m, now+9.5m).
  auto now = admin->DbNow();
  ASSERT_TRUE(now.ok());
  TaskFilter range;
  range.due_after = *now + absl::Seconds(270);
  range.due_before = *now + absl::Seconds(570);
  auto page = admin->List(range);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->tasks.size(), 5u);
  EXPECT_EQ(page->tasks[0].id, "a-05");
  EXPECT_EQ(page->tasks[0].payload_bytes, 6);
  EXPECT_EQ(page->tasks[0].state, TaskState::kPending);
  EXPECT_FALSE(page->more);

  TaskFilter failed;
  failed.state = TaskState::kFailed;
  page = admin->List(failed);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->tasks.empty());

  TaskFilter bad;
  bad.limit = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(admin->List(bad).status()));
}

TEST_F(AdminStoreTest, ListByPrefixIsByteExact) {
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 4;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string ids[] = {std::string("\0a", 2),
                             std::string("\0b", 2),
                             "\xff\xfe",
                             "\xff",
                             "%_x",
                             "%",
                             "a%"};
  for (const std::string& id : ids) {
    ASSERT_TRUE(Ok((*client)->Schedule(id, absl::Hours(1), id)));
  }
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto list = [&](const std::string& prefix) {
    TaskFilter f;
    f.id_prefix = prefix;
    auto page = admin->List(f);
    EXPECT_TRUE(page.ok()) << page.status();
    std::vector<std::string> out;
    if (page.ok()) {
      for (const TaskSummary& t : page->tasks) out.push_back(t.id);
    }
    return out;
  };
  EXPECT_EQ(
      list(std::string("\0", 1)),
      (std::vector<std::string>{std::string("\0a", 2), std::string("\0b", 2)}));
  EXPECT_EQ(list("\xff"), (std::vector<std::string>{"\xff", "\xff\xfe"}));
  // No wildcards: "%" is a byte like any other.
  EXPECT_EQ(list("%"), (std::vector<std::string>{"%", "%_x"}));
  EXPECT_EQ(list("").size(), 7u);
  auto shown = admin->Show(std::string("\0b", 2));
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_EQ(shown->payload_head, std::string("\0b", 2));
}

TEST_F(AdminStoreTest, ShowReportsEverything) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  MakeEveryState(*admin);
  if (HasFatalFailure()) return;
  auto failed = admin->Show("fail-x");
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(failed->state, TaskState::kFailed);
  EXPECT_EQ(failed->attempt, 1);
  ASSERT_TRUE(failed->last_error.has_value());
  EXPECT_NE(failed->last_error->find("boom: it's \"broken\""),
            std::string::npos);
  ASSERT_TRUE(failed->finished.has_value());
  EXPECT_LE(*failed->finished, failed->db_now);
  EXPECT_EQ(failed->payload_bytes, 9);
  EXPECT_EQ(failed->payload_head, "payload-f");
  EXPECT_EQ(failed->slot_owner, "admin-node");
  EXPECT_TRUE(failed->slot_lease_valid);
  EXPECT_GT(failed->version, 0);

  auto running = admin->Show("block-running");
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->payload_head, std::string("r\0r", 3));
  EXPECT_EQ(running->epoch, running->slot_epoch);
  EXPECT_FALSE(running->finished.has_value());
  EXPECT_FALSE(running->last_error.has_value());

  EXPECT_TRUE(absl::IsNotFound(admin->Show("nothing").status()));
}

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
  Exec("UPDATE tw_timer SET state = 4 WHERE task_id = 'done'");
  auto now = admin->DbNow();
  ASSERT_TRUE(now.ok());
  result = admin->Retry("done", AdminDue::At(*now + absl::Hours(3)));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->outcome, ActionOutcome::kDone);
  EXPECT_FALSE(result->notified);  // Beyond the owner's horizon.
  EXPECT_EQ(result->due, *now + absl::Hours(3));
  EXPECT_EQ(StateOf(*admin, "done"), TaskState::kPending);
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
TEST_F(AdminStoreTest, LostConnectionIsReestablished) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  StartScheduler();
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Ok(scheduler_->Schedule("later", absl::Hours(2), "p")));
  auto kill = [&] {
    Exec(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'timingwheel-admin' "
        "AND datname = current_database()");
  };
  ASSERT_TRUE(admin->Status().ok());
  kill();
  auto status = admin->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->counts[0], 1);
  kill();
  auto lost = admin->Reschedule("later", AdminDue::In(absl::Hours(3)));
  EXPECT_TRUE(absl::IsUnavailable(lost.status())) << lost.status();
  auto again = admin->Reschedule("later", AdminDue::In(absl::Hours(3)));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outcome, ActionOutcome::kDone);
}

TEST(AdminStoreConnectTest, ConnectErrorNamesHostNeverThePassword) {
  for (const std::string& conninfo :
       {std::string("host=/nonexistent-tw-dir dbname=orders user=ops "
                    "password=s3cretPW connect_timeout=2"),
        std::string("postgresql://ops:s3cretPW@127.0.0.1:1/orders?"
                    "connect_timeout=2")}) {
    auto admin = AdminStore::Connect(conninfo);
    ASSERT_FALSE(admin.ok());
    EXPECT_TRUE(absl::IsUnavailable(admin.status())) << admin.status();
    const std::string message(admin.status().message());
    EXPECT_EQ(message.find("s3cretPW"), std::string::npos) << message;
    EXPECT_NE(message.find("orders"), std::string::npos) << message;
  }
  auto bad = AdminStore::Connect("password='s3cretPW");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
  EXPECT_EQ(bad.status().message().find("s3cretPW"), std::string::npos);
}

TEST(ParseTaskStateTest, NamesInAnyCase) {
  EXPECT_EQ(ParseTaskState("failed"), TaskState::kFailed);
  EXPECT_EQ(ParseTaskState("SCHEDULED"), TaskState::kScheduled);
  EXPECT_EQ(ParseTaskState("Pending"), TaskState::kPending);
  EXPECT_FALSE(ParseTaskState("done").has_value());
}

}  // namespace
}  // namespace timingwheel
