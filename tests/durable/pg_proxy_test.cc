// Copyright 2026 The timingwheel Authors.
//
// PgProxy against the real server, through libpq: plain traffic passes
// unchanged, a dropped reply still commits, a prepared statement executed by
// name is matched by its Parse text, and cut or refused connections fail.

#include "durable/testing/pg_proxy.h"

#include <arpa/inet.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace {

using durable_testing::PgProxy;
using durable_testing::QueryInt;
using durable_testing::TestDatabase;

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultCloser {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;
using Result = std::unique_ptr<PGresult, ResultCloser>;

Conn Connect(const std::string& conninfo) {
  Conn conn(PQconnectdb(conninfo.c_str()));
  return conn;
}

bool Ok(const Result& result) {
  const ExecStatusType status = PQresultStatus(result.get());
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

class PgProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(),
                                         "CREATE TABLE t (x int, b bytea)")
                    .ok());
    auto proxy = PgProxy::Start(db_->conninfo());
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    proxy_ = *std::move(proxy);
  }

  int64_t Rows() {
    auto rows = QueryInt(db_->conninfo(), "SELECT count(*) FROM t");
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : -1;
  }

  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<PgProxy> proxy_;
};

TEST_F(PgProxyTest, PassesQueriesAndPreparedStatements) {
  Conn conn = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  EXPECT_EQ(std::string(PQdb(conn.get())), db_->name());
  EXPECT_EQ(proxy_->connections_accepted(), 1);

  // Several statements in one simple query.
  Result multi(PQexec(conn.get(), "SELECT 1; SELECT 2"));
  ASSERT_TRUE(Ok(multi)) << PQerrorMessage(conn.get());
  EXPECT_STREQ(PQgetvalue(multi.get(), 0, 0), "2");

  // Binary parameters, among them 1 MiB with NUL bytes (many partial reads).
  const uint32_t x = htonl(42);
  std::string blob(1 << 20, '\0');
  for (size_t i = 0; i < blob.size(); i += 7) blob[i] = static_cast<char>(i);
  const char* values[] = {reinterpret_cast<const char*>(&x), blob.data()};
  const int lengths[] = {sizeof(x), static_cast<int>(blob.size())};
  const int formats[] = {1, 1};
  const Oid types[] = {23, 17};  // int4, bytea.
  Result inserted(PQexecParams(conn.get(), "INSERT INTO t VALUES ($1, $2)", 2,
                               types, values, lengths, formats, 1));
  ASSERT_TRUE(Ok(inserted)) << PQerrorMessage(conn.get());

  Result read(PQexecParams(conn.get(), "SELECT x, b FROM t", 0, nullptr,
                           nullptr, nullptr, nullptr, 1));
  ASSERT_TRUE(Ok(read)) << PQerrorMessage(conn.get());
  ASSERT_EQ(PQntuples(read.get()), 1);
  uint32_t got;
  std::memcpy(&got, PQgetvalue(read.get(), 0, 0), sizeof(got));
  EXPECT_EQ(ntohl(got), 42u);
  ASSERT_EQ(PQgetlength(read.get(), 0, 1), static_cast<int>(blob.size()));
  EXPECT_EQ(std::memcmp(PQgetvalue(read.get(), 0, 1), blob.data(), blob.size()),
            0);

  // A named prepared statement, executed twice.
  Result prepared(
      PQprepare(conn.get(), "plus", "SELECT $1::int + 1", 1, nullptr));
  ASSERT_TRUE(Ok(prepared)) << PQerrorMessage(conn.get());
  for (const char* v : {"1", "10"}) {
    const char* params[] = {v};
    Result sum(
        PQexecPrepared(conn.get(), "plus", 1, params, nullptr, nullptr, 0));
    ASSERT_TRUE(Ok(sum)) << PQerrorMessage(conn.get());
    EXPECT_EQ(std::stoi(PQgetvalue(sum.get(), 0, 0)), std::stoi(v) + 1);
  }
  EXPECT_EQ(proxy_->drops(), 0);
}

