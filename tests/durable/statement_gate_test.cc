// Copyright 2026 The timingwheel Authors.
//
// StatementGate against the real server: a matching UPDATE waits at its
// start (after its snapshot) while another connection commits, goes on when
// released, and a second matching statement passes; gates coexist.

#include "durable/testing/statement_gate.h"

#include <memory>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace {

using durable_testing::ExecSql;
using durable_testing::QueryInt;
using durable_testing::StatementGate;
using durable_testing::TestDatabase;

// Exec()
//
// Runs `sql` on a new connection (statement_timeout 60 s, so that a gate
// that never opens fails the test instead of hanging it); returns the
// command's row count, or -1 on failure.
int64_t Exec(const std::string& conninfo, const std::string& sql) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  int64_t rows = -1;
  if (PQstatus(conn) == CONNECTION_OK) {
    PQclear(PQexec(conn, "SET statement_timeout = '60s'"));
    PGresult* result = PQexec(conn, sql.c_str());
    if (PQresultStatus(result) == PGRES_COMMAND_OK) {
      rows = std::stoll(PQcmdTuples(result));
    }
    PQclear(result);
  }
  PQfinish(conn);
  return rows;
}

class StatementGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    ASSERT_TRUE(ExecSql(db_->conninfo(),
                        "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);"
                        "INSERT INTO t VALUES (1, 0)")
                    .ok());
  }

  int64_t Query(const std::string& sql) {
    auto value = QueryInt(db_->conninfo(), sql);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : -1;
  }

  std::unique_ptr<TestDatabase> db_;
};

TEST_F(StatementGateTest, HoldsUpdateAfterItsSnapshotUntilReleased) {
  auto gate =
      StatementGate::Install(db_->conninfo(), "t", "UPDATE", "/* held */");
  ASSERT_TRUE(gate.ok()) << gate.status();

  int64_t held_rows = -2;
  std::thread held([&] {
    held_rows = Exec(db_->conninfo(), "UPDATE t SET v = v + 1 /* held */");
  });
  ASSERT_TRUE((*gate)->WaitBlocked(absl::Seconds(30)));

  // In the middle of the held UPDATE: another connection commits a row.
  EXPECT_EQ(Exec(db_->conninfo(), "INSERT INTO t VALUES (2, 0)"), 1);
  EXPECT_EQ(Query("SELECT v FROM t WHERE id = 1"), 0);

  (*gate)->Release();
  held.join();
  // The UPDATE's snapshot predates the insert: it changed row 1 only.
  EXPECT_EQ(held_rows, 1);
  EXPECT_EQ(Query("SELECT v FROM t WHERE id = 1"), 1);
  EXPECT_EQ(Query("SELECT v FROM t WHERE id = 2"), 0);
  EXPECT_TRUE((*gate)->WaitBlocked(absl::ZeroDuration()));

  // One-shot: the next matching statement passes (statement_timeout would
  // fail it if it waited).
  EXPECT_EQ(Exec(db_->conninfo(), "UPDATE t SET v = v + 1 /* held */"), 2);
}

TEST_F(StatementGateTest, OtherStatementsPass) {
  auto gate =
      StatementGate::Install(db_->conninfo(), "t", "UPDATE", "/* held */");
  ASSERT_TRUE(gate.ok()) << gate.status();
  // Another text, and the text on another event.
  EXPECT_EQ(Exec(db_->conninfo(), "UPDATE t SET v = 5"), 1);
  EXPECT_EQ(Exec(db_->conninfo(), "INSERT INTO t VALUES (3, 0) /* held */"), 1);
  EXPECT_FALSE((*gate)->WaitBlocked(absl::Milliseconds(20)));
}

TEST_F(StatementGateTest, GatesCoexistAndCleanUp) {
  auto a = StatementGate::Install(db_->conninfo(), "t", "UPDATE", "gate-a");
  ASSERT_TRUE(a.ok()) << a.status();
  auto b =
      StatementGate::Install(db_->conninfo(), "public.t", "UPDATE", "gate-b");
  ASSERT_TRUE(b.ok()) << b.status();

  int64_t a_rows = -2;
  int64_t b_rows = -2;
  std::thread held_a([&] {
    a_rows = Exec(db_->conninfo(), "UPDATE t SET v = v + 1 /* gate-a */");
  });
  ASSERT_TRUE((*a)->WaitBlocked(absl::Seconds(30)));
  std::thread held_b([&] {
    b_rows = Exec(db_->conninfo(), "UPDATE t SET v = v + 10 /* gate-b */");
  });
  ASSERT_TRUE((*b)->WaitBlocked(absl::Seconds(30)));

  // b goes first: a still waits and has changed nothing.
  (*b)->Release();
  held_b.join();
  EXPECT_EQ(b_rows, 1);
  EXPECT_EQ(Query("SELECT v FROM t WHERE id = 1"), 10);
  (*a)->Release();
  held_a.join();
  EXPECT_EQ(a_rows, 1);
  EXPECT_EQ(Query("SELECT v FROM t WHERE id = 1"), 11);

  a->reset();
  b->reset();
  EXPECT_EQ(Query("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal"), 0);
  EXPECT_EQ(Query("SELECT count(*) FROM pg_proc WHERE proname LIKE "
                  "'tw\\_gate\\_%'"),
            0);
  EXPECT_EQ(Query("SELECT count(*) FROM pg_class WHERE relname LIKE "
                  "'tw\\_gate\\_%'"),
            0);
}

}  // namespace
}  // namespace timingwheel
