// Copyright 2026 The timingwheel Authors.
//
// A fixture for store tests that race two connections: a fresh test
// database with the schema (`kSlots` slots), two `Store`s on it (`a_` and
// `b_`), a way to insert a task due now, and the inspector. Tests hold a
// statement of one store (durable/testing/statement_gate.h) while the
// other commits.
//
// Thread safety: the fixture's members are the test thread's; a test may
// hand one store to a thread of its own while it uses the other.

#ifndef TIMINGWHEEL_TESTS_DURABLE_TWO_STORES_FIXTURE_H_
#define TIMINGWHEEL_TESTS_DURABLE_TWO_STORES_FIXTURE_H_

#include <memory>
#include <string>

#include "durable/client/request.h"
#include "durable/sql/store.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {

class TwoStoresTest : public ::testing::Test {
 protected:
  static constexpr int kSlots = 4;

  void SetUp() override {
    auto db = durable_testing::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    a_ = Connect();
    b_ = Connect();
    ASSERT_NE(a_, nullptr);
    ASSERT_NE(b_, nullptr);
    ASSERT_TRUE(a_->EnsureSchema(kSlots).ok());
  }

  std::unique_ptr<Store> Connect() {
    auto store = Store::Connect(db_->conninfo());
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Inserts `id` (payload "p", the default kind) due now, through `a_`.
  void InsertDue(const std::string& id) {
    ScheduleRequest request;
    request.id = id;
    request.payload = "p";
    auto row = ToInsertRow(request, kSlots, RequestLimits());
    ASSERT_TRUE(row.ok()) << row.status();
    Inserter inserter;
    inserter.slot_count = kSlots;
    ASSERT_TRUE(a_->Insert(inserter, {&*row, 1}).ok());
  }

  durable_testing::StoreInspector Inspect() const {
    return durable_testing::StoreInspector(db_->conninfo());
  }

  std::unique_ptr<durable_testing::TestDatabase> db_;
  std::unique_ptr<Store> a_;
  std::unique_ptr<Store> b_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_TWO_STORES_FIXTURE_H_
