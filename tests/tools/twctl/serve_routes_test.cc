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

  std::unique_ptr<Dashboard> Serve(const std::string& token) {
    DashboardOptions options;
    options.port = 0;
    options.token = token;
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
  for (const char* path : {"/", "/slots", "/tasks", "/failed"}) {
    auto page = client.Get(path);
    ASSERT_TRUE(page) << path;
    EXPECT_FALSE(Has(page->body, kToken)) << path;
  }
  auto missing = client.Get("/task?id=nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
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
