// Copyright 2026 The timingwheel Authors.
//
// twctl pause-schedule, resume-schedule, delete-schedule end to end: the
// binary run against a real PostgreSQL store whose schedules a
// DurableClient created (no scheduler runs, so the occurrences it writes
// stay PENDING where the test can count them).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/durable_client.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/twctl_runner.h"

namespace timingwheel {
namespace {

using durable_test::Describe;
using durable_test::Ran;
using durable_test::Twctl;
using durable_testing::TaskMatch;

constexpr char kEndAdminSql[] =
    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
    "WHERE application_name = 'timingwheel-admin' "
    "AND datname = current_database()";
constexpr char kAdminSessionsSql[] =
    "SELECT count(*) FROM pg_stat_activity "
    "WHERE application_name = 'timingwheel-admin' "
    "AND datname = current_database()";

class TwctlSchedulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = durable_testing::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    Ran migrated = Db({"migrate", "--slot-count", "8"});
    ASSERT_EQ(migrated.code, 0) << Describe(migrated);
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 8;
    auto client = DurableClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  Ran Db(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_->conninfo()});
    return Twctl(args);
  }

  // The stored occurrences of schedule `name`, or -1 (a failure).
  int64_t Occurrences(const std::string& name) {
    auto n = durable_testing::StoreInspector(db_->conninfo())
                 .CountTasks(TaskMatch().IdPrefix(
                     durable_internal::OccurrenceRange(name).first));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  std::unique_ptr<durable_testing::TestDatabase> db_;
  std::unique_ptr<DurableClient> client_;
};

TEST_F(TwctlSchedulesTest, PauseResumeAndDeleteASchedule) {
  // An occurrence every hour from an hour ahead: one is written, none runs.
  RecurringSchedule hourly;
  hourly.name = "hourly";
  hourly.every = absl::Hours(1);
  hourly.anchor =
      absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) + 3600);
  hourly.payload = "h";
  ASSERT_TRUE(client_->CreateSchedule(hourly).ok());
  RecurringSchedule other = hourly;
  other.name = "other";
  ASSERT_TRUE(client_->CreateSchedule(other).ok());
  ASSERT_EQ(Occurrences("hourly"), 1);

  Ran paused = Db({"pause-schedule", "hourly"});
  ASSERT_EQ(paused.code, 0) << Describe(paused);
  EXPECT_NE(paused.out.find("hourly: paused"), std::string::npos) << paused.out;
  EXPECT_EQ(Occurrences("hourly"), 0) << "its waiting occurrence is deleted";
  EXPECT_EQ(Occurrences("other"), 1) << "another schedule is untouched";
  auto info = client_->GetSchedule("hourly");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->paused);

  Ran resumed = Db({"resume-schedule", "hourly", "--json"});
  ASSERT_EQ(resumed.code, 0) << Describe(resumed);
  EXPECT_EQ(resumed.out,
            "{\"name\":\"hourly\",\"name_hex\":\"686f75726c79\",\"outcome\":"
            "\"done\",\"message\":"
            "\"resumed\"}\n");
  info = client_->GetSchedule("hourly");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->paused);
  EXPECT_EQ(Occurrences("hourly"), 1) << "the next occurrence is written";

  Ran deleted = Db({"delete-schedule", "hourly"});
  ASSERT_EQ(deleted.code, 0) << Describe(deleted);
  EXPECT_TRUE(absl::IsNotFound(client_->GetSchedule("hourly").status()));
  EXPECT_EQ(Occurrences("hourly"), 0);
  EXPECT_EQ(Occurrences("other"), 1);

  // Unknown names exit 3 (not found), for each of the three; a name no
  // schedule can have is a usage error (exit 1), before any statement.
  for (const char* command :
       {"pause-schedule", "resume-schedule", "delete-schedule"}) {
    Ran missing = Db({command, "hourly"});
    EXPECT_EQ(missing.code, 3) << command << "\n" << Describe(missing);
    EXPECT_NE(missing.err.find("no schedule with this name"), std::string::npos)
        << command << "\n"
        << missing.err;
    Ran bad = Db({command, std::string(kMaxScheduleNameBytes + 1, 'x')});
    EXPECT_EQ(bad.code, 1) << command << "\n" << Describe(bad);
    EXPECT_NE(bad.err.find("exceeds the limit"), std::string::npos) << bad.err;
  }
  Ran json = Db({"delete-schedule", "hourly", "--json"});
  EXPECT_EQ(json.code, 3) << Describe(json);
  EXPECT_EQ(json.out,
            "{\"name\":\"hourly\",\"name_hex\":\"686f75726c79\",\"outcome\":"
            "\"not_found\",\"message\":"
            "\"no schedule with this name\"}\n");
}

