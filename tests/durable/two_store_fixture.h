// Copyright 2026 The timingwheel Authors.
//
// TwoStoreFixture: one test suite over two stores, PostgreSQL ("Postgres",
// a fresh database per test; bash .ci/with-postgres starts the server) and
// the in-memory fake ("Fake", durable/testing/fake_store.h), as River runs
// one suite over its drivers. A behaviour that holds on one and not on the
// other is a bug in the fake or a promise store_api.h does not state.
//
// Use: derive the suite's fixture, write TEST_P cases, and instantiate with
// TW_TWO_STORE_SUITE(Fixture).

#ifndef TIMINGWHEEL_TESTS_DURABLE_TWO_STORE_FIXTURE_H_
#define TIMINGWHEEL_TESTS_DURABLE_TWO_STORE_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/fake_database.h"
#include "durable/testing/fake_store.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_injection.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {

class TwoStoreFixture : public ::testing::TestWithParam<std::string> {
 protected:
  bool fake() const { return GetParam() == "fake"; }

  void SetUp() override {
    if (fake()) {
      fake_db_ = std::make_shared<durable_testing::FakeDatabase>();
      return;
    }
    auto db = durable_testing::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    pg_ = *std::move(db);
  }

  // `slot_count` slots, a 1 s lease, retries 100 ms apart.
  DurableOptions Options(const std::string& node, int slot_count = 1) {
    DurableOptions options;
    options.conninfo = fake() ? "fake" : pg_->conninfo();
    options.node_id = node;
    options.handler = recorder_.Handler();
    options.lease_ttl = absl::Seconds(1);
    options.slot_count = slot_count;
    options.retry.initial_backoff = absl::Milliseconds(100);
    return options;
  }

  std::unique_ptr<DurableScheduler> Start(DurableOptions options) {
    auto scheduler = fake() ? durable_testing::CreateSchedulerWithStores(
                                  std::move(options),
                                  durable_testing::FakeStoreFactory(fake_db_))
                            : DurableScheduler::Create(std::move(options));
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    return scheduler.ok() ? *std::move(scheduler) : nullptr;
  }

  // The stored tasks in `state` (-1, failing the test, on an error).
  int64_t CountInState(TaskState state) {
    if (fake()) return fake_db_->TaskCount(state);
    absl::StatusOr<int64_t> n =
        durable_testing::StoreInspector(pg_->conninfo())
            .CountTasks(durable_testing::TaskMatch().State(state));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  // The stored tasks waiting for their attempt (PENDING or SCHEDULED), read
  // in one statement (two counts would count a row that moves from one
  // state to the other between them twice).
  int64_t CountWaiting() {
    if (fake()) return fake_db_->WaitingTaskCount(/*not_yet_due=*/false);
    absl::StatusOr<int64_t> n =
        durable_testing::StoreInspector(pg_->conninfo())
            .CountTasks(
                durable_testing::TaskMatch().StateBefore(TaskState::kRunning));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  // Of those, the ones due after the database's clock: written ahead, not
  // due and not yet fired.
  int64_t CountWaitingNotYetDue() {
    if (fake()) return fake_db_->WaitingTaskCount(/*not_yet_due=*/true);
    absl::StatusOr<std::vector<durable_testing::TaskRow>> rows =
        durable_testing::StoreInspector(pg_->conninfo())
            .Tasks(
                durable_testing::TaskMatch().StateBefore(TaskState::kRunning));
    EXPECT_TRUE(rows.ok()) << rows.status();
    if (!rows.ok()) return -1;
    int64_t n = 0;
    for (const durable_testing::TaskRow& row : *rows) {
      n += row.due_us > row.now_us ? 1 : 0;
    }
    return n;
  }

  Recorder recorder_;
  std::shared_ptr<durable_testing::FakeDatabase> fake_db_;
  std::unique_ptr<durable_testing::TestDatabase> pg_;
};

// Instantiates `fixture`'s TEST_P cases as Stores/Fixture.Case/Postgres and
// .../Fake.
#define TW_TWO_STORE_SUITE(fixture)                                     \
  INSTANTIATE_TEST_SUITE_P(                                             \
      Stores, fixture, ::testing::Values("postgres", "fake"),           \
      [](const ::testing::TestParamInfo<std::string>& info) {           \
        return std::string(info.param == "fake" ? "Fake" : "Postgres"); \
      })

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_TWO_STORE_FIXTURE_H_
