// Copyright 2026 The timingwheel Authors.
//
// AdminStore's reads against a real PostgreSQL, on a store a
// DurableScheduler runs: tasks in every state, what Status, List and Show
// report; connecting, and reconnecting after a lost session.

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
  EXPECT_EQ(status->schema_version, 4);
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
