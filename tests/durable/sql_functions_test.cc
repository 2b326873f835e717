// Copyright 2026 The timingwheel Authors.
//
// The SQL producer functions (durable/sql/producer_functions.h) on a real
// PostgreSQL: the slot of an id is the library's, a task scheduled from SQL
// (a plain call, a trigger) runs in a scheduler, a rollback stores and
// wakes nothing, every input is checked with an error naming its field, the
// replace modes and outcomes are the C++ client's, and a replacement racing
// a first insert of the same id keeps its mode's rule (forced: the first
// insert is held uncommitted while the second waits on it).

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/client/request.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

// One libpq session; Run() answers a one-value statement's text, or the
// error's SQLSTATE and message.
class SqlSession {
 public:
  struct Answer {
    bool ok = false;
    std::string value;
    std::string sqlstate;
    std::string message;
  };

  explicit SqlSession(const std::string& conninfo)
      : conn_(PQconnectdb(conninfo.c_str())) {
    EXPECT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
  }
  ~SqlSession() { PQfinish(conn_); }

  Answer Run(const std::string& sql) {
    return Read(PQexec(conn_, sql.c_str()));
  }

  // Sends `sql` without waiting; Finish() reads its answer.
  void Send(const std::string& sql) {
    ASSERT_EQ(PQsendQuery(conn_, sql.c_str()), 1) << PQerrorMessage(conn_);
  }
  Answer Finish() {
    Answer answer;
    bool first = true;
    while (PGresult* r = PQgetResult(conn_)) {
      if (first)
        answer = Read(r);
      else
        PQclear(r);
      first = false;
    }
    return answer;
  }

 private:
  static Answer Read(PGresult* r) {
    Answer answer;
    const ExecStatusType status = PQresultStatus(r);
    answer.ok = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK;
    if (answer.ok && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)) {
      answer.value = PQgetvalue(r, 0, 0);
    }
    if (!answer.ok) {
      const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      const char* message = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
      answer.sqlstate = state ? state : "";
      answer.message = message ? message : "";
    }
    PQclear(r);
    return answer;
  }

  PGconn* conn_;
};

class SqlFunctionsTest : public DurableFixture {
 protected:
  void SetUp() override {
    DurableFixture::SetUp();
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 1;
    auto client = DurableClient::Create(options);  // Creates the schema.
    ASSERT_TRUE(client.ok()) << client.status();
    sql_ = std::make_unique<SqlSession>(db_->conninfo());
  }

  std::string Value(const std::string& sql) {
    SqlSession::Answer a = sql_->Run(sql);
    EXPECT_TRUE(a.ok) << sql << ": " << a.sqlstate << " " << a.message;
    return a.value;
  }

  // Seconds from now to the task's due time (-1 when there is no task).
  int64_t DueInSeconds(const std::string& id) {
    return Query(absl::StrCat(
        "SELECT coalesce((SELECT round((due_us - tw_now_us()) / 1e6) FROM "
        "tw_timer WHERE task_id = convert_to('",
        id, "', 'UTF8')), -1)"));
  }

  std::unique_ptr<SqlSession> sql_;
};

TEST_F(SqlFunctionsTest, SlotOfAnIdIsTheLibrarys) {
  std::mt19937 random(7);
  for (int i = 0; i < 200; ++i) {
    std::string id(1 + random() % 60, '\0');
    for (char& c : id) c = static_cast<char>(random() % 256);
    std::string hex;
    for (unsigned char c : id)
      absl::StrAppend(&hex, absl::Hex(c, absl::kZeroPad2));
    for (int slots : {1, 7, 1024, 65536, 2147483647}) {
      EXPECT_EQ(Value(absl::StrCat("SELECT tw_slot_for('\\x", hex, "', ", slots,
                                   ")")),
                absl::StrCat(durable_internal::SlotFor(id, slots)))
          << "id #" << i << " over " << slots << " slots";
    }
  }
}

