// Copyright 2026 The timingwheel Authors.
//
// AdminStore's reads against a real PostgreSQL, on a store a
// DurableScheduler runs: tasks in every state, what Status, List and Show
// report; connecting, and reconnecting after a lost session. And
// (AdminHistoryTest, on rows the test writes by SQL) kinds, priorities and
// the attempt history: list by kind, the list cursor across inserts, the
// kinds in Status, Show's attempts, their cascade, Retry keeping them.

#include "durable/admin_store.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/migrations.h"
#include "gtest/gtest.h"
#include "tests/durable/admin_test_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

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
  EXPECT_EQ(status->schema_version, durable_internal::kSchemaVersion);
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

// The storage and update counts come from the server: bytes once rows
// exist, and the reschedules' updates once their server process has reported
// its statistics (within about a second: waited for, bounded). A
// reschedule updates its row; a cancel deletes it.
TEST_F(AdminStoreTest, StatusReportsTheTaskTablesStorageAndUpdates) {
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 4;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        (*client)->Schedule(absl::StrCat("c-", i), absl::Hours(1), "p").ok());
  }
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto before = admin->Status();
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_GT(before->task_table_bytes, 0);
  for (int i = 0; i < 2; ++i) {
    auto moved =
        (*client)->RescheduleAfter(absl::StrCat("c-", i), absl::Hours(2));
    ASSERT_TRUE(moved.ok()) << moved.status();
  }
  int64_t updates = -1, hot = -1;
  EXPECT_TRUE(WaitFor([&] {
    auto now = admin->Status();
    if (!now.ok()) return false;
    updates = now->task_updates;
    hot = now->task_hot_updates;
    return updates >= before->task_updates + 2;
  })) << updates;
  EXPECT_GE(hot, 0);
  EXPECT_LE(hot, updates);
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

// A store (made by a client) whose rows the test writes itself: tasks of
// kinds, attempt records (until the schedulers write them).
class AdminHistoryTest : public AdminStoreTest {
 protected:
  void SetUp() override {
    AdminStoreTest::SetUp();
    if (HasFatalFailure()) return;
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 4;
    auto client = DurableClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    admin_ = Admin();
    ASSERT_NE(admin_, nullptr);
  }

  // A task due in an hour, of `kind` and `priority`, in `state`.
  void InsertTask(const std::string& id, const std::string& kind,
                  int priority = 0, TaskState state = TaskState::kPending) {
    durable_testing::InsertedTask task;
    task.id = id;
    task.due_in_us = int64_t{3600} * 1000000;
    task.state = state;
    task.kind = kind;
    task.priority = priority;
    task.finished_now = state >= TaskState::kSuccess;
    ASSERT_NO_FATAL_FAILURE(Insert(task));
  }

  // Writes attempt-history row `row` of task `id`.
  void InsertAttempt(const std::string& id,
                     const durable_testing::AttemptRow& row) {
    absl::Status status = Store().InsertAttempt(id, row);
    ASSERT_TRUE(status.ok()) << status << " for " << id;
  }

  std::vector<std::string> Ids(const TaskFilter& filter) {
    auto page = admin_->List(filter);
    EXPECT_TRUE(page.ok()) << page.status();
    std::vector<std::string> out;
    if (page.ok()) {
      for (const TaskSummary& t : page->tasks) out.push_back(t.id);
    }
    return out;
  }

  std::unique_ptr<AdminStore> admin_;
};

TEST_F(AdminHistoryTest, ListByKindIsExactAndPages) {
  for (int i = 0; i < 7; ++i) {
    InsertTask(absl::StrCat("e-", i), "email", i);
    InsertTask(absl::StrCat("s-", i), "sms");
  }
  InsertTask("d-0", "");
  InsertTask("x-0", "emails");  // Not "email": exact match, no prefix.
  InsertTask("y-0", "EMAIL");
  TaskFilter filter;
  filter.kind = "email";
  filter.limit = 3;
  std::vector<std::string> seen;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = admin_->List(filter);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const TaskSummary& t : page->tasks) {
      EXPECT_EQ(t.kind, "email");
      EXPECT_EQ(t.priority, t.id[2] - '0');
      seen.push_back(t.id);
    }
    if (!page->more) break;
    filter.after_id = page->next_after;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"e-0", "e-1", "e-2", "e-3", "e-4",
                                            "e-5", "e-6"}));
  TaskFilter by_default;
  by_default.kind = "";
  EXPECT_EQ(Ids(by_default), (std::vector<std::string>{"d-0"}));
  TaskFilter none;
  none.kind = "nothing";
  EXPECT_TRUE(Ids(none).empty());
  TaskFilter any;
  EXPECT_EQ(Ids(any).size(), 17u);
}

