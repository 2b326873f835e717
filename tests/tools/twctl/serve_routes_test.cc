// Copyright 2026 The timingwheel Authors.
//
// twctl serve's routes (tools/twctl/serve_routes.h) over HTTP against a
// real store: pages answer with what the store holds, user bytes are
// escaped, actions need POST and the token, foreign Host headers are
// refused, and a Retry from the dashboard runs the task again. Needs
// PostgreSQL ($TIMINGWHEEL_PG, see .ci/with-postgres).

#include "tools/twctl/serve_routes.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/admin_store.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tools/twctl/serve_html.h"
#include "tools/twctl/status_summary.h"

namespace timingwheel {
namespace twctl {
namespace {

constexpr char kToken[] = "s3cret-token";
const std::string kHostileId = "<script>alert('id')</script>";

bool WaitFor(const std::function<bool()>& condition,
             absl::Duration timeout = absl::Seconds(20)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

bool Has(const std::string& html, const std::string& part) {
  return html.find(part) != std::string::npos;
}

class ServeRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = durable_testing::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    DurableOptions options;
    options.conninfo = db_->conninfo();
    options.node_id = "node-<b>";
    options.slot_count = 4;
    options.lease_ttl = absl::Seconds(2);
    options.retry.max_attempts = 1;
    options.handler = [this](const DurableTask& task) -> absl::Status {
      if (task.id == kHostileId && !fail_no_more_) {
        return absl::InternalError("bad <script>alert('error')</script>");
      }
      return absl::OkStatus();
    };
    auto scheduler = DurableScheduler::Create(options);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status();
    scheduler_ = *std::move(scheduler);
    ASSERT_TRUE(
        scheduler_->Schedule(kHostileId, absl::ZeroDuration(), "p").ok());
    ASSERT_TRUE(scheduler_->Schedule("later", absl::Hours(3), "p").ok());
    ASSERT_TRUE(WaitFor([&] {
      auto info = scheduler_->Get(kHostileId);
      return info.ok() && info->state == TaskState::kFailed;
    }));
    auto admin = AdminStore::Connect(db_->conninfo());
    ASSERT_TRUE(admin.ok()) << admin.status();
    admin_ = *std::move(admin);
  }

  std::unique_ptr<Dashboard> Serve(
      const std::string& token,
      absl::Duration stale_after = absl::Seconds(10)) {
    DashboardOptions options;
    options.port = 0;
    options.token = token;
    options.stale_after = stale_after;
    auto dashboard = Dashboard::Start(admin_.get(), options);
    EXPECT_TRUE(dashboard.ok()) << dashboard.status();
    return dashboard.ok() ? *std::move(dashboard) : nullptr;
  }