TEST_F(SqlFunctionsTest, ScheduledFromSqlRunsAndARollbackStoresNothing) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  EXPECT_EQ(Value("BEGIN"), "");
  EXPECT_EQ(Value("SELECT tw_schedule_task_after('rolled-back', '0 s', "
                  "'never')"),
            "SCHEDULED");
  EXPECT_EQ(Value("ROLLBACK"), "");
  EXPECT_EQ(Value("BEGIN"), "");
  EXPECT_EQ(Value("SELECT tw_schedule_task_after('sql-1', '0 s', 'hello')"),
            "SCHEDULED");
  EXPECT_EQ(Value("SELECT tw_schedule_task('sql-2', now() + '50 ms', "
                  "'world', priority => 3)"),
            "SCHEDULED");
  EXPECT_EQ(Value("COMMIT"), "");
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
  std::map<std::string, std::string> ran;
  for (const auto& call : recorder_.calls()) {
    ran[call.task.id] = call.task.payload;
  }
  EXPECT_EQ(ran, (std::map<std::string, std::string>{{"sql-1", "hello"},
                                                     {"sql-2", "world"}}));
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE task_id = "
                  "'rolled-back'::bytea"),
            0);
}

TEST_F(SqlFunctionsTest, ATriggerSchedulesInTheWritersTransaction) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  Exec(R"sql(
    CREATE TABLE orders (id text PRIMARY KEY, total int);
    CREATE FUNCTION expire_order() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM tw_schedule_task_after('expire-' || NEW.id, interval '0 s',
                                     convert_to(NEW.id, 'UTF8'));
      RETURN NEW;
    END $$;
    CREATE TRIGGER orders_expire AFTER INSERT ON orders
      FOR EACH ROW EXECUTE FUNCTION expire_order();
  )sql");
  EXPECT_EQ(Value("BEGIN"), "");
  EXPECT_EQ(Value("INSERT INTO orders VALUES ('o-1', 5)"), "");
  EXPECT_EQ(Value("ROLLBACK"), "");
  EXPECT_EQ(Value("INSERT INTO orders VALUES ('o-2', 7)"), "");
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 1; }));
  EXPECT_EQ(recorder_.CountById(),
            (std::map<std::string, int>{{"expire-o-2", 1}}));
  EXPECT_EQ(recorder_.calls()[0].task.payload, "o-2");
}

TEST_F(SqlFunctionsTest, ScheduleIsIdempotentById) {
  const char* call =
      "SELECT tw_schedule_task('t', '2030-01-01 00:00:00+00', 'p')";
  EXPECT_EQ(Value(call), "SCHEDULED");
  EXPECT_EQ(Value(call), "EXISTS");
  SqlSession::Answer other =
      sql_->Run("SELECT tw_schedule_task('t', '2030-01-01 00:00:00+00', 'q')");
  EXPECT_FALSE(other.ok);
  EXPECT_EQ(other.sqlstate, "23505") << other.message;
  EXPECT_EQ(Value("SELECT tw_schedule_task_after('r', '1 hour', 'p')"),
            "SCHEDULED");
  EXPECT_EQ(Value("SELECT tw_schedule_task_after('r', '2 hours', 'p')"),
            "EXISTS");
  EXPECT_EQ(DueInSeconds("r"), 3600);
}