TEST_F(AdminHistoryTest, ListLeavesOutOccurrencesWhenAsked) {
  const std::string occurrence_a("\x1btw-schedule:7:nightly@1000");
  const std::string occurrence_b("\x1btw-schedule:7:nightly@2000");
  InsertTask("plain-1", "");
  InsertTask(occurrence_a, "");
  InsertTask(occurrence_b, "");
  InsertTask("\x1btw-other", "");  // Shares only the escape byte.
  TaskFilter all;
  EXPECT_EQ(Ids(all).size(), 4u);
  TaskFilter without;
  without.occurrences = TaskFilter::Occurrences::kExclude;
  EXPECT_EQ(Ids(without),
            (std::vector<std::string>{"\x1btw-other", "plain-1"}));
  TaskFilter only;
  only.occurrences = TaskFilter::Occurrences::kOnly;
  EXPECT_EQ(Ids(only), (std::vector<std::string>{occurrence_a, occurrence_b}));
}

TEST_F(AdminHistoryTest, ListByKindRefusesBadKinds) {
  InsertTask("a", "ok");
  for (const std::string& bad :
       {std::string(kMaxKindBytes + 1, 'k'), std::string("tab\there"),
        std::string("nul\0x", 5), std::string("del\x7f"),
        std::string("\xff\xfe"), std::string("c1\xc2\x85")}) {
    TaskFilter filter;
    filter.kind = bad;
    absl::Status status = admin_->List(filter).status();
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_TRUE(absl::IsInvalidArgument(CheckKindFilter(bad)));
  }
  EXPECT_TRUE(CheckKindFilter(std::string(kMaxKindBytes, 'k')).ok());
  EXPECT_TRUE(CheckKindFilter("caf\xc3\xa9 \xf0\x9f\x93\xa7").ok());
  EXPECT_TRUE(CheckKindFilter("").ok());
  EXPECT_NE(CheckKindFilter(std::string(200, 'k')).message().find("128"),
            std::string::npos);
  EXPECT_EQ(Count(), 1);
}

// Page 1, then rows inserted before and after the cursor: page 2 is
// exactly the ids after the cursor, in order, none twice, none skipped.
TEST_F(AdminHistoryTest, ListCursorHoldsAcrossInserts) {
  for (const char* id : {"b", "d", "f", "h", "j", "l"}) InsertTask(id, "k");
  TaskFilter filter;
  filter.limit = 3;
  auto first = admin_->List(filter);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(first->more);
  ASSERT_EQ(first->next_after, "f");
  for (const char* id : {"a", "c", "e", "ea", "g", "i", "m"}) {
    InsertTask(id, "k");
  }
  ASSERT_TRUE(Store().DeleteTask("b").ok());
  filter.after_id = first->next_after;
  std::vector<std::string> rest;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = admin_->List(filter);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const TaskSummary& t : page->tasks) rest.push_back(t.id);
    if (!page->more) break;
    filter.after_id = page->next_after;
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"g", "h", "i", "j", "l", "m"}));
}

TEST_F(AdminHistoryTest, StatusListsKindsAndTheirTasks) {
  ASSERT_TRUE(Store().RegisterKind("email", "node-a", 1764637323000000).ok());
  ASSERT_TRUE(Store().RegisterKind("idle", "node-b", 1).ok());
  InsertTask("e1", "email", 0, TaskState::kPending);
  InsertTask("e2", "email", 0, TaskState::kRunning);
  InsertTask("e3", "email", 0, TaskState::kSuccess);
  InsertTask("o1", "orphan", 0, TaskState::kScheduled);
  InsertTask("d1", "", 0, TaskState::kFailed);
  auto status = admin_->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->kinds.size(), 4u);
  const AdminKind& d = status->kinds[0];
  EXPECT_EQ(d.kind, "");
  EXPECT_FALSE(d.registered);
  EXPECT_EQ(d.counts[4], 1);
  EXPECT_EQ(d.unfinished(), 0);
  const AdminKind& e = status->kinds[1];
  EXPECT_EQ(e.kind, "email");
  EXPECT_TRUE(e.registered);
  EXPECT_EQ(e.node_id, "node-a");
  EXPECT_EQ(e.registered_at, absl::FromUnixSeconds(1764637323));
  EXPECT_EQ(e.unfinished(), 2);
  EXPECT_EQ(e.counts[3], 1);
  EXPECT_EQ(status->kinds[2].kind, "idle");
  EXPECT_TRUE(status->kinds[2].registered);
  EXPECT_EQ(status->kinds[2].unfinished(), 0);
  EXPECT_EQ(status->kinds[3].kind, "orphan");
  EXPECT_FALSE(status->kinds[3].registered);
  EXPECT_EQ(status->kinds[3].counts[1], 1);
  // The counts by state still add up over the kinds.
  EXPECT_EQ(status->counts[0], 1);
  EXPECT_EQ(status->counts[1], 1);
  EXPECT_EQ(status->counts[2], 1);
  EXPECT_EQ(status->counts[3], 1);
  EXPECT_EQ(status->counts[4], 1);
}