  std::unique_ptr<durable_testing::TestDatabase> db_;
  std::atomic<bool> fail_no_more_{false};
  std::unique_ptr<DurableScheduler> scheduler_;
  std::unique_ptr<AdminStore> admin_;
};

// The kind filter over HTTP: `kind` (the form's text) and `kindx` (links'
// hex) list that kind's tasks only; a bad kind is a 400 that says why; an
// attempt's error with HTML in it is text on the task page. The kind and
// the attempt rows are written through the StoreInspector.
TEST_F(ServeRoutesTest, KindFilterAndAttemptHistory) {
  const durable_testing::StoreInspector store(db_->conninfo());
  ASSERT_TRUE(store.SetKindAndPriority("later", "<i>mail</i>", 4).ok());
  ASSERT_TRUE(store
                  .InsertAttempt("later",
                                 durable_testing::AttemptRow{
                                     1, 1, "node-<b>", 1, 2,
                                     "<script>alert('attempt')</script>"})
                  .ok());
  auto dashboard = Serve("");
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  const std::string later = HexEncode("later");
  const std::string hostile = HexEncode(kHostileId);
  auto by_text = client.Get("/tasks?kind=%3Ci%3Email%3C%2Fi%3E");
  ASSERT_TRUE(by_text);
  EXPECT_EQ(by_text->status, 200) << by_text->body;
  EXPECT_TRUE(Has(by_text->body, "data-idx=\"" + later + "\""));
  EXPECT_FALSE(Has(by_text->body, "data-idx=\"" + hostile + "\""));
  EXPECT_FALSE(Has(by_text->body, "<i>")) << by_text->body;
  EXPECT_TRUE(Has(by_text->body, "&lt;i&gt;mail&lt;/i&gt;"));
  auto by_hex = client.Get("/tasks?kindx=" + HexEncode(""));
  ASSERT_TRUE(by_hex);
  EXPECT_EQ(by_hex->status, 200) << by_hex->body;
  EXPECT_TRUE(Has(by_hex->body, "data-idx=\"" + hostile + "\""));
  EXPECT_FALSE(Has(by_hex->body, "data-idx=\"" + later + "\""));
  auto every = client.Get("/tasks?kind=");
  ASSERT_TRUE(every);
  EXPECT_TRUE(Has(every->body, "data-idx=\"" + hostile + "\""));
  EXPECT_TRUE(Has(every->body, "data-idx=\"" + later + "\""));
  for (const std::string& bad :
       {std::string("/tasks?kind=a%01b"), std::string("/tasks?kindx=zz"),
        "/tasks?kind=" + std::string(129, 'k')}) {
    auto refused = client.Get(bad);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << bad << refused->body;
  }
  auto task = client.Get("/task?idx=" + later);
  ASSERT_TRUE(task);
  EXPECT_EQ(task->status, 200);
  EXPECT_FALSE(Has(task->body, "<script>")) << task->body;
  EXPECT_TRUE(Has(task->body, "<tr data-attempt=\"1\">")) << task->body;
  EXPECT_TRUE(
      Has(task->body, "&lt;script&gt;alert(&#39;attempt&#39;)&lt;/script&gt;"))
      << task->body;
  EXPECT_TRUE(Has(task->body, "<span class=\"priority\">4</span>"));
}

TEST_F(ServeRoutesTest, PagesShowTheStore) {
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  auto overview = client.Get("/");
  ASSERT_TRUE(overview);
  EXPECT_EQ(overview->status, 200) << overview->body;
  EXPECT_TRUE(Has(overview->body,
                  "href=\"/tasks?state=FAILED\">FAILED</a></th><td "
                  "class=\"count\">1</td>"))
      << overview->body;
  EXPECT_TRUE(Has(overview->get_header_value("Content-Security-Policy"),
                  "default-src 'none'"));
  auto slots = client.Get("/slots");
  ASSERT_TRUE(slots);
  EXPECT_EQ(slots->status, 200);
  EXPECT_TRUE(Has(slots->body, "<td class=\"owner\">node-&lt;b&gt;</td>"))
      << slots->body;
  auto pending = client.Get("/tasks?state=PENDING");
  ASSERT_TRUE(pending);
  EXPECT_TRUE(Has(pending->body, "<tr data-idx=\"" + HexEncode("later")));
  EXPECT_FALSE(Has(pending->body, HexEncode(kHostileId)));
  auto bad = client.Get("/tasks?state=NOPE");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  auto css = client.Get("/static/dashboard.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->status, 200);
  // The token unlocks actions; no page ever carries it.
  for (const char* path : {"/", "/slots", "/tasks", "/failed", "/schedules"}) {
    auto page = client.Get(path);
    ASSERT_TRUE(page) << path;
    EXPECT_FALSE(Has(page->body, kToken)) << path;
  }
  auto missing = client.Get("/task?id=nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

// The schedules page lists each schedule as AdminStore::Schedules() reports
// it; the task lists leave occurrences out unless asked, show them alone
// or one schedule's only, and name them readably.
TEST_F(ServeRoutesTest, SchedulesPageAndOccurrenceFilters) {
  RecurringSchedule beat;
  beat.name = "beat<i>";
  beat.every = absl::Hours(1);
  beat.payload = "b";
  ASSERT_TRUE(scheduler_->CreateSchedule(beat).ok());
  RecurringSchedule nightly;
  nightly.name = "nightly";
  nightly.cron = "0 3 * * *";
  nightly.payload = "n";
  ASSERT_TRUE(scheduler_->CreateSchedule(nightly).ok());
  ASSERT_TRUE(scheduler_->PauseSchedule("nightly").ok());
  const durable_testing::StoreInspector store(db_->conninfo());
  // Two occurrences of "often" (2025-12-02 00:00:00 and :03 UTC).
  const std::string often1 = "\x1btw-schedule:5:often@1764633600000000";
  const std::string often2 = "\x1btw-schedule:5:often@1764633603000000";
  for (const std::string& id : {often1, often2}) {
    durable_testing::InsertedTask task;
    task.id = id;
    task.due_in_us = int64_t{3600} * 1000000;
    ASSERT_TRUE(store.InsertTask(task).ok()) << id;
  }
  auto dashboard = Serve("");
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  auto page = client.Get("/schedules");
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200) << page->body;
  auto schedules = admin_->Schedules();
  ASSERT_TRUE(schedules.ok()) << schedules.status();
  ASSERT_EQ(schedules->size(), 2u);
  for (const ScheduleInfo& info : *schedules) {
    const std::string row = absl::StrCat(
        "<tr data-schedule=\"", HexEncode(info.definition.name), "\">");
    const size_t at = page->body.find(row);
    ASSERT_NE(at, std::string::npos) << page->body;
    const std::string cells =
        page->body.substr(at, page->body.find("</tr>", at) - at);
    if (info.paused) {
      EXPECT_TRUE(Has(cells, "<td class=\"next-run\">-</td>")) << cells;
      EXPECT_TRUE(Has(cells, "paused</span>")) << cells;
    } else {
      EXPECT_TRUE(
          Has(cells, "<td class=\"next-run\">" + ShowTime(info.next_run)))
          << cells;
      EXPECT_TRUE(
          Has(cells, "<td class=\"last-run\">" + ShowTime(info.last_run)))
          << cells;
    }
    EXPECT_TRUE(Has(cells, "<td class=\"recurrence\">")) << cells;
  }
  EXPECT_TRUE(Has(page->body, "<td class=\"name\">beat&lt;i&gt;</td>"));

  const std::string hex1 = HexEncode(often1);
  auto plain = client.Get("/tasks");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(Has(plain->body, hex1)) << plain->body;
  EXPECT_TRUE(Has(plain->body, HexEncode("later")));
  auto with = client.Get("/tasks?occurrences=include");
  ASSERT_TRUE(with);
  EXPECT_TRUE(Has(with->body, "<tr data-idx=\"" + hex1 + "\">"));
  EXPECT_TRUE(Has(with->body, HexEncode("later")));
  EXPECT_TRUE(Has(with->body, "often @ 2025-12-02 00:00:03 UTC")) << with->body;
  auto only = client.Get("/tasks?occurrences=only");
  ASSERT_TRUE(only);
  EXPECT_TRUE(Has(only->body, hex1));
  EXPECT_FALSE(Has(only->body, HexEncode("later")));
  auto one = client.Get("/tasks?schedulex=" + HexEncode("often"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200) << one->body;
  EXPECT_TRUE(Has(one->body, hex1));
  EXPECT_TRUE(Has(one->body, HexEncode(often2)));
  auto other = client.Get("/tasks?schedulex=" + HexEncode("ofte"));
  ASSERT_TRUE(other);
  EXPECT_FALSE(Has(other->body, hex1)) << other->body;
  for (const char* bad : {"/tasks?occurrences=all", "/tasks?schedulex=zz",
                          "/tasks?schedulex=", "/?refresh=1"}) {
    auto refused = client.Get(bad);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << bad;
  }
}

// The overview says what is wrong first, with the figures `twctl status`
// computes (one function: Summarize()), and reloads itself unless told.
TEST_F(ServeRoutesTest, OverviewShowsProblemsAsStatusComputesThem) {
  // Every node counts as stale past a microsecond without a heartbeat.
  auto dashboard = Serve("", absl::Microseconds(1));
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  auto overview = client.Get("/");
  ASSERT_TRUE(overview);
  ASSERT_EQ(overview->status, 200) << overview->body;
  const std::string& html = overview->body;
  auto status = admin_->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  const StatusSummary sum = Summarize(*status, absl::Microseconds(1));
  const size_t problems = html.find("data-healthy=\"no\"");
  ASSERT_NE(problems, std::string::npos) << html;
  EXPECT_LT(problems, html.find("id=\"counts\""));
  const std::string node = HexEncode("node-<b>");
  ASSERT_EQ(sum.stale_nodes.size(), 1u);
  EXPECT_TRUE(Has(html, "<table id=\"stale-nodes\"><tr><th>node</th>"));
  EXPECT_TRUE(Has(html, "<tr data-node=\"" + node +
                            "\"><td class=\"node\">node-&lt;b&gt;</td>"))
      << html;
  // The FAILED task of the default kind: a failing kind.
  ASSERT_EQ(sum.failing_kinds.size(), 1u);
  EXPECT_TRUE(Has(html, "<table id=\"failing-kinds\">"));
  EXPECT_TRUE(Has(html, "&amp;state=FAILED&amp;occurrences=include\">1</a>"))
      << html;
  // Slots per owner: the owner's valid leases as Summarize() counts them.
  ASSERT_EQ(sum.owners.size(), 1u);
  EXPECT_EQ(sum.owners[0].valid, 4);
  EXPECT_TRUE(Has(html, "<tr data-owner=\"" + node +
                            "\"><td class=\"owner\">node-&lt;b&gt;</td>"
                            "<td class=\"held\">4</td>"))
      << html;
  EXPECT_TRUE(Has(html, "<meta http-equiv=\"refresh\" content=\"10\">"));
  auto quiet = client.Get("/?refresh=off");
  ASSERT_TRUE(quiet);
  EXPECT_FALSE(Has(quiet->body, "http-equiv=\"refresh\""));
  EXPECT_TRUE(Has(quiet->body, "href=\"/?refresh=10\">start"));
  // With the default TTL, the live node is not stale.
  auto normal = Serve("");
  ASSERT_NE(normal, nullptr);
  httplib::Client normal_client("127.0.0.1", normal->port());
  auto fine = normal_client.Get("/");
  ASSERT_TRUE(fine);
  EXPECT_FALSE(Has(fine->body, "stale-nodes")) << fine->body;
}

TEST_F(ServeRoutesTest, HostileIdAndErrorAreEscaped) {
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  for (const std::string& path :
       {std::string("/failed"), std::string("/tasks"),
        absl::StrCat("/task?idx=", HexEncode(kHostileId))}) {
    auto page = client.Get(path);
    ASSERT_TRUE(page) << path;
    EXPECT_EQ(page->status, 200) << path;
    EXPECT_FALSE(Has(page->body, "<script")) << path << page->body;
    EXPECT_TRUE(Has(page->body, "&lt;script&gt;alert(&#39;id&#39;)")) << path;
  }
  auto failed = client.Get("/failed");
  EXPECT_TRUE(Has(failed->body, "bad &lt;script&gt;alert(&#39;error&#39;)"))
      << failed->body;
}

TEST_F(ServeRoutesTest, ActionsNeedPostAndTheToken) {
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  const std::string idx = HexEncode(kHostileId);
  auto get = client.Get(absl::StrCat("/retry?idx=", idx, "&token=", kToken));
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  auto none = client.Post("/retry", absl::StrCat("idx=", idx),
                          "application/x-www-form-urlencoded");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 403);
  auto wrong = client.Post("/retry", absl::StrCat("idx=", idx, "&token=x"),
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  auto prefix =
      client.Post("/retry", absl::StrCat("idx=", idx, "&token=", kToken, "x"),
                  "application/x-www-form-urlencoded");
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->status, 403);
  auto info = scheduler_->Get(kHostileId);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, TaskState::kFailed);  // Nothing changed.

  // With the token (a header works as well as the form field): the task
  // runs again, and succeeds this time.
  fail_no_more_ = true;
  httplib::Headers headers = {{"X-Twctl-Token", kToken}};
  auto retry = client.Post("/retry", headers, absl::StrCat("idx=", idx),
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->status, 200) << retry->body;
  EXPECT_TRUE(Has(retry->body, "data-outcome=\"done\""));
  EXPECT_TRUE(WaitFor([&] {
    auto now = scheduler_->Get(kHostileId);
    return now.ok() && now->state == TaskState::kSuccess;
  }));
  // Retrying a task that is not FAILED is refused (409), changing nothing.
  auto again = client.Post("/retry", headers, absl::StrCat("idx=", idx),
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
}

// Pause and Resume of a recurring schedule from its page: the forms show
// with a token only, need POST and the token, and change the schedule (a
// pause deletes its waiting occurrence, a resume writes it again); an
// unknown name is a 404, a name no schedule can have a 400.
TEST_F(ServeRoutesTest, SchedulesPauseAndResumeFromTheDashboard) {
  RecurringSchedule beat;
  beat.name = "beat<i>";
  beat.every = absl::Hours(1);
  beat.anchor = absl::Now() + absl::Hours(1);
  beat.payload = "b";
  ASSERT_TRUE(scheduler_->CreateSchedule(beat).ok());
  const durable_testing::StoreInspector store(db_->conninfo());
  const auto waiting = [&] {
    auto n = store.CountTasks(
        durable_testing::TaskMatch().IdPrefix("\x1btw-schedule:"));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  };
  ASSERT_EQ(waiting(), 1);
  const std::string form = absl::StrCat("namex=", HexEncode(beat.name));
  {
    auto read_only = Serve("");
    ASSERT_NE(read_only, nullptr);
    httplib::Client client("127.0.0.1", read_only->port());
    auto page = client.Get("/schedules");
    ASSERT_TRUE(page);
    EXPECT_FALSE(Has(page->body, "<form")) << page->body;
    auto post =
        client.Post("/pause-schedule",
                    form + "&token=", "application/x-www-form-urlencoded");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, 403);
  }
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  auto page = client.Get("/schedules");
  ASSERT_TRUE(page);
  EXPECT_TRUE(Has(page->body, "action=\"/pause-schedule\"")) << page->body;
  EXPECT_TRUE(Has(page->body, absl::StrCat("name=\"namex\" value=\"",
                                           HexEncode(beat.name), "\"")));
  auto get =
      client.Get(absl::StrCat("/pause-schedule?", form, "&token=", kToken));
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  auto wrong = client.Post("/pause-schedule", form + "&token=x",
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  EXPECT_EQ(waiting(), 1) << "nothing changed";

  httplib::Headers headers = {{"X-Twctl-Token", kToken}};
  auto pause = client.Post("/pause-schedule", headers, form,
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(pause);
  EXPECT_EQ(pause->status, 200) << pause->body;
  EXPECT_TRUE(Has(pause->body, "data-outcome=\"done\""));
  EXPECT_TRUE(Has(pause->body, "beat&lt;i&gt;")) << pause->body;
  EXPECT_EQ(waiting(), 0);
  auto paused = client.Get("/schedules");
  ASSERT_TRUE(paused);
  EXPECT_TRUE(Has(paused->body, "action=\"/resume-schedule\""));
  auto resume = client.Post("/resume-schedule", headers, form,
                            "application/x-www-form-urlencoded");
  ASSERT_TRUE(resume);
  EXPECT_EQ(resume->status, 200) << resume->body;
  EXPECT_EQ(waiting(), 1);
  auto info = admin_->Schedules();
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->size(), 1u);
  EXPECT_FALSE((*info)[0].paused);

  auto unknown = client.Post("/pause-schedule", headers,
                             absl::StrCat("namex=", HexEncode("nope")),
                             "application/x-www-form-urlencoded");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto empty = client.Post("/resume-schedule", headers,
                           "namex=", "application/x-www-form-urlencoded");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400) << empty->body;
}

// A Resume whose schedule's kind is no longer registered is refused (409,
// saying why; not "not found"), and the schedule stays paused; after the
// dashboard's idle connection was ended, the next Pause reconnects.
TEST_F(ServeRoutesTest, ScheduleActionRefusalsAndALostIdleConnection) {
  ASSERT_TRUE(
      durable_testing::ExecSql(db_->conninfo(),
                               "INSERT INTO tw_kind VALUES ('mail', 'n', 0)")
          .ok());
  RecurringSchedule mailer;
  mailer.name = "mailer";
  mailer.kind = "mail";
  mailer.every = absl::Hours(1);
  mailer.anchor = absl::Now() + absl::Hours(1);
  mailer.payload = "m";
  ASSERT_TRUE(scheduler_->CreateSchedule(mailer).ok());
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  httplib::Headers headers = {{"X-Twctl-Token", kToken}};
  const std::string form = absl::StrCat("namex=", HexEncode(mailer.name));
  auto pause = client.Post("/pause-schedule", headers, form,
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(pause);
  ASSERT_EQ(pause->status, 200) << pause->body;
  ASSERT_TRUE(durable_testing::ExecSql(
                  db_->conninfo(), "DELETE FROM tw_kind WHERE kind = 'mail'")
                  .ok());
  auto resume = client.Post("/resume-schedule", headers, form,
                            "application/x-www-form-urlencoded");
  ASSERT_TRUE(resume);
  EXPECT_EQ(resume->status, 409) << resume->body;
  EXPECT_TRUE(Has(resume->body, "cannot resume")) << resume->body;
  auto schedules = admin_->Schedules();
  ASSERT_TRUE(schedules.ok()) << schedules.status();
  ASSERT_EQ(schedules->size(), 1u);
  EXPECT_TRUE((*schedules)[0].paused);

  const std::string kill =
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
      "WHERE application_name = 'timingwheel-admin' "
      "AND datname = current_database()";
  ASSERT_TRUE(client.Get("/schedules"));
  ASSERT_TRUE(durable_testing::QueryInt(db_->conninfo(), kill).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto left = durable_testing::QueryInt(
        db_->conninfo(),
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
        "'timingwheel-admin' AND datname = current_database()");
    return left.ok() && *left == 0;
  }));
  auto again = client.Post("/pause-schedule", headers, form,
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
}

TEST_F(ServeRoutesTest, WithoutATokenEveryActionIsRefused) {
  auto dashboard = Serve("");
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  auto post = client.Post(
      "/retry", absl::StrCat("idx=", HexEncode(kHostileId), "&token="),
      "application/x-www-form-urlencoded");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 403);
  auto failed = client.Get("/failed");
  ASSERT_TRUE(failed);
  EXPECT_FALSE(Has(failed->body, "<form"));
}

// An id the store refuses before asking the database (empty, or over
// kMaxIdBytes) is the request's fault: a 400 that says why, never the
// "Store unavailable" 503 (which tells the operator the database is down).
TEST_F(ServeRoutesTest, AnIdTheStoreRefusesIsABadRequest) {
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  const std::string long_idx = std::string(2 * (kMaxIdBytes + 1), 'a');
  for (const std::string& path :
       {std::string("/task?id="), std::string("/task?idx="),
        absl::StrCat("/task?idx=", long_idx)}) {
    auto page = client.Get(path);
    ASSERT_TRUE(page) << path.size();
    EXPECT_EQ(page->status, 400) << path.size() << page->body.size();
    EXPECT_FALSE(Has(page->body, "Store unavailable")) << path.size();
    EXPECT_TRUE(Has(page->body, "task id")) << path.size();
  }
  httplib::Headers headers = {{"X-Twctl-Token", kToken}};
  for (const char* action : {"/retry", "/cancel"}) {
    for (const std::string& body :
         {std::string("idx="), absl::StrCat("idx=", long_idx)}) {
      auto post = client.Post(action, headers, body,
                              "application/x-www-form-urlencoded");
      ASSERT_TRUE(post) << action;
      EXPECT_EQ(post->status, 400) << action << " " << body.size();
      EXPECT_FALSE(Has(post->body, "Store unavailable")) << action;
    }
  }
}

TEST_F(ServeRoutesTest, ForeignHostHeaderIsRefused) {
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  httplib::Client client("127.0.0.1", dashboard->port());
  auto rebound = client.Get("/", {{"Host", "evil.example:80"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  auto local = client.Get(
      "/", {{"Host", absl::StrCat("localhost:", dashboard->port())}});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->status, 200);
}

TEST_F(ServeRoutesTest, StopsAndRefusesABusyPort) {
  auto dashboard = Serve(kToken);
  ASSERT_NE(dashboard, nullptr);
  DashboardOptions options;
  options.port = dashboard->port();
  auto busy = Dashboard::Start(admin_.get(), options);
  EXPECT_FALSE(busy.ok());
  dashboard->Stop();
  dashboard->Stop();
  httplib::Client client("127.0.0.1", options.port);
  EXPECT_FALSE(client.Get("/"));
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
