// Copyright 2026 The timingwheel Authors.
//
// The fake store's injected failures (durable/testing/fake_database.h,
// `FakeDatabase::FailNext()`): the next call of the named method, on any
// store over the database, fails and changes nothing; the call after it
// works. And a scheduler over the fake gets through a failed fire
// statement: the task still runs once and ends SUCCESS.

#include "durable/testing/fake_store.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/fake_database.h"
#include "durable/testing/store_injection.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_internal::Inserter;
using durable_internal::InsertRow;
using durable_testing::FakeDatabase;
using durable_testing::FakeStore;

constexpr int kSlots = 4;

InsertRow Row(const std::string& id) {
  InsertRow row;
  row.id = id;
  row.payload = "p";
  row.slot = durable_internal::SlotFor(id, kSlots);
  row.due_or_delay_us = 1'000'000;
  row.relative = true;
  return row;
}

Inserter PlainClient() {
  Inserter inserter;
  inserter.slot_count = kSlots;
  return inserter;
}

TEST(FakeStoreTest, FailNextFailsOneCallAndChangesNothing) {
  auto db = std::make_shared<FakeDatabase>();
  FakeStore store(db);
  ASSERT_TRUE(store.EnsureSchema(kSlots).ok());
  db->FailNext("Insert", absl::UnavailableError("injected"));
  const std::vector<InsertRow> rows = {Row("a")};
  auto failed = store.Insert(PlainClient(), rows);
  EXPECT_TRUE(absl::IsUnavailable(failed.status())) << failed.status();
  EXPECT_EQ(db->TaskCount(), 0);
  auto inserted = store.Insert(PlainClient(), rows);
  ASSERT_TRUE(inserted.ok()) << inserted.status();
  EXPECT_EQ(db->TaskCount(), 1);
}

TEST(FakeStoreTest, FailNextIsPerMethodOnAnyStoreOverTheDatabase) {
  auto db = std::make_shared<FakeDatabase>();
  FakeStore a(db);
  FakeStore b(db);
  ASSERT_TRUE(a.EnsureSchema(kSlots).ok());
  const std::vector<InsertRow> rows = {Row("x")};
  ASSERT_TRUE(a.Insert(PlainClient(), rows).ok());
  db->FailNext("Get", absl::InternalError("injected"));
  // Another method is not touched; the failure waits for a Get.
  auto again = a.Insert(PlainClient(), rows);
  EXPECT_TRUE(again.ok()) << again.status();
  auto got = b.Get("x");
  EXPECT_TRUE(absl::IsInternal(got.status())) << got.status();
  auto then = a.Get("x");
  ASSERT_TRUE(then.ok()) << then.status();
  EXPECT_EQ(then->state, TaskState::kPending);
}

TEST(FakeStoreTest, ASchedulerGetsThroughAFailedFireStatement) {
  auto db = std::make_shared<FakeDatabase>();
  Recorder recorder;
  DurableOptions options;
  options.conninfo = "fake";
  options.node_id = "n";
  options.handler = recorder.Handler();
  options.lease_ttl = absl::Seconds(1);
  options.slot_count = kSlots;
  auto s = durable_testing::CreateSchedulerWithStores(
      std::move(options), durable_testing::FakeStoreFactory(db));
  ASSERT_TRUE(s.ok()) << s.status();
  db->FailNext("StartRunning", absl::UnavailableError("injected"));
  ASSERT_TRUE((*s)->Schedule("t", absl::Milliseconds(50), "p").ok());
  ASSERT_TRUE(WaitFor([&] {
    auto info = (*s)->Get("t");
    return info.ok() && info->state == TaskState::kSuccess;
  }));
  EXPECT_EQ(recorder.CountById().at("t"), 1);
  EXPECT_GE((*s)->Metrics().db_errors, 1);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
