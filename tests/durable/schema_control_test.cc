// Copyright 2026 The timingwheel Authors.
//
// `migrate_schema = false`: a client or scheduler that may not migrate
// checks the schema and, when there is none or an older one, fails at
// Create() with the command to run, changing nothing (and never showing
// the password). Real server.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/migrations.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

class SchemaControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
  }

  DurableClientOptions ClientOptions(bool migrate) const {
    DurableClientOptions options;
    // The server trusts the socket; the password is only there to be hidden.
    options.conninfo = absl::StrCat(db_->conninfo(), " password=hunter2-pw");
    options.slot_count = 8;
    options.migrate_schema = migrate;
    return options;
  }

  bool HasStore() const {
    auto present = QueryInt(db_->conninfo(),
                            "SELECT (to_regclass('tw_meta') IS NOT NULL)::int");
    return present.ok() && *present == 1;
  }

  std::unique_ptr<TestDatabase> db_;
};

TEST_F(SchemaControlTest, NoStoreFailsWithTheCommandAndCreatesNothing) {
  auto client = DurableClient::Create(ClientOptions(false));
  ASSERT_FALSE(client.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(client.status())) << client.status();
  EXPECT_NE(client.status().message().find("migrate --slot-count 8"),
            std::string::npos)
      << client.status();
  EXPECT_EQ(client.status().message().find("hunter2"), std::string::npos)
      << client.status();
  EXPECT_FALSE(HasStore());

  DurableOptions scheduler_options;
  scheduler_options.conninfo = ClientOptions(false).conninfo;
  scheduler_options.slot_count = 8;
  scheduler_options.migrate_schema = false;
  scheduler_options.handler = [](const DurableTask&) {
    return absl::OkStatus();
  };
  auto scheduler = DurableScheduler::Create(scheduler_options);
  ASSERT_FALSE(scheduler.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(scheduler.status()))
      << scheduler.status();
  EXPECT_FALSE(HasStore());

  // Once an operator (here: a migrating client) created it, it is accepted.
  ASSERT_TRUE(DurableClient::Create(ClientOptions(true)).ok());
  auto checked = DurableClient::Create(ClientOptions(false));
  EXPECT_TRUE(checked.ok()) << checked.status();
}

TEST_F(SchemaControlTest, AnOlderStoreIsNotMigratedButNamed) {
  ASSERT_TRUE(DurableClient::Create(ClientOptions(true)).ok());
  const int64_t older = durable_internal::kSchemaVersion - 1;
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      absl::StrCat("UPDATE tw_meta SET value = ", older,
                                   " WHERE key = 'schema_version'"))
                  .ok());
  auto client = DurableClient::Create(ClientOptions(false));
  ASSERT_FALSE(client.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(client.status())) << client.status();
  EXPECT_NE(client.status().message().find(
                absl::StrCat("at version ", older, ", this library needs")),
            std::string::npos)
      << client.status();
  EXPECT_NE(client.status().message().find("twctl"), std::string::npos);
  auto version =
      QueryInt(db_->conninfo(),
               "SELECT value FROM tw_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(*version, older);  // Nothing was changed.
}

}  // namespace
}  // namespace timingwheel
