// Copyright 2026 The timingwheel Authors.
//
// twctl end to end: the binary (//tools/twctl) run as a subprocess against a
// real PostgreSQL (a store a DurableScheduler runs), its stdout, --json and
// exit codes; and the message for an unreachable database, which names the host
// and database but never the password.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/migrations.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/twctl_runner.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace {

using durable_test::Describe;
using durable_test::Ran;
using durable_test::Twctl;
using durable_test::WaitFor;
using durable_testing::AttemptRow;
using durable_testing::TaskMatch;

class TwctlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = durable_testing::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  void TearDown() override {
    if (scheduler_ != nullptr) scheduler_->Shutdown();
  }

  Ran Db(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_->conninfo()});
    return Twctl(args);
  }

  durable_testing::StoreInspector Store() const {
    return durable_testing::StoreInspector(db_->conninfo());
  }

  // The number of tasks `match` covers, or -1 (a failure) on error.
  int64_t Count(const TaskMatch& match) {
    auto n = Store().CountTasks(match);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  // Fails the test on an error, and returns -1 for it.
  static int64_t Value(const absl::StatusOr<int64_t>& n) {
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  // twctl creates the store; a scheduler of one slot runs it: "later"
  // (PENDING, beyond the horizon), "bin\0id" (PENDING), "fails" (FAILED),
  // "works" (SUCCESS).
  void StartStore() {
    Ran migrated = Db({"migrate", "--slot-count", "1"});
    ASSERT_EQ(migrated.code, 0) << Describe(migrated);
    EXPECT_NE(migrated.out.find(absl::StrCat("migrated from version 0 to ",
                                             durable_internal::kSchemaVersion)),
              std::string::npos)
        << migrated.out;
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.node_id = "twctl-node";
    options.slot_count = 1;
    options.lease_ttl = absl::Seconds(1);
    options.horizon = absl::Minutes(30);
    options.retry.max_attempts = 1;
    options.executor = &pool_;
    recorder_.SetResult([this](const DurableTask& task) {
      if (task.id == "fails" && !heal_)
        return absl::InternalError("no \"luck\"");
      return absl::OkStatus();
    });
    options.handler = recorder_.Handler();
    auto scheduler = DurableScheduler::Create(options);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status();
    scheduler_ = *std::move(scheduler);
    ASSERT_TRUE(scheduler_->Schedule("later", absl::Hours(2), "l").ok());
    ASSERT_TRUE(
        scheduler_->Schedule(std::string("bin\0id", 6), absl::Hours(3), "b")
            .ok());
    ASSERT_TRUE(scheduler_->Schedule("fails", absl::ZeroDuration(), "f").ok());
    ASSERT_TRUE(scheduler_->Schedule("works", absl::ZeroDuration(), "w").ok());
    ASSERT_TRUE(WaitFor([&] {
      return Count(TaskMatch().StateAtLeast(TaskState::kSuccess)) == 2;
    }));
  }

  std::unique_ptr<durable_testing::TestDatabase> db_;
  timingwheel::testing::PoolExecutor pool_{2};
  durable_test::Recorder recorder_;
  std::atomic<bool> heal_{false};
  std::unique_ptr<DurableScheduler> scheduler_;
};

TEST_F(TwctlTest, StatusTableAndJson) {
  StartStore();
  if (HasFatalFailure()) return;
  Ran text = Db({"status"});
  ASSERT_EQ(text.code, 0) << Describe(text);
  EXPECT_NE(text.out.find("PENDING 2  SCHEDULED 0  RUNNING 0  SUCCESS 1  "
                          "FAILED 1"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("twctl-node"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(absl::StrCat(
                "version ", durable_internal::kSchemaVersion, ", 1 slots")),
            std::string::npos);
  Ran json = Db({"status", "--json"});
  ASSERT_EQ(json.code, 0) << Describe(json);
  EXPECT_TRUE(absl::StartsWith(json.out, "{\"target\":")) << json.out;
  EXPECT_NE(json.out.find("\"counts\":{\"PENDING\":2,\"SCHEDULED\":0,"
                          "\"RUNNING\":0,\"SUCCESS\":1,\"FAILED\":1}"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"node_id\":\"twctl-node\""), std::string::npos);
  EXPECT_NE(json.out.find("\"next_due\":{\"due\":"), std::string::npos);
  EXPECT_NE(json.out.find("\"lease_valid\":true"), std::string::npos);
  EXPECT_NE(text.out.find("task table"), std::string::npos) << text.out;
  EXPECT_NE(json.out.find("\"task_table\":{\"bytes\":"), std::string::npos)
      << json.out;
  // What is wrong first: the FAILED task makes its kind a failing one; the
  // live node is stale only against a TTL shorter than its heartbeats' age.
  EXPECT_EQ(text.out.find("PROBLEM "), 0u) << text.out;
  EXPECT_NE(text.out.find("failing kind  -: 1 FAILED"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("stale node"), std::string::npos) << text.out;
  EXPECT_NE(json.out.find("\"problems\":{\"healthy\":false,"),
            std::string::npos)
      << json.out;
  Ran stale = Db({"status", "--lease-ttl", "1us"});
  EXPECT_NE(stale.out.find("stale node    twctl-node: last heartbeat "),
            std::string::npos)
      << stale.out;
  EXPECT_EQ(Db({"status", "--lease-ttl", "soon"}).code, 1);
}

TEST_F(TwctlTest, ListAndShowBytesIds) {
  StartStore();
  if (HasFatalFailure()) return;
  Ran failed = Db({"list", "--state", "failed", "--json"});
  ASSERT_EQ(failed.code, 0) << Describe(failed);
  EXPECT_EQ(failed.out,
            "{\"tasks\":[{\"id\":\"fails\",\"id_hex\":\"6661696c73\","
            "\"state\":\"FAILED\",\"due\":\"" +
                failed.out.substr(failed.out.find("\"due\":\"") + 7, 27) +
                "\",\"attempt\":1,\"slot\":0,\"payload_bytes\":1,"
                "\"kind\":\"\",\"priority\":0}],"
                "\"more\":false,\"next_after\":null}\n");
  Ran bin = Db({"list", "--prefix", "bin\\x00"});
  ASSERT_EQ(bin.code, 0) << Describe(bin);
  EXPECT_NE(bin.out.find("bin\\x00id  PENDING"), std::string::npos) << bin.out;
  EXPECT_EQ(bin.out.find("later"), std::string::npos);
  Ran page = Db({"list", "--limit", "1", "--due-after", "+1h"});
  ASSERT_EQ(page.code, 0) << Describe(page);
  EXPECT_NE(page.out.find("more: next page with --after 'bin\\x00id'"),
            std::string::npos)
      << page.out;
  page = Db(
      {"list", "--limit", "1", "--due-after", "+1h", "--after", "bin\\x00id"});
  EXPECT_NE(page.out.find("later"), std::string::npos) << page.out;
  EXPECT_EQ(page.out.find("more:"), std::string::npos) << page.out;

  Ran shown = Db({"show", "bin\\x00id", "--json"});
  ASSERT_EQ(shown.code, 0) << Describe(shown);
  EXPECT_NE(shown.out.find("\"id\":\"bin\\\\x00id\",\"id_hex\":"
                           "\"62696e006964\""),
            std::string::npos)
      << shown.out;
  Ran error = Db({"show", "fails"});
  ASSERT_EQ(error.code, 0) << Describe(error);
  EXPECT_NE(error.out.find("no \"luck\""), std::string::npos) << error.out;
  EXPECT_NE(error.out.find("owner twctl-node"), std::string::npos);

  Ran missing = Db({"show", "nope"});
  EXPECT_EQ(missing.code, 3) << Describe(missing);
  EXPECT_NE(missing.err.find("no task with id nope"), std::string::npos);
  missing = Db({"--json", "show", "nope"});
  EXPECT_EQ(missing.code, 3);
  EXPECT_TRUE(absl::StartsWith(missing.out, "{\"error\":{\"code\":3,"))
      << missing.out;
  Ran bad = Db({"show", "bad\\q"});
  EXPECT_EQ(bad.code, 1) << Describe(bad);
  Ran bad_state = Db({"list", "--state", "DONE"});
  EXPECT_EQ(bad_state.code, 1) << Describe(bad_state);
}

// Kinds and the attempt history: the rows a kind-aware scheduler writes,
// written here through the StoreInspector (a kind, a kind and priority, two
// attempts).
TEST_F(TwctlTest, KindsAndAttemptHistory) {
  StartStore();
  if (HasFatalFailure()) return;
  const durable_testing::StoreInspector store = Store();
  ASSERT_TRUE(store.SetKindAndPriority("fails", "email", 3).ok());
  ASSERT_TRUE(store.RegisterKind("email", "twctl-node").ok());
  // The scheduler recorded its own attempts: this test shows known ones.
  ASSERT_TRUE(store.DeleteAttempts().ok());
  ASSERT_TRUE(
      store
          .InsertAttempt(
              "fails",
              AttemptRow{1, 1, "node-a", 1000000, 1250000,
                         absl::StrCat("first ", std::string(100, 'x'), " END")})
          .ok());
  ASSERT_TRUE(store
                  .InsertAttempt("fails", AttemptRow{2, 2, "node-b", 3000000,
                                                     3500000, "two\nlines"})
                  .ok());

  Ran list = Db({"list", "--kind", "email"});
  ASSERT_EQ(list.code, 0) << Describe(list);
  EXPECT_NE(list.out.find("KIND"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("fails  FAILED  email"), std::string::npos)
      << list.out;
  EXPECT_EQ(list.out.find("works"), std::string::npos) << list.out;
  Ran all = Db({"list", "--state", "success"});
  ASSERT_EQ(all.code, 0) << Describe(all);
  EXPECT_NE(all.out.find("works  SUCCESS  -"), std::string::npos) << all.out;
  Ran by_default = Db({"list", "--kind="});
  ASSERT_EQ(by_default.code, 0) << Describe(by_default);
  EXPECT_NE(by_default.out.find("works"), std::string::npos);
  EXPECT_EQ(by_default.out.find("fails"), std::string::npos);
  Ran json = Db({"list", "--kind", "email", "--json"});
  ASSERT_EQ(json.code, 0) << Describe(json);
  EXPECT_NE(json.out.find("\"kind\":\"email\",\"priority\":3"),
            std::string::npos)
      << json.out;

  // Bad kinds: exit 1, a message that says why, nothing read or changed.
  for (const std::string& bad :
       {std::string(129, 'k'), std::string("a\\x01b"), std::string("a\\xffb"),
        std::string("bad\\q")}) {
    Ran refused = Db({"list", "--kind", bad});
    EXPECT_EQ(refused.code, 1) << Describe(refused);
    EXPECT_TRUE(absl::StartsWith(refused.err, "twctl: --kind: "))
        << refused.err;
    EXPECT_TRUE(refused.out.empty()) << refused.out;
  }
  EXPECT_NE(Db({"list", "--kind", std::string(129, 'k')})
                .err.find("at most 128 bytes"),
            std::string::npos);
  EXPECT_NE(Db({"list", "--kind", "a\\x01b"}).err.find("control characters"),
            std::string::npos);

  Ran shown = Db({"show", "fails"});
  ASSERT_EQ(shown.code, 0) << Describe(shown);
  EXPECT_NE(shown.out.find("kind        email"), std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("priority    3"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("attempts: 2\n"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("ATTEMPT  OUTCOME  NODE    STARTED"),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("RETRIED  node-a  1970-01-01T00:00:01.000000Z  "
                           "1970-01-01T00:00:01.250000Z  250ms     first xxx"),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("xxx..."), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find(" END"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("FAILED   node-b"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("two\\x0alines"), std::string::npos) << shown.out;
  Ran shown_json = Db({"show", "fails", "--json"});
  ASSERT_EQ(shown_json.code, 0) << Describe(shown_json);
  EXPECT_NE(shown_json.out.find("\"kind\":\"email\",\"priority\":3"),
            std::string::npos)
      << shown_json.out;
  EXPECT_NE(shown_json.out.find("\"attempts_total\":2,\"attempts\":[{"
                                "\"attempt\":1,\"outcome\":\"RETRIED\","
                                "\"node_id\":\"node-a\""),
            std::string::npos)
      << shown_json.out;
  EXPECT_NE(shown_json.out.find(" END\""), std::string::npos)
      << shown_json.out;  // Whole in JSON.
  EXPECT_NE(shown_json.out.find("\"duration_ms\":500"), std::string::npos);
  Ran works = Db({"show", "works"});
  EXPECT_NE(works.out.find("attempts: none recorded"), std::string::npos)
      << works.out;

  Ran status = Db({"status"});
  ASSERT_EQ(status.code, 0) << Describe(status);
  EXPECT_NE(status.out.find("KIND   REGISTERED BY"), std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("email  twctl-node"), std::string::npos)
      << status.out;
  Ran status_json = Db({"status", "--json"});
  // The default kind first (whether or not a scheduler registers it),
  // with its two PENDING tasks.
  EXPECT_NE(status_json.out.find("\"kinds\":[{\"kind\":\"\",\"registered\":"),
            std::string::npos)
      << status_json.out;
  EXPECT_NE(status_json.out.find("\"unfinished\":2,\"counts\":{\"PENDING\":2,"),
            std::string::npos)
      << status_json.out;
  EXPECT_NE(status_json.out.find("{\"kind\":\"email\",\"registered\":true,"
                                 "\"node_id\":\"twctl-node\""),
            std::string::npos)
      << status_json.out;

  Ran help = Twctl({"help", "list"});
  EXPECT_EQ(help.code, 0) << Describe(help);
  EXPECT_NE(help.out.find("--kind K"), std::string::npos) << help.out;
}

TEST_F(TwctlTest, WritesAnswerWithExitCodes) {
  StartStore();
  if (HasFatalFailure()) return;
  Ran refused = Db({"cancel", "fails"});
  EXPECT_EQ(refused.code, 4) << Describe(refused);
  EXPECT_NE(refused.err.find("cannot cancel a FAILED task"), std::string::npos);
  Ran cancelled = Db({"cancel", "--json", "later"});
  EXPECT_EQ(cancelled.code, 0) << Describe(cancelled);
  EXPECT_NE(cancelled.out.find("\"outcome\":\"done\",\"before\":\"PENDING\","
                               "\"after\":null"),
            std::string::npos)
      << cancelled.out;
  EXPECT_EQ(Count(TaskMatch().Id("later")), 0);
  EXPECT_EQ(Db({"cancel", "later"}).code, 3);

  Ran wrong = Db({"retry", "works"});
  EXPECT_EQ(wrong.code, 4) << Describe(wrong);
  heal_ = true;
  Ran retried = Db({"retry", "fails"});
  ASSERT_EQ(retried.code, 0) << Describe(retried);
  EXPECT_NE(retried.out.find("fails: retried (was FAILED)"), std::string::npos)
      << retried.out;
  EXPECT_TRUE(WaitFor([&] {
    return Count(TaskMatch().Id("fails").State(TaskState::kSuccess)) == 1;
  }));

  Ran moved = Db({"reschedule", "bin\\x00id", "--in", "5h", "--json"});
  ASSERT_EQ(moved.code, 0) << Describe(moved);
  EXPECT_NE(moved.out.find("\"after\":\"PENDING\""), std::string::npos);
  auto bin = Store().Task(std::string("bin\0id", 6));
  ASSERT_TRUE(bin.ok()) << bin.status();
  EXPECT_GT(bin->due_us - bin->now_us, int64_t{4} * 3600 * 1000000);
  Ran at = Db({"reschedule", "bin\\x00id", "--at", "2030-01-01T00:00:00Z"});
  ASSERT_EQ(at.code, 0) << Describe(at);
  EXPECT_NE(at.out.find("due 2030-01-01T00:00:00"), std::string::npos)
      << at.out;
  EXPECT_EQ(Db({"reschedule", "works", "--in", "1m"}).code, 4);
  EXPECT_EQ(Db({"reschedule", "works"}).code, 1);
  EXPECT_EQ(Db({"reschedule", "works", "--in", "1m", "--at", "now"}).code, 1);
  EXPECT_EQ(Db({"reschedule", "works", "--in", "soon"}).code, 1);
}

TEST_F(TwctlTest, DeadLettersAreDiscardedOrRetriedTogether) {
  StartStore();
  if (HasFatalFailure()) return;
  Ran refused = Db({"discard", "works"});
  EXPECT_EQ(refused.code, 4) << Describe(refused);
  EXPECT_NE(refused.err.find("only a FAILED task can be discarded"),
            std::string::npos)
      << refused.err;
  Ran none = Db({"retry-failed", "--prefix", "nothing-", "--json"});
  EXPECT_EQ(none.code, 0) << Describe(none);
  EXPECT_NE(none.out.find("{\"retried\":0}"), std::string::npos) << none.out;
  // "fails" is of the default kind: --kind email retries nothing, a bad
  // kind exits 1 and changes nothing.
  Ran other_kind = Db({"retry-failed", "--kind", "email", "--json"});
  EXPECT_EQ(other_kind.code, 0) << Describe(other_kind);
  EXPECT_NE(other_kind.out.find("{\"retried\":0}"), std::string::npos)
      << other_kind.out;
  Ran bad_kind = Db({"retry-failed", "--kind", "a\\x07"});
  EXPECT_EQ(bad_kind.code, 1) << Describe(bad_kind);
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kFailed)), 1);
  heal_ = true;
  Ran all = Db({"retry-failed", "--kind="});
  ASSERT_EQ(all.code, 0) << Describe(all);
  EXPECT_NE(all.out.find("retried 1 FAILED task"), std::string::npos)
      << all.out;
  EXPECT_TRUE(WaitFor([&] {
    return Count(TaskMatch().Id("fails").State(TaskState::kSuccess)) == 1;
  }));
  heal_ = false;
  ASSERT_TRUE(scheduler_->Schedule("fails2", absl::ZeroDuration(), "f").ok());
  // "fails2" succeeds (only "fails" fails): make a FAILED row by hand.
  ASSERT_TRUE(WaitFor([&] {
    return Count(TaskMatch().Id("fails2").State(TaskState::kSuccess)) == 1;
  }));
  ASSERT_TRUE(Store().ForceState("fails2", TaskState::kFailed).ok());
  Ran discarded = Db({"discard", "fails2", "--json"});
  EXPECT_EQ(discarded.code, 0) << Describe(discarded);
  EXPECT_EQ(Count(TaskMatch().Id("fails2")), 0);
  EXPECT_EQ(Db({"discard", "fails2"}).code, 3);
}

TEST_F(TwctlTest, SchedulesListsTheRecurringSchedules) {
  StartStore();
  if (HasFatalFailure()) return;
  Ran empty = Db({"schedules", "--json"});
  EXPECT_EQ(empty.code, 0) << Describe(empty);
  EXPECT_NE(empty.out.find("{\"schedules\":[]}"), std::string::npos)
      << empty.out;
  RecurringSchedule nightly;
  nightly.name = "nightly-report";
  nightly.cron = "0 3 * * *";
  nightly.time_zone = "Europe/London";
  nightly.payload = "r";
  ASSERT_TRUE(scheduler_->CreateSchedule(nightly).ok());
  RecurringSchedule beat;
  beat.name = "beat";
  beat.every = absl::Hours(1);
  beat.payload = "b";
  ASSERT_TRUE(scheduler_->CreateSchedule(beat).ok());
  ASSERT_TRUE(scheduler_->PauseSchedule("beat").ok());
  Ran table = Db({"schedules"});
  ASSERT_EQ(table.code, 0) << Describe(table);
  EXPECT_NE(table.out.find("nightly-report"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Europe/London"), std::string::npos) << table.out;
  // In December London is on UTC: the next run is at 03:00 UTC.
  EXPECT_NE(table.out.find("T03:00:00"), std::string::npos) << table.out;
  Ran json = Db({"schedules", "--json"});
  ASSERT_EQ(json.code, 0) << Describe(json);
  EXPECT_NE(json.out.find("\"name\":\"beat\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"paused\":true,\"next_run\":null"),
            std::string::npos)
      << json.out;

  // A schedule writing occurrences ahead does not fill `twctl list`: they
  // are listed when asked for, alone or with the rest.
  for (const char* id : {"\x1btw-schedule:5:often@60000000",
                         "\x1btw-schedule:5:often@120000000", "plain"}) {
    durable_testing::InsertedTask task;
    task.id = id;
    task.due_in_us = 3600000000;
    ASSERT_TRUE(Store().InsertTask(task).ok()) << id;
  }
  Ran plain = Db({"list"});
  ASSERT_EQ(plain.code, 0) << Describe(plain);
  EXPECT_NE(plain.out.find("plain"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("often@"), std::string::npos) << plain.out;
  Ran with = Db({"list", "--occurrences"});
  EXPECT_NE(with.out.find("often@"), std::string::npos) << with.out;
  EXPECT_NE(with.out.find("plain"), std::string::npos) << with.out;
  Ran only = Db({"list", "--schedule", "often"});
  ASSERT_EQ(only.code, 0) << Describe(only);
  EXPECT_NE(only.out.find("often@"), std::string::npos) << only.out;
  EXPECT_EQ(only.out.find("plain"), std::string::npos) << only.out;

  // A kRunAnyway schedule keeps kMaxOccurrencesAhead occurrences written:
  // `--schedule` lists those, and NEXT RUN is the first of them (from an
  // hour ahead, so none runs during the test).
  RecurringSchedule beats;
  beats.name = "beats";
  beats.every = absl::Seconds(3);
  beats.anchor = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) + 3600);
  beats.payload = "b";
  beats.policy.overlap = Overlap::kRunAnyway;
  ASSERT_TRUE(scheduler_->CreateSchedule(beats).ok());
  Ran beats_only = Db({"list", "--schedule", "beats"});
  ASSERT_EQ(beats_only.code, 0) << Describe(beats_only);
  int listed = 0;
  for (size_t at = beats_only.out.find("beats@"); at != std::string::npos;
       at = beats_only.out.find("beats@", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, kMaxOccurrencesAhead) << beats_only.out;
  // Each occurrence is also named readably: its schedule and instant.
  EXPECT_NE(beats_only.out.find("OCCURRENCE OF"), std::string::npos)
      << beats_only.out;
  EXPECT_NE(beats_only.out.find(absl::StrCat(
                "beats @ ", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", beats.anchor,
                                             absl::UTCTimeZone()))),
            std::string::npos)
      << beats_only.out;
  EXPECT_EQ(plain.out.find("OCCURRENCE OF"), std::string::npos)
      << "no occurrence, no column\n"
      << plain.out;
  Ran beats_json = Db({"schedules", "--json"});
  ASSERT_EQ(beats_json.code, 0) << Describe(beats_json);
  // The anchor is the first occurrence.
  EXPECT_NE(
      beats_json.out.find(absl::StrCat(
          "\"next_run\":\"", absl::FormatTime("%Y-%m-%dT%H:%M:%S", beats.anchor,
                                              absl::UTCTimeZone()))),
      std::string::npos)
      << "NEXT RUN is the first occurrence written\n"
      << beats_json.out;
}

TEST_F(TwctlTest, MigrateDryRunChangesNothingAndNewerIsRefused) {
  Ran plan = Db({"migrate", "--dry-run"});
  ASSERT_EQ(plan.code, 0) << Describe(plan);
  EXPECT_NE(plan.out.find("CREATE TABLE tw_timer"), std::string::npos);
  EXPECT_NE(plan.out.find("nothing was changed"), std::string::npos);
  auto exists = Store().SchemaExists();
  EXPECT_TRUE(exists.ok() && !*exists) << exists.status();
  Ran status = Db({"status"});
  EXPECT_EQ(status.code, 4) << Describe(status);
  EXPECT_NE(status.err.find("twctl migrate"), std::string::npos);
  // The dashboard refuses to start on it too, rather than listen and answer
  // 503 on every page.
  Ran serve = Db({"serve", "--listen", "127.0.0.1:0"});
  EXPECT_EQ(serve.code, 4) << Describe(serve);
  EXPECT_NE(serve.err.find("twctl migrate"), std::string::npos) << serve.err;
  EXPECT_EQ(serve.out.find("listening"), std::string::npos) << serve.out;

  // The dry run is SQL a client runs as printed (no $1 placeholders), and
  // it names each step's locks.
  for (size_t at = plan.out.find('$'); at != std::string::npos;
       at = plan.out.find('$', at + 1)) {
    ASSERT_FALSE(at + 1 < plan.out.size() &&
                 absl::ascii_isdigit(plan.out[at + 1]))
        << "a placeholder at " << at << ":\n"
        << plan.out;
  }
  EXPECT_NE(plan.out.find("-- locks: "), std::string::npos) << plan.out;
  ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(), plan.out).ok());
  Ran again = Db({"migrate", "--json"});
  ASSERT_EQ(again.code, 0) << Describe(again);
  EXPECT_EQ(again.out,
            absl::StrCat("{\"dry_run\":false,\"from_version\":",
                         durable_internal::kSchemaVersion, ",\"to_version\":",
                         durable_internal::kSchemaVersion, ",\"steps\":[]}\n"));
  ASSERT_TRUE(Store().ForceSchemaVersion(9).ok());
  Ran serve_newer = Db({"serve", "--listen", "127.0.0.1:0"});
  EXPECT_EQ(serve_newer.code, 4) << Describe(serve_newer);
  EXPECT_NE(serve_newer.err.find("version 9"), std::string::npos)
      << serve_newer.err;
  for (const char* flag : {"--dry-run", "--json"}) {
    Ran newer = Db({"migrate", flag});
    EXPECT_EQ(newer.code, 4) << Describe(newer);
    EXPECT_NE(newer.err.find("version 9"), std::string::npos) << newer.err;
    EXPECT_NE(newer.err.find(
                  absl::StrCat("version ", durable_internal::kSchemaVersion)),
              std::string::npos)
        << newer.err;
  }
}

// An address twctl serve cannot listen on (in use here) stops it with exit
// 5, not 2: the database is fine.
TEST_F(TwctlTest, ServeRefusesAnAddressInUse) {
  Ran migrated = Db({"migrate"});
  ASSERT_EQ(migrated.code, 0) << Describe(migrated);
  const int sock = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(sock, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(listen(sock, 1), 0);
  ASSERT_EQ(getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  Ran serve = Db(
      {"serve", "--listen", absl::StrCat("127.0.0.1:", ntohs(addr.sin_port))});
  close(sock);
  EXPECT_EQ(serve.code, 5) << Describe(serve);
  EXPECT_NE(serve.err.find("cannot listen"), std::string::npos) << serve.err;
}

// A version-1 store: the dry run shows the upgrade and changes nothing,
// status refuses until it is migrated, migrate upgrades it in place.
TEST_F(TwctlTest, MigrateUpgradesAVersionOneStore) {
  ASSERT_TRUE(durable_testing::ExecSql(db_->conninfo(), R"sql(
CREATE TABLE tw_meta (key text PRIMARY KEY, value bigint NOT NULL);
CREATE FUNCTION tw_now_us() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$;
CREATE TABLE tw_timer (
  task_id bytea PRIMARY KEY, slot integer NOT NULL, due_us bigint NOT NULL,
  state smallint NOT NULL, version bigint NOT NULL DEFAULT 0,
  epoch bigint NOT NULL DEFAULT 0, attempt integer NOT NULL DEFAULT 0,
  payload bytea NOT NULL, last_error bytea, finished_us bigint);
CREATE TABLE tw_slot_lease (slot integer PRIMARY KEY, owner text,
  epoch bigint NOT NULL DEFAULT 0, lease_until_us bigint NOT NULL DEFAULT 0);
CREATE TABLE tw_node (node_id text PRIMARY KEY, heartbeat_us bigint NOT NULL);
INSERT INTO tw_meta VALUES ('schema_version', 1), ('slot_count', 2);
INSERT INTO tw_slot_lease (slot) SELECT generate_series(0, 1);
INSERT INTO tw_timer (task_id, slot, due_us, state, version, payload)
  VALUES ('kept'::bytea, 1, tw_now_us() + 3600000000, 0, 7, 'p'::bytea);
)sql")
                  .ok());
  Ran refused = Db({"status"});
  EXPECT_EQ(refused.code, 4) << Describe(refused);
  EXPECT_NE(refused.err.find("version 1"), std::string::npos) << refused.err;
  Ran plan = Db({"migrate", "--dry-run"});
  ASSERT_EQ(plan.code, 0) << Describe(plan);
  EXPECT_NE(plan.out.find("step 1 -> 2"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("ADD COLUMN horizon_us"), std::string::npos);
  EXPECT_EQ(Value(Store().SchemaVersion()), 1);
  Ran migrated = Db({"migrate", "--json"});
  ASSERT_EQ(migrated.code, 0) << Describe(migrated);
  EXPECT_NE(migrated.out.find(absl::StrCat("\"from_version\":1,\"to_version\":",
                                           durable_internal::kSchemaVersion)),
            std::string::npos)
      << migrated.out;
  Ran shown = Db({"show", "kept"});
  ASSERT_EQ(shown.code, 0) << Describe(shown);
  EXPECT_NE(shown.out.find("PENDING"), std::string::npos);
  EXPECT_NE(shown.out.find("version     7"), std::string::npos) << shown.out;
}

TEST(TwctlConnectTest, UnreachableDatabaseNamesHostNeverThePassword) {
  const std::string keyword =
      "host=/nonexistent-twctl dbname=orders user=ops password=Sup3rSecret "
      "connect_timeout=2";
  const std::string uri =
      "postgresql://ops:Sup3rSecret@127.0.0.1:1/orders?connect_timeout=2";
  std::vector<Ran> runs = {Twctl({"--db", keyword, "status"}),
                           Twctl({"--json", "--db", uri, "list"}),
                           Twctl({"show", "x"}, /*db_env=*/uri)};
  for (const Ran& run : runs) {
    EXPECT_EQ(run.code, 2) << Describe(run);
    EXPECT_NE(run.err.find("cannot connect to PostgreSQL"), std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("dbname=orders"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("Sup3rSecret"), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find("Sup3rSecret"), std::string::npos) << run.out;
  }
  EXPECT_NE(runs[0].err.find("host=/nonexistent-twctl"), std::string::npos);
  EXPECT_NE(runs[1].err.find("host=127.0.0.1"), std::string::npos);
  EXPECT_TRUE(absl::StartsWith(runs[1].out, "{\"error\":{\"code\":2,"));
  // An unparsable string is "cannot connect" too, and hides the password.
  Ran bad = Twctl({"--db", "password='Sup3rSecret", "status"});
  EXPECT_EQ(bad.code, 2) << Describe(bad);
  EXPECT_EQ(bad.err.find("Sup3rSecret"), std::string::npos) << bad.err;
}

TEST(TwctlUsageTest, UsageErrorsExitOne) {
  EXPECT_EQ(Twctl({}).code, 1);
  EXPECT_EQ(Twctl({"frobnicate"}).code, 1);
  EXPECT_EQ(Twctl({"status"}).code, 1);  // No --db, no TIMINGWHEEL_DB.
  Ran help = Twctl({"help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("exit codes: 0 ok, 1 usage error"),
            std::string::npos);
  // Every summary is apart from its name, the longest name included.
  EXPECT_NE(help.out.find("  resume-schedule  resume a paused"),
            std::string::npos)
      << help.out;
  Ran one = Twctl({"help", "list"});
  EXPECT_EQ(one.code, 0);
  EXPECT_NE(one.out.find("--due-before"), std::string::npos);
  EXPECT_EQ(Twctl({"list", "--help"}).code, 0);
  Ran bogus = Twctl({"--bogus"});
  EXPECT_EQ(bogus.code, 1);
  EXPECT_NE(bogus.err.find("(see twctl help)"), std::string::npos) << bogus.err;
}

// `twctl version` and `twctl --version` name the schema version a store
// gets from `twctl migrate`, without a database.
TEST(TwctlUsageTest, VersionNamesTheSchemaVersion) {
  const std::string expected =
      absl::StrCat("schema version ", durable_internal::kSchemaVersion);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"version"},
        std::vector<std::string>{"--version"}}) {
    Ran ran = Twctl(args);
    EXPECT_EQ(ran.code, 0) << Describe(ran);
    EXPECT_NE(ran.out.find(expected), std::string::npos) << ran.out;
  }
  Ran json = Twctl({"--json", "version"});
  EXPECT_EQ(json.code, 0) << Describe(json);
  EXPECT_NE(json.out.find(absl::StrCat("\"schema_version\":",
                                       durable_internal::kSchemaVersion)),
            std::string::npos)
      << json.out;
}

}  // namespace
}  // namespace timingwheel
