// Copyright 2026 The timingwheel Authors.
//
// The /metrics endpoint (durable/metrics_http.h): answers over HTTP with the
// render function's text and Prometheus's content type, on 127.0.0.1 by
// default; other paths 404, other methods 405; stops cleanly. No database.

#include "durable/metrics_http.h"

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "durable/prometheus.h"
#include "gtest/gtest.h"
#include "httplib.h"

namespace timingwheel {
namespace {

std::unique_ptr<MetricsHttpServer> StartWith(std::atomic<int>* calls) {
  MetricsHttpOptions options;
  options.render = [calls] {
    ++*calls;
    return std::string("# TYPE x_total counter\nx_total 1\n");
  };
  auto server = MetricsHttpServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

TEST(MetricsHttpTest, ServesTheRenderedTextOnLoopback) {
  std::atomic<int> calls{0};
  auto server = StartWith(&calls);
  ASSERT_NE(server, nullptr);
  ASSERT_GT(server->port(), 0);
  httplib::Client client("127.0.0.1", server->port());
  auto response = client.Get("/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "# TYPE x_total counter\nx_total 1\n");
  EXPECT_EQ(response->get_header_value("Content-Type"),
            std::string(prometheus::kContentType));
  EXPECT_EQ(calls.load(), 1);
  // Rendered anew for every scrape.
  ASSERT_TRUE(client.Get("/metrics"));
  EXPECT_EQ(calls.load(), 2);
}

TEST(MetricsHttpTest, ServesTheHealthFunctionForALivenessProbe) {
  std::atomic<int> calls{0};
  absl::Mutex mu;
  absl::Status health = absl::OkStatus();
  MetricsHttpOptions options;
  options.render = [&calls] {
    ++calls;
    return std::string();
  };
  options.health = [&] {
    absl::MutexLock lock(&mu);
    return health;
  };
  auto server = MetricsHttpServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client("127.0.0.1", (*server)->port());
  auto ok = client.Get("/healthz");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "ok\n");
  {
    absl::MutexLock lock(&mu);
    health = absl::FailedPreconditionError("node id taken over");
  }
  auto lost = client.Get("/healthz");
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->status, 503);
  EXPECT_EQ(lost->body, "FAILED_PRECONDITION: node id taken over\n");
  EXPECT_EQ(calls.load(), 0);  // The metrics are not rendered for it.
  (*server)->Stop();
  // Without a health function the path is not served.
  options.health = nullptr;
  server = MetricsHttpServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client plain("127.0.0.1", (*server)->port());
  auto none = plain.Get("/healthz");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  // One path for both is refused.
  options.health = [] { return absl::OkStatus(); };
  options.health_path = options.path;
  EXPECT_TRUE(
      absl::IsInvalidArgument(MetricsHttpServer::Start(options).status()));
}

TEST(MetricsHttpTest, OtherPathsAndMethodsAreRefused) {
  std::atomic<int> calls{0};
  auto server = StartWith(&calls);
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  auto other = client.Get("/other");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
  auto post = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(calls.load(), 0);
}

TEST(MetricsHttpTest, StopsAndFreesThePort) {
  std::atomic<int> calls{0};
  auto server = StartWith(&calls);
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  server->Stop();
  server->Stop();  // Idempotent.
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::seconds(2));
  EXPECT_FALSE(client.Get("/metrics"));
  // The same port binds again.
  MetricsHttpOptions options;
  options.port = port;
  options.render = [] { return std::string(); };
  auto again = MetricsHttpServer::Start(options);
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST(MetricsHttpTest, RefusesWithoutRenderOrWithABusyPort) {
  EXPECT_FALSE(MetricsHttpServer::Start(MetricsHttpOptions()).ok());
  std::atomic<int> calls{0};
  auto server = StartWith(&calls);
  ASSERT_NE(server, nullptr);
  MetricsHttpOptions options;
  options.port = server->port();
  options.render = [] { return std::string(); };
  auto busy = MetricsHttpServer::Start(options);
  ASSERT_FALSE(busy.ok());
  EXPECT_TRUE(absl::IsUnavailable(busy.status())) << busy.status();
}

}  // namespace
}  // namespace timingwheel
