// Copyright 2026 The timingwheel Authors.

#include "durable/metrics_http.h"

#include <sys/socket.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "durable/prometheus.h"
#include "httplib.h"

namespace timingwheel {

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    MetricsHttpOptions options) {
  if (!options.render) {
    return absl::InvalidArgumentError("MetricsHttpOptions.render is required");
  }
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError("port must be in [0, 65535]");
  }
  if (options.health && options.health_path == options.path) {
    return absl::InvalidArgumentError(
        "MetricsHttpOptions: path and health_path must differ");
  }
  std::unique_ptr<MetricsHttpServer> self(new MetricsHttpServer());
  self->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *self->server_;
  const std::string path = options.path;
  const std::string health_path = options.health_path;
  auto render = std::move(options.render);
  auto health = std::move(options.health);
  server.Get(
      ".*", [path, render, health_path, health](const httplib::Request& request,
                                                httplib::Response& response) {
        constexpr char kText[] = "text/plain; charset=utf-8";
        if (request.path == path) {
          response.set_content(render(), std::string(prometheus::kContentType));
        } else if (health && request.path == health_path) {
          const absl::Status status = health();
          response.status = status.ok() ? 200 : 503;
          response.set_content(status.ok() ? "ok\n" : status.ToString() + "\n",
                               kText);
        } else {
          response.status = 404;
          response.set_content("not found\n", kText);
        }
      });
  // Everything but GET (and HEAD, which httplib answers from GET).
  const auto not_allowed = [](const httplib::Request&,
                              httplib::Response& response) {
    response.status = 405;
    response.set_header("Allow", "GET, HEAD");
    response.set_content("method not allowed\n", "text/plain; charset=utf-8");
  };
  server.Post(".*", not_allowed);
  server.Put(".*", not_allowed);
  server.Delete(".*", not_allowed);
  server.Patch(".*", not_allowed);
  // httplib's default also sets SO_REUSEPORT, with which a second server
  // on the same port would share it silently: address reuse only.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    (void)setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  if (options.port == 0) {
    self->port_ = server.bind_to_any_port(options.host);
    if (self->port_ < 0) self->port_ = 0;
  } else if (server.bind_to_port(options.host, options.port)) {
    self->port_ = options.port;
  }
  if (self->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "metrics server: cannot bind ", options.host, ":", options.port));
  }
  self->thread_ = std::thread([&server] { server.listen_after_bind(); });
  // httplib's stop() is lost on a server that is not listening yet: return
  // only once it listens (a thread start; bounded).
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::UnavailableError("metrics server: did not start listening");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return self;
}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

void MetricsHttpServer::Stop() {
  internal::MutexLock lock(stop_mu_);
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace timingwheel
