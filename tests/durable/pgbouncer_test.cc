// Copyright 2026 The timingwheel Authors.
//
// Producers behind PgBouncer in transaction pooling mode (started by
// .ci/with-postgres: two server connections per database, so the clients
// below share them): `DurableClient` with `transaction_pooler` and the SQL
// producer functions schedule, replace and cancel through the pooler, while
// a scheduler connected directly runs every task once and wakes on the
// pooled producers' notifications. Without the option, the clients' named
// prepared statements collide on the shared server connections.

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/schedule_in_transaction.h"
#include "durable/sql/pooler_probe.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

class PgBouncerTest : public DurableFixture {
 protected:
  void SetUp() override {
    DurableFixture::SetUp();
    const char* bouncer = std::getenv("TIMINGWHEEL_PGBOUNCER");
    ASSERT_TRUE(bouncer != nullptr && *bouncer != '\0')
        << "TIMINGWHEEL_PGBOUNCER is not set: run through .ci/with-postgres "
           "(it starts PgBouncer when `pgbouncer` is installed: bash "
           ".ci/install-deps) with --test_env=TIMINGWHEEL_PGBOUNCER";
    pooled_ = absl::StrCat(bouncer, " dbname=", db_->name());
  }

  std::unique_ptr<DurableClient> PooledClient() {
    DurableClientOptions options;
    options.conninfo = pooled_;
    options.slot_count = 1;
    options.transaction_pooler = true;
    auto client = DurableClient::Create(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  std::string pooled_;
};

TEST_F(PgBouncerTest, PooledProducersScheduleReplaceAndCancel) {
  auto scheduler = Start(Options("direct"));
  ASSERT_NE(scheduler, nullptr);
  constexpr int kClients = 4;
  constexpr int kTasks = 40;
  std::vector<std::unique_ptr<DurableClient>> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(PooledClient());
    ASSERT_NE(clients.back(), nullptr);
  }
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kClients);
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      DurableClient& client = *clients[c];
      for (int i = 0; i < kTasks; ++i) {
        const std::string id = absl::StrCat("c", c, "-", i);
        absl::Status status = client.Schedule(id, absl::ZeroDuration(), id);
        if (!status.ok()) errors[c] += status.ToString() + "\n";
        // A debounce moved twice, then due now; and a cancelled task.
        ScheduleRequest debounce;
        debounce.id = absl::StrCat("d", c, "-", i);
        debounce.payload = "debounce";
        debounce.delay = absl::Hours(1);
        auto replaced = client.ScheduleOrReplace(debounce);
        debounce.delay = absl::ZeroDuration();
        if (replaced.ok()) replaced = client.ScheduleOrReplace(debounce);
        if (!replaced.ok()) errors[c] += replaced.status().ToString() + "\n";
        const std::string doomed = absl::StrCat("x", c, "-", i);
        status = client.Schedule(doomed, absl::Hours(1), "never");
        auto cancelled = client.Cancel(doomed);
        if (!status.ok() || !cancelled.ok() || !*cancelled) {
          errors[c] += absl::StrCat("cancel of ", doomed,
                                    " failed: ", status.ToString(), "\n");
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int c = 0; c < kClients; ++c) EXPECT_EQ(errors[c], "") << "client " << c;

  // The SQL functions through the pooler, in a transaction.
  PGconn* conn = PQconnectdb(pooled_.c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  for (const char* sql :
       {"BEGIN", "SELECT tw_schedule_task_after('sql-1', '0 s', 'p')",
        "COMMIT"}) {
    PGresult* r = PQexec(conn, sql);
    EXPECT_TRUE(PQresultStatus(r) == PGRES_COMMAND_OK ||
                PQresultStatus(r) == PGRES_TUPLES_OK)
        << sql << ": " << PQerrorMessage(conn);
    PQclear(r);
  }
  PQfinish(conn);

  const size_t want = 2 * kClients * kTasks + 1;
  ASSERT_TRUE(
      WaitFor([&] { return recorder_.size() >= want; }, absl::Seconds(60)))
      << recorder_.size() << " of " << want << " ran";
  std::map<std::string, int> ran = recorder_.CountById();
  EXPECT_EQ(ran.size(), want);
  for (const auto& [id, count] : ran) {
    EXPECT_EQ(count, 1) << id;
    EXPECT_NE(id[0], 'x') << id << " was cancelled and ran";
  }
}

// A scheduler needs LISTEN and session advisory locks: behind a pooler in
// transaction mode, Create() refuses, saying why.
TEST_F(PgBouncerTest, ASchedulerBehindTheTransactionPoolerIsRefused) {
  DurableOptions options = Options("pooled");
  options.conninfo = pooled_;
  auto scheduler = DurableScheduler::Create(options);
  ASSERT_FALSE(scheduler.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(scheduler.status()))
      << scheduler.status();
  EXPECT_NE(scheduler.status().message().find("transaction mode"),
            std::string::npos)
      << scheduler.status();
  // It was refused before it set anything on a pooled server connection:
  // both of the pool's server connections (held at once by two open
  // transactions) keep the defaults, and no node lock was left on one.
  PGconn* a = PQconnectdb(pooled_.c_str());
  PGconn* b = PQconnectdb(pooled_.c_str());
  for (PGconn* c : {a, b}) {
    ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    PQclear(PQexec(c, "BEGIN"));
  }
  for (PGconn* c : {a, b}) {
    PGresult* r =
        PQexec(c,
               "SELECT current_setting('statement_timeout'), "
               "current_setting('application_name'), "
               "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
               "database = (SELECT oid FROM pg_database "
               "WHERE datname = current_database()))");
    ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(c);
    EXPECT_EQ(std::string(PQgetvalue(r, 0, 0)), "0") << "a leaked timeout";
    EXPECT_EQ(std::string(PQgetvalue(r, 0, 1)).rfind("timingwheel", 0),
              std::string::npos)
        << "a leaked application_name: " << PQgetvalue(r, 0, 1);
    EXPECT_EQ(std::string(PQgetvalue(r, 0, 2)), "0") << "a leaked node lock";
    PQclear(r);
  }
  for (PGconn* c : {a, b}) {
    PQclear(PQexec(c, "COMMIT"));
    PQfinish(c);
  }
}

// twctl runs the same check before it connects (tools/twctl/main.cc): a
// direct connection passes, the pooler is refused naming the tool.
TEST_F(PgBouncerTest, ThePoolerProbeTellsThePoolerFromADirectConnection) {
  EXPECT_TRUE(durable_internal::CheckNotPooled(db_->conninfo(), "twctl").ok());
  absl::Status pooled = durable_internal::CheckNotPooled(pooled_, "twctl");
  EXPECT_TRUE(absl::IsFailedPrecondition(pooled)) << pooled;
  EXPECT_NE(pooled.message().find("twctl needs a direct"), std::string::npos)
      << pooled;
}

// ScheduleInTransaction() on the caller's connection through the pooler,
// several callers at once over its two server connections: each caller's
// transaction commits its tasks, and a rolled-back one stores nothing.
TEST_F(PgBouncerTest, ScheduleInTransactionThroughThePooler) {
  auto scheduler = Start(Options("direct"));
  ASSERT_NE(scheduler, nullptr);
  constexpr int kCallers = 4;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kCallers);
  for (int c = 0; c < kCallers; ++c) {
    threads.emplace_back([&, c] {
      PGconn* conn = PQconnectdb(pooled_.c_str());
      for (int i = 0; i < 10; ++i) {
        const bool keep = i % 5 != 4;
        PQclear(PQexec(conn, "BEGIN"));
        ScheduleRequest request;
        request.id = absl::StrCat(keep ? "t" : "rolled-back", c, "-", i);
        request.payload = "p";
        absl::Status status = ScheduleInTransaction(conn, {&request, 1}, 1);
        if (!status.ok()) errors[c] += status.ToString() + "\n";
        PQclear(PQexec(conn, keep ? "COMMIT" : "ROLLBACK"));
      }
      PQfinish(conn);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(errors[c], "") << c;
  ASSERT_TRUE(
      WaitFor([&] { return recorder_.size() >= 32; }, absl::Seconds(60)))
      << recorder_.size();
  for (const auto& [id, count] : recorder_.CountById()) {
    EXPECT_EQ(count, 1) << id;
    EXPECT_EQ(id.rfind("rolled-back", 0), std::string::npos) << id;
  }
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer"), 32);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