TEST_F(SqlFunctionsTest, EveryBadInputIsRefusedNamingItsField) {
  const std::string big_id(1025, 'x');
  const struct {
    std::string call;
    std::string field;
  } cases[] = {
      {"tw_schedule_task(NULL, now(), 'p')", "task_id"},
      {"tw_schedule_task('', now(), 'p')", "task_id"},
      {"tw_schedule_task('" + big_id + "', now(), 'p')", "task_id"},
      {"tw_schedule_task(E'\\x1btw-schedule:x', now(), 'p')", "task_id"},
      {"tw_schedule_task('a', NULL, 'p')", "due"},
      {"tw_schedule_task('a', 'infinity', 'p')", "due"},
      {"tw_schedule_task('a', '1969-12-31 23:59:59+00', 'p')", "due"},
      {"tw_schedule_task('a', '10000-01-01 00:00:00+00', 'p')", "due"},
      {"tw_schedule_task_after('a', NULL, 'p')", "delay"},
      {"tw_schedule_task_after('a', '8000 years', 'p')", "delay"},
      {"tw_schedule_task('a', now(), NULL)", "payload"},
      {"tw_schedule_task('a', now(), '')", "payload"},
      {"tw_schedule_task('a', now(), "
       "decode(repeat('00', 16777217), 'hex'))",
       "payload"},
      {"tw_schedule_task('a', now(), 'p', NULL)", "kind"},
      {"tw_schedule_task('a', now(), 'p', repeat('k', 129))", "kind"},
      {"tw_schedule_task('a', now(), 'p', E'tab\\there')", "kind"},
      {"tw_schedule_task('a', now(), 'p', 'nobody-runs-this')", "kind"},
      {"tw_schedule_task('a', now(), 'p', '', 32768)", "priority"},
      {"tw_schedule_task('a', now(), 'p', '', NULL)", "priority"},
      {"tw_schedule_or_replace('a', now(), 'p', 'SOONER')", "mode"},
      {"tw_schedule_or_replace('a', now(), 'p', NULL)", "mode"},
      {"tw_cancel_task(NULL)", "task_id"},
      {"tw_reschedule('', now())", "task_id"},
  };
  for (const auto& c : cases) {
    SqlSession::Answer a = sql_->Run("SELECT " + c.call);
    EXPECT_FALSE(a.ok) << c.call;
    EXPECT_EQ(a.sqlstate, "22023") << c.call << ": " << a.message;
    EXPECT_EQ(a.message.rfind("timingwheel: " + c.field, 0), 0u)
        << c.call << ": " << a.message;
  }
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer"), 0);
}

TEST_F(SqlFunctionsTest, ReplaceModesAndOutcomesAreTheClients) {
  const struct {
    const char* mode;
    int request_hours;
    const char* outcome;
    int due_hours;
  } cases[] = {
      {"REPLACE", 2, "REPLACED", 2},    {"REPLACE", 1, "REPLACED", 1},
      {"KEEP_EARLIER", 2, "KEPT", 1},   {"KEEP_EARLIER", 1, "REPLACED", 1},
      {"keep_later", 2, "REPLACED", 2}, {"KEEP_LATER", 1, "KEPT", 1},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string id = absl::StrCat("m", n++);
    // Stored due in 90 minutes; the request asks for 1 h or 2 h.
    EXPECT_EQ(Value(absl::StrCat("SELECT tw_schedule_or_replace_after('", id,
                                 "', '90 minutes', 'old', '", c.mode, "')")),
              "SCHEDULED");
    EXPECT_EQ(
        Value(absl::StrCat("SELECT tw_schedule_or_replace_after('", id, "', '",
                           c.request_hours, " hours', 'new', '", c.mode, "')")),
        c.outcome)
        << c.mode << " " << c.request_hours;
    const int64_t due = DueInSeconds(id);
    EXPECT_EQ(due, std::string(c.outcome) == "KEPT" ? 5400 : c.due_hours * 3600)
        << c.mode << " " << c.request_hours;
  }
  // Reschedule: moves a waiting task, keeps its kind and priority, never
  // creates one.
  EXPECT_EQ(Value("SELECT tw_reschedule_after('m0', '3 hours')"), "REPLACED");
  EXPECT_EQ(DueInSeconds("m0"), 3 * 3600);
  EXPECT_EQ(Value("SELECT tw_reschedule_after('nobody', '3 hours')"),
            "NOT_FOUND");
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE task_id = "
                  "'nobody'::bytea"),
            0);
  EXPECT_EQ(Value("SELECT tw_cancel_task('m0')"), "CANCELLED");
  EXPECT_EQ(Value("SELECT tw_cancel_task('m0')"), "NOT_FOUND");
}