TEST_F(PgProxyTest, DroppedReplyStillCommits) {
  Conn conn = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  proxy_->DropReplyTo("INSERT INTO t");
  EXPECT_FALSE(proxy_->WaitDropped(absl::ZeroDuration()));

  // A statement that does not match passes.
  Result select(PQexec(conn.get(), "SELECT count(*) FROM t"));
  ASSERT_TRUE(Ok(select)) << PQerrorMessage(conn.get());

  Result insert(PQexec(conn.get(), "INSERT INTO t (x) VALUES (1)"));
  EXPECT_FALSE(Ok(insert));
  EXPECT_EQ(PQstatus(conn.get()), CONNECTION_BAD);
  EXPECT_TRUE(proxy_->WaitDropped(absl::Seconds(10)));
  EXPECT_EQ(proxy_->drops(), 1);
  EXPECT_EQ(Rows(), 1);

  // One-shot: the next matching statement, on a new connection, passes.
  Conn again = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(again.get()), CONNECTION_OK);
  Result second(PQexec(again.get(), "INSERT INTO t (x) VALUES (2)"));
  EXPECT_TRUE(Ok(second)) << PQerrorMessage(again.get());
  EXPECT_EQ(Rows(), 2);
  EXPECT_EQ(proxy_->drops(), 1);
}

TEST_F(PgProxyTest, MatchesPreparedStatementExecutedByName) {
  Conn conn = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  Result prepared(PQprepare(conn.get(), "ins",
                            "INSERT INTO t (x) VALUES ($1::int)", 1, nullptr));
  ASSERT_TRUE(Ok(prepared)) << PQerrorMessage(conn.get());
  const char* one[] = {"1"};
  Result first(PQexecPrepared(conn.get(), "ins", 1, one, nullptr, nullptr, 0));
  ASSERT_TRUE(Ok(first)) << PQerrorMessage(conn.get());

  // Armed after the Parse: only the Bind names the statement now.
  proxy_->DropReplyTo("INSERT INTO t");
  const char* two[] = {"2"};
  Result second(PQexecPrepared(conn.get(), "ins", 1, two, nullptr, nullptr, 0));
  EXPECT_FALSE(Ok(second));
  EXPECT_EQ(PQstatus(conn.get()), CONNECTION_BAD);
  EXPECT_TRUE(proxy_->WaitDropped(absl::Seconds(10)));
  EXPECT_EQ(Rows(), 2);
}

TEST_F(PgProxyTest, MatchesUnnamedStatement) {
  Conn conn = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  proxy_->DropReplyTo("INSERT INTO t");
  const char* one[] = {"1"};
  Result insert(PQexecParams(conn.get(), "INSERT INTO t (x) VALUES ($1::int)",
                             1, nullptr, one, nullptr, nullptr, 0));
  EXPECT_FALSE(Ok(insert));
  EXPECT_TRUE(proxy_->WaitDropped(absl::Seconds(10)));
  EXPECT_EQ(Rows(), 1);
}

TEST_F(PgProxyTest, CutAllAndRefuseNew) {
  Conn a = Connect(proxy_->conninfo());
  Conn b = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(a.get()), CONNECTION_OK);
  ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK);
  proxy_->CutAll();
  for (PGconn* conn : {a.get(), b.get()}) {
    Result r(PQexec(conn, "SELECT 1"));
    EXPECT_FALSE(Ok(r));
    EXPECT_EQ(PQstatus(conn), CONNECTION_BAD);
  }

  Conn c = Connect(proxy_->conninfo());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  EXPECT_EQ(proxy_->connections_accepted(), 3);

  proxy_->SetRefuseNew(true);
  Conn refused = Connect(proxy_->conninfo());
  EXPECT_EQ(PQstatus(refused.get()), CONNECTION_BAD);
  EXPECT_EQ(proxy_->connections_accepted(), 4);
  // Open connections are not affected.
  Result still(PQexec(c.get(), "SELECT 1"));
  EXPECT_TRUE(Ok(still)) << PQerrorMessage(c.get());

  proxy_->SetRefuseNew(false);
  Conn d = Connect(proxy_->conninfo());
  EXPECT_EQ(PQstatus(d.get()), CONNECTION_OK) << PQerrorMessage(d.get());
  EXPECT_EQ(proxy_->drops(), 0);
}

}  // namespace
}  // namespace timingwheel