// Each kind's overdue tasks: PENDING or SCHEDULED and due by the
// database's now; RUNNING, finished and future tasks are not overdue. They
// add up to the store's overdue count (one snapshot).
TEST_F(AdminHistoryTest, StatusCountsOverdueTasksByKind) {
  const auto insert = [&](const std::string& id, const std::string& kind,
                          int64_t due_in_us, TaskState state) {
    durable_testing::InsertedTask task;
    task.id = id;
    task.kind = kind;
    task.due_in_us = due_in_us;
    task.state = state;
    task.finished_now = state >= TaskState::kSuccess;
    ASSERT_NO_FATAL_FAILURE(Insert(task));
  };
  constexpr int64_t kMinute = int64_t{60} * 1000000;
  insert("m1", "mail", -kMinute, TaskState::kPending);
  insert("m2", "mail", -2 * kMinute, TaskState::kScheduled);
  insert("m3", "mail", kMinute, TaskState::kPending);
  insert("m4", "mail", -kMinute, TaskState::kRunning);
  insert("m5", "mail", -kMinute, TaskState::kFailed);
  insert("d1", "", -kMinute, TaskState::kPending);
  insert("b1", "bill", kMinute, TaskState::kScheduled);
  insert("b2", "bill", -kMinute, TaskState::kSuccess);
  insert("b3", "bill", -kMinute, TaskState::kSuccess);
  // Finished before the throughput window: not counted in it.
  durable_testing::InsertedTask old;
  old.id = "b4";
  old.kind = "bill";
  old.due_in_us = -20 * kMinute;
  old.state = TaskState::kSuccess;
  old.finished_us = absl::ToUnixMicros(absl::Now() - absl::Minutes(10));
  ASSERT_NO_FATAL_FAILURE(Insert(old));
  auto status = admin_->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->kinds.size(), 3u);
  EXPECT_EQ(status->kinds[1].succeeded_recently, 2) << "b2, b3; not b4";
  EXPECT_EQ(status->kinds[1].failed_recently, 0);
  EXPECT_EQ(status->kinds[2].succeeded_recently, 0);
  EXPECT_EQ(status->kinds[2].failed_recently, 1) << "m5";
  EXPECT_EQ(status->kinds[0].kind, "");
  EXPECT_EQ(status->kinds[0].overdue, 1);
  EXPECT_EQ(status->kinds[1].kind, "bill");
  EXPECT_EQ(status->kinds[1].overdue, 0);
  EXPECT_EQ(status->kinds[2].kind, "mail");
  EXPECT_EQ(status->kinds[2].overdue, 2);
  EXPECT_EQ(status->overdue, 3);
}

TEST_F(AdminHistoryTest, ShowListsTheNewestAttemptsOldestFirst) {
  InsertTask("many", "email", -5, TaskState::kFailed);
  InsertTask("none", "");
  // 105 attempts, finished 1 s apart; the last one FAILED, the one before
  // a success with no error.
  for (int i = 1; i <= 105; ++i) {
    durable_testing::AttemptRow row;
    row.attempt = i;
    row.outcome = i == 105 ? 2 : i == 104 ? 0 : 1;
    row.node_id = absl::StrCat("node-", i % 2);
    row.started_us = int64_t{1000000} * i;
    row.finished_us = int64_t{1000000} * i + 2500;
    if (i != 104) row.error = absl::StrCat("error <", i, ">");
    ASSERT_NO_FATAL_FAILURE(InsertAttempt("many", row));
  }
  auto shown = admin_->Show("many");
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_EQ(shown->kind, "email");
  EXPECT_EQ(shown->priority, -5);
  EXPECT_EQ(shown->attempts_total, 105);
  ASSERT_EQ(shown->attempts.size(), static_cast<size_t>(kMaxShownAttempts));
  for (size_t i = 0; i < shown->attempts.size(); ++i) {
    EXPECT_EQ(shown->attempts[i].attempt, static_cast<int>(i) + 6);
  }
  const AttemptRecord& first = shown->attempts.front();
  EXPECT_EQ(first.outcome, AttemptOutcome::kRetried);
  EXPECT_EQ(first.node_id, "node-0");
  EXPECT_EQ(first.started, absl::FromUnixSeconds(6));
  EXPECT_EQ(first.finished - first.started, absl::Microseconds(2500));
  EXPECT_EQ(first.error, "error <6>");
  EXPECT_EQ(shown->attempts[98].outcome, AttemptOutcome::kSucceeded);
  EXPECT_EQ(shown->attempts[98].error, "");
  EXPECT_EQ(shown->attempts.back().outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(shown->attempts.back().error, "error <105>");

  auto empty = admin_->Show("none");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->attempts.empty());
  EXPECT_EQ(empty->attempts_total, 0);
  EXPECT_EQ(empty->kind, "");
}