TEST_F(SqlFunctionsTest, RunningAndFinishedTasksAnswerAsTheClient) {
  Gate gate;
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "run") gate.Wait();
    return absl::OkStatus();
  });
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  EXPECT_EQ(Value("SELECT tw_schedule_task_after('done', '0 s', 'p')"),
            "SCHEDULED");
  ASSERT_TRUE(WaitFor([&] {
    return Query(
               "SELECT count(*) FROM tw_timer WHERE task_id = 'done'::bytea"
               " AND state = 3") == 1;
  }));
  EXPECT_EQ(Value("SELECT tw_schedule_task_after('run', '0 s', 'p')"),
            "SCHEDULED");
  ASSERT_TRUE(WaitFor([&] {
    return Query("SELECT count(*) FROM tw_timer WHERE state = 2") == 1;
  }));
  EXPECT_EQ(Value("SELECT tw_schedule_or_replace_after('run', '1 hour', "
                  "'q')"),
            "ALREADY_RUNNING");
  EXPECT_EQ(Value("SELECT tw_reschedule_after('run', '1 hour')"),
            "ALREADY_RUNNING");
  EXPECT_EQ(Value("SELECT tw_cancel_task('run')"), "STOP_REQUESTED");
  gate.Open();
  EXPECT_EQ(Value("SELECT tw_cancel_task('done')"), "FINISHED");
  EXPECT_EQ(Value("SELECT tw_reschedule_after('done', '1 hour')"), "FINISHED");
  // A finished task's id starts afresh when scheduled or replaced again.
  EXPECT_EQ(Value("SELECT tw_schedule_or_replace_after('done', '1 hour', "
                  "'again')"),
            "SCHEDULED");
  EXPECT_EQ(Query("SELECT attempt FROM tw_timer WHERE task_id = 'done'::bytea"
                  " AND state < 2"),
            0);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE task_id = "
                  "'run'::bytea"),
            0);
}

// The first call's insert is written and not committed; the second call
// starts then, waits on that row, and decides against it once committed.
TEST_F(SqlFunctionsTest, ReplaceRacingAFirstInsertKeepsItsModesRule) {
  const struct {
    const char* mode;
    const char* second_outcome;
    int due_hours;
  } cases[] = {{"KEEP_LATER", "REPLACED", 2},
               {"KEEP_EARLIER", "KEPT", 1},
               {"REPLACE", "REPLACED", 2}};
  int n = 0;
  for (const auto& c : cases) {
    const std::string id = absl::StrCat("race", n++);
    SqlSession first(db_->conninfo());
    SqlSession second(db_->conninfo());
    ASSERT_TRUE(first.Run("BEGIN").ok);
    EXPECT_EQ(first
                  .Run(absl::StrCat("SELECT tw_schedule_or_replace_after('", id,
                                    "', '1 hour', 'first', '", c.mode, "')"))
                  .value,
              "SCHEDULED");
    second.Send(absl::StrCat("SELECT tw_schedule_or_replace_after('", id,
                             "', '2 hours', 'second', '", c.mode, "')"));
    EXPECT_TRUE(WaitFor([&] {
      return Query(
                 "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                 "current_database() AND wait_event = 'transactionid'") == 1;
    })) << "the second call never waited on the first's row";
    ASSERT_TRUE(first.Run("COMMIT").ok);
    SqlSession::Answer answer = second.Finish();
    EXPECT_TRUE(answer.ok) << answer.message;
    EXPECT_EQ(answer.value, c.second_outcome) << c.mode;
    EXPECT_EQ(DueInSeconds(id), c.due_hours * 3600) << c.mode;
  }
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
