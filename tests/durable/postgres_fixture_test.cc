// Copyright 2026 The timingwheel Authors.
//
// The PostgreSQL the tests are given is reachable from inside Bazel's
// sandbox, and each test gets a database of its own.

#include "durable/testing/postgres_fixture.h"

#include <memory>

#include "gtest/gtest.h"

namespace timingwheel {
namespace {

using durable_testing::TestDatabase;

TEST(PostgresFixtureTest, CreatesSeparateDatabases) {
  auto first = TestDatabase::Create();
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = TestDatabase::Create();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE((*first)->name(), (*second)->name());
  ASSERT_TRUE(
      durable_testing::ExecSql((*first)->conninfo(), "CREATE TABLE t (x int)")
          .ok());
  // The table exists in the first database only.
  auto in_first = durable_testing::QueryInt(
      (*first)->conninfo(),
      "SELECT count(*) FROM pg_tables WHERE tablename='t'");
  auto in_second = durable_testing::QueryInt(
      (*second)->conninfo(),
      "SELECT count(*) FROM pg_tables WHERE tablename='t'");
  ASSERT_TRUE(in_first.ok() && in_second.ok());
  EXPECT_EQ(*in_first, 1);
  EXPECT_EQ(*in_second, 0);
}

}  // namespace
}  // namespace timingwheel
