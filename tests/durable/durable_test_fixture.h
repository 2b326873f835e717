// Copyright 2026 The timingwheel Authors.
//
// durable_test_fixture.h
// -----------------------------------------------------------------------------
//
// The fixture of the in-process scheduler tests that force one interleaving
// each (a held statement, a dropped reply, a paused thread): a fresh
// database per test, small single-purpose stores (few slots, a short
// lease), a recording handler, and the store's rows read through
// `durable_testing::StoreInspector` (`Store()`, `Count()`).

#ifndef TIMINGWHEEL_TESTS_DURABLE_DURABLE_TEST_FIXTURE_H_
#define TIMINGWHEEL_TESTS_DURABLE_DURABLE_TEST_FIXTURE_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {

class DurableFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = durable_testing::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  // One slot (so two schedulers contend for the same one), a 1 s lease.
  DurableOptions Options(const std::string& node) {
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.node_id = node;
    options.handler = recorder_.Handler();
    options.lease_ttl = absl::Seconds(1);
    options.slot_count = 1;
    options.retry.initial_backoff = absl::Milliseconds(100);
    return options;
  }

  std::unique_ptr<DurableScheduler> Start(DurableOptions options) {
    auto scheduler = DurableScheduler::Create(std::move(options));
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    return scheduler.ok() ? *std::move(scheduler) : nullptr;
  }

  int64_t Query(const std::string& sql) {
    auto n = durable_testing::QueryInt(db_->conninfo(), sql);
    EXPECT_TRUE(n.ok()) << n.status() << " for " << sql;
    return n.ok() ? *n : -1;
  }

  // The store's tables.
  durable_testing::StoreInspector Store() const {
    return durable_testing::StoreInspector(db_->conninfo());
  }

  // Fails the test on an error, and returns -1 for it.
  static int64_t Value(const absl::StatusOr<int64_t>& n) {
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  // The number of tasks `match` covers (-1, failing the test, on error).
  int64_t Count(const durable_testing::TaskMatch& match = {}) {
    return Value(Store().CountTasks(match));
  }

  void Exec(const std::string& sql) {
    absl::Status status = durable_testing::ExecSql(db_->conninfo(), sql);
    ASSERT_TRUE(status.ok()) << status << " for " << sql;
  }

  // The highest epoch of any slot lease (-1, failing the test, on error).
  int64_t MaxLeaseEpoch() {
    auto leases = Store().SummarizeLeases();
    EXPECT_TRUE(leases.ok()) << leases.status();
    return leases.ok() ? leases->max_epoch : -1;
  }

  // Makes every slot's lease run out now (as after its owner's stall).
  void ExpireLeases() {
    auto expired = Store().ExpireLeases();
    ASSERT_TRUE(expired.ok()) << expired.status();
  }

  // Inserts a PENDING row straight into the table (no notification: only
  // a load finds it), due `delay_ms` after the database's now.
  void InsertPending(const std::string& id, int64_t delay_ms) {
    durable_testing::InsertedTask task;
    task.id = id;
    task.due_in_us = delay_ms * 1000;
    absl::Status status = Store().InsertTask(task);
    ASSERT_TRUE(status.ok()) << status << " for " << id;
  }

  // Writes `task`'s row straight into the table (no notification).
  void Insert(const durable_testing::InsertedTask& task) {
    absl::Status status = Store().InsertTask(task);
    ASSERT_TRUE(status.ok()) << status << " for " << task.id;
  }

  // Waits (bounded) until exactly one session of this database waits on a
  // lock while running a statement whose text contains `text` (a constant
  // of the test's, without quotes).
  bool WaitForLockWaiter(const std::string& text) {
    return WaitFor([&] {
      return Query(absl::StrCat(
                 "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                 "current_database() AND wait_event_type = 'Lock' AND "
                 "position('",
                 text, "' IN query) > 0")) == 1;
    });
  }

  bool Succeeded(const std::string& id,
                 absl::Duration timeout = absl::Seconds(15)) {
    return WaitFor(
        [&] {
          return Count(durable_testing::TaskMatch().Id(id).State(
                     TaskState::kSuccess)) == 1;
        },
        timeout);
  }

  std::unique_ptr<durable_testing::TestDatabase> db_;
  Recorder recorder_;
};

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_DURABLE_TEST_FIXTURE_H_