// tw_attempt rows go with their task's row: a raw DELETE (the owner's
// cleanup), a Cancel and a Discard.
TEST_F(AdminHistoryTest, DeletingATaskDeletesItsAttempts) {
  InsertTask("gone", "k", 0, TaskState::kSuccess);
  InsertTask("cancelled", "k", 0, TaskState::kPending);
  InsertTask("discarded", "k", 0, TaskState::kFailed);
  InsertTask("kept", "k", 0, TaskState::kFailed);
  for (const char* id : {"gone", "cancelled", "discarded", "kept"}) {
    for (int i = 1; i <= 3; ++i) {
      ASSERT_NO_FATAL_FAILURE(InsertAttempt(
          id, durable_testing::AttemptRow{i, 1, "n", i, i + 1, std::nullopt}));
    }
  }
  ASSERT_EQ(Value(Store().CountAttempts()), 12);
  ASSERT_TRUE(Store().DeleteTask("gone").ok());
  auto cancelled = admin_->Cancel("cancelled");
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->outcome, ActionOutcome::kDone);
  auto discarded = admin_->Discard("discarded");
  ASSERT_TRUE(discarded.ok()) << discarded.status();
  EXPECT_EQ(discarded->outcome, ActionOutcome::kDone);
  EXPECT_EQ(Value(Store().CountAttempts()), 3);
  EXPECT_EQ(Value(Store().CountAttempts("kept")), 3);
  auto kept = admin_->Show("kept");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->attempts_total, 3);
}

// A retried FAILED task keeps its kind, priority and history (the row is
// updated, not replaced: a delete would cascade to tw_attempt).
TEST_F(AdminHistoryTest, RetryKeepsKindPriorityAndHistory) {
  InsertTask("dead", "email", 7, TaskState::kFailed);
  ASSERT_NO_FATAL_FAILURE(InsertAttempt(
      "dead", durable_testing::AttemptRow{1, 2, "n", 1, 2, "boom"}));
  auto before = admin_->Show("dead");
  ASSERT_TRUE(before.ok()) << before.status();
  auto retried = admin_->Retry("dead", AdminDue::In(absl::Hours(1)));
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->outcome, ActionOutcome::kDone);
  auto shown = admin_->Show("dead");
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_EQ(shown->state, TaskState::kPending);
  EXPECT_EQ(shown->attempt, 0);
  EXPECT_FALSE(shown->finished.has_value());
  EXPECT_EQ(shown->kind, "email");
  EXPECT_EQ(shown->priority, 7);
  ASSERT_EQ(shown->attempts.size(), 2u);
  EXPECT_EQ(shown->attempts[0].error, "boom");
  EXPECT_EQ(shown->attempts[0].outcome, AttemptOutcome::kFailed);
  // The operator's retry leaves its mark after the failed attempt.
  const AttemptRecord& mark = shown->attempts[1];
  EXPECT_EQ(mark.outcome, AttemptOutcome::kOperatorRetry);
  EXPECT_EQ(mark.attempt, before->attempt);
  EXPECT_EQ(mark.node_id.rfind("operator ", 0), 0u) << mark.node_id;
  EXPECT_GT(mark.node_id.size(), 9u) << "names the database role";
  EXPECT_EQ(mark.started, mark.finished);
  EXPECT_GE(mark.finished, shown->db_now - absl::Minutes(1));
  EXPECT_EQ(std::string(AttemptOutcomeName(mark.outcome)), "OPERATOR_RETRY");
}

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
  auto again = admin->Reschedule("later", AdminDue::In(absl::Hours(3)));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outcome, ActionOutcome::kDone);
  EXPECT_GT(again->due, status->db_now + absl::Minutes(179));
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
}  // namespace durable_test
}  // namespace timingwheel