TEST_F(TwctlSchedulesTest, ResumeWritesTheRunsMissedAsTheCatchUpPolicySays) {
  // Every 100 ms from 10 s ago, running the newest missed run once and no
  // two at a time: paused, then resumed, it writes one occurrence, not a
  // hundred (those before the creation were never due). Which one depends
  // on how long the calls took (schedule_plan.h): the newest occurrence
  // missed since the creation, due already; or, when none came due before
  // the resume, the first one after the creation, which the pause deleted,
  // written again and due at its instant (a resume never runs one early).
  RecurringSchedule often;
  often.name = "often";
  often.every = absl::Milliseconds(100);
  // Whole milliseconds, as stored (microseconds), so that the occurrences
  // are whole multiples of `every` from it.
  often.anchor = absl::FromUnixMillis(absl::ToUnixMillis(absl::Now()) - 10000);
  often.payload = "o";
  often.policy.catch_up = CatchUp::kRunOnce;
  often.policy.overlap = Overlap::kSkipWhileRunning;
  ASSERT_TRUE(client_->CreateSchedule(often).ok());
  auto info = client_->GetSchedule("often");
  ASSERT_TRUE(info.ok()) << info.status();
  const absl::Time first = info->next_run;  // The first after the creation.
  Ran paused = Db({"pause-schedule", "often"});
  ASSERT_EQ(paused.code, 0) << Describe(paused);
  ASSERT_EQ(Occurrences("often"), 0);
  const absl::Time before_resume = absl::Now();
  Ran resumed = Db({"resume-schedule", "often"});
  const absl::Time after_resume = absl::Now();
  ASSERT_EQ(resumed.code, 0) << Describe(resumed);
  EXPECT_EQ(Occurrences("often"), 1);
  info = client_->GetSchedule("often");
  ASSERT_TRUE(info.ok()) << info.status();
  const absl::Time next = info->next_run;
  EXPECT_EQ((next - often.anchor) % often.every, absl::ZeroDuration())
      << next << " is not an occurrence";
  EXPECT_GE(next, first) << "an occurrence before the creation";
  EXPECT_GT(next, before_resume - often.every) << "not the newest missed";
  if (next > after_resume) {
    EXPECT_EQ(next, first) << "not due although a run was missed";
  }
  if (first <= before_resume) {
    EXPECT_LE(next, after_resume) << "the missed run written is not due";
  }
}

// A resume whose schedule's kind is no longer registered (the occurrence's
// insert answers NotFound "unknown task kind") is refused, exit 4, and the
// schedule stays paused; it is not "no schedule with this name" (exit 3).
TEST_F(TwctlSchedulesTest, AResumeWhoseKindIsGoneIsRefusedAndStaysPaused) {
  ASSERT_TRUE(
      durable_testing::ExecSql(db_->conninfo(),
                               "INSERT INTO tw_kind VALUES ('mail', 'n', 0)")
          .ok());
  RecurringSchedule s;
  s.name = "mailer";
  s.kind = "mail";
  s.every = absl::Hours(1);
  s.anchor = absl::Now() - absl::Minutes(1);
  s.payload = "m";
  ASSERT_TRUE(client_->CreateSchedule(s).ok());
  Ran paused = Db({"pause-schedule", "mailer"});
  ASSERT_EQ(paused.code, 0) << Describe(paused);
  // The kind is forgotten meanwhile (no scheduler registered it lately).
  ASSERT_TRUE(
      durable_testing::ExecSql(db_->conninfo(), "DELETE FROM tw_kind").ok());
  Ran resumed = Db({"resume-schedule", "mailer"});
  auto info = client_->GetSchedule("mailer");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->paused) << "the resume rolled back";
  EXPECT_EQ(resumed.code, 4) << Describe(resumed);
  EXPECT_NE(resumed.err.find("cannot resume"), std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("schedule \"mailer\""), std::string::npos)
      << "the error names the schedule: " << resumed.err;
  // The schedules list shows each one's kind.
  Ran listed = Db({"schedules"});
  EXPECT_NE(listed.out.find("KIND"), std::string::npos) << listed.out;
  Ran json = Db({"schedules", "--json"});
  EXPECT_NE(json.out.find("\"kind\":\"mail\""), std::string::npos) << json.out;
  EXPECT_EQ(Occurrences("mailer"), 0);
}

// A long-lived AdminStore (the dashboard's) whose idle connection the
// server ended reconnects before a schedule write, as before a task write
// (Cancel): nothing was sent, so nothing "may have committed".
TEST_F(TwctlSchedulesTest, AWriteAfterTheIdleConnectionWasEndedReconnects) {
  RecurringSchedule s;
  s.name = "idle";
  s.every = absl::Hours(1);
  s.anchor = absl::Now() + absl::Hours(1);
  s.payload = "i";
  ASSERT_TRUE(client_->CreateSchedule(s).ok());
  auto admin = AdminStore::Connect(db_->conninfo());
  ASSERT_TRUE(admin.ok()) << admin.status();
  // Ends the admin connection and waits until the server has.
  const auto end_admin_session = [&] {
    ASSERT_TRUE(durable_testing::QueryInt(db_->conninfo(), kEndAdminSql).ok());
    ASSERT_TRUE(durable_test::WaitFor([&] {
      auto left = durable_testing::QueryInt(db_->conninfo(), kAdminSessionsSql);
      return left.ok() && *left == 0;
    }));
  };

  // Cancel (RunWrite): schema checked, the connection ended while idle.
  ASSERT_TRUE((*admin)->Schedules().ok());
  end_admin_session();
  auto cancelled = (*admin)->Cancel("no-such-task");
  EXPECT_TRUE(cancelled.ok()) << "Cancel: " << cancelled.status();

  // Pause (Writing): the same.
  ASSERT_TRUE((*admin)->Schedules().ok());
  end_admin_session();
  absl::Status paused = (*admin)->PauseSchedule("idle");
  EXPECT_TRUE(paused.ok()) << paused;
  auto info = client_->GetSchedule("idle");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->paused);
}

}  // namespace
}  // namespace timingwheel
