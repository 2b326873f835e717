// Copyright 2026 The timingwheel Authors.
//
// A user the database refuses a privilege gets PermissionDenied naming the
// user, the database and the fix, not an INTERNAL error with PostgreSQL's
// raw text: PostgreSQL 15 grants no CREATE on `public` to other users, the
// first error many users meet; nor may it end another user's sessions
// holding its node id. Real server; a role made for the test.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_testing::ExecSql;
using durable_testing::TestDatabase;

class PermissionErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    role_ = absl::StrCat("tw_app_", db_->name().substr(db_->name().size() - 8));
    ASSERT_TRUE(
        ExecSql(db_->conninfo(), absl::StrCat("CREATE ROLE ", role_, " LOGIN"))
            .ok());
  }
  void TearDown() override {
    if (db_ == nullptr) return;
    (void)ExecSql(db_->conninfo(), absl::StrCat("DROP OWNED BY ", role_));
    db_.reset();  // Drops the database (and the role's grants in it) first.
    auto admin = durable_testing::AdminConnInfo();
    if (admin.ok()) {
      (void)ExecSql(*admin, absl::StrCat("DROP ROLE IF EXISTS ", role_));
    }
  }

  std::unique_ptr<TestDatabase> db_;
  std::string role_;
};

TEST_F(PermissionErrorsTest, NoCreateOnPublicNamesUserDatabaseAndFix) {
  DurableOptions options;
  options.conninfo = absl::StrCat(db_->conninfo(), " user=", role_);
  options.node_id = "perm-node";
  options.handler = [](const DurableTask&) { return absl::OkStatus(); };
  auto scheduler = DurableScheduler::Create(options);
  ASSERT_FALSE(scheduler.ok());
  const absl::Status& status = scheduler.status();
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << status;
  EXPECT_NE(status.message().find(absl::StrCat("user \"", role_, "\"")),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find(absl::StrCat("database \"", db_->name())),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("user=<the owner>' migrate"),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("GRANT CREATE ON SCHEMA public"),
            std::string::npos)
      << status;

  // The fix the message gives works.
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      absl::StrCat("GRANT CREATE ON SCHEMA public TO ", role_))
                  .ok());
  auto granted = DurableScheduler::Create(options);
  ASSERT_TRUE(granted.ok()) << granted.status();
  (*granted)->Shutdown();
}

// A stale holder of the node id (no heartbeat, no lease) whose session
// belongs to another user, here a superuser: the replacement may not end
// it, and says so with the fix instead of waiting or failing raw.
TEST_F(PermissionErrorsTest, StaleHolderOfAnotherUserNamesTheFix) {
  ASSERT_TRUE(ExecSql(db_->conninfo(),
                      absl::StrCat("GRANT CREATE ON SCHEMA public TO ", role_))
                  .ok());
  DurableOptions options;
  options.conninfo = absl::StrCat(db_->conninfo(), " user=", role_);
  options.node_id = "perm-setup";
  options.lease_ttl = absl::Seconds(1);
  options.handler = [](const DurableTask&) { return absl::OkStatus(); };
  {
    auto setup = DurableScheduler::Create(options);  // Creates the schema.
    ASSERT_TRUE(setup.ok()) << setup.status();
    (*setup)->Shutdown();
  }
  // The superuser's session holds "perm-held" and never heartbeats.
  PGconn* holder = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(holder), CONNECTION_OK);
  PGresult* locked = PQexec(holder,
                            "SELECT pg_advisory_lock(hashtextextended("
                            "'timingwheel node perm-held', 0)), "
                            "pg_advisory_lock(hashtextextended("
                            "'timingwheel node public.perm-held', 0))");
  ASSERT_EQ(PQresultStatus(locked), PGRES_TUPLES_OK);
  PQclear(locked);

  options.node_id = "perm-held";
  auto refused = DurableScheduler::Create(options);
  ASSERT_FALSE(refused.ok());
  const absl::Status& status = refused.status();
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << status;
  EXPECT_NE(status.message().find("perm-held"), std::string::npos) << status;
  EXPECT_NE(status.message().find(absl::StrCat("user \"", role_, "\"")),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("pg_signal_backend"), std::string::npos)
      << status;
  // The holder's session was not ended.
  PGresult* alive = PQexec(holder, "SELECT 1");
  EXPECT_EQ(PQresultStatus(alive), PGRES_TUPLES_OK);
  PQclear(alive);

  // Its session ended (as the message says a superuser may do), the id is
  // free.
  PQfinish(holder);
  auto started = DurableScheduler::Create(options);
  ASSERT_TRUE(started.ok()) << started.status();
  (*started)->Shutdown();
}

}  // namespace
}  // namespace timingwheel
