// Copyright 2026 The timingwheel Authors.
//
// metrics_http.h
// -----------------------------------------------------------------------------
//
// A tiny HTTP server for Prometheus to scrape: `GET /metrics` answers with
// whatever a render function returns (for a scheduler,
// `DurableScheduler::RenderPrometheus()`), as
// `text/plain; version=0.0.4`. With a health function (for a scheduler,
// `DurableScheduler::Health()`), `GET /healthz` answers 200 "ok" while it
// returns OK and 503 with its status otherwise, for a liveness probe. Any
// other path is 404, any other method 405.
// It binds to 127.0.0.1 unless told otherwise: metrics name nodes and
// rates, which are not for the whole network to read. Built on cpp-httplib
// (Debian's libcpp-httplib-dev), which stays out of this header.
//
// This file defines:
//
//   * `MetricsHttpOptions`: address, port, path, render function.
//   * `MetricsHttpServer`: serves on its own threads until stopped.
//
// Example:
//   timingwheel::MetricsHttpOptions options;
//   options.port = 9464;
//   options.render = [&] { return scheduler->RenderPrometheus(); };
//   options.health = [&] { return scheduler->Health(); };
//   auto server = timingwheel::MetricsHttpServer::Start(options).value();
//   ...
//   server.reset();  // Before the scheduler goes.
//
// Tests: tests/durable/metrics_http_test.cc (MetricsHttpTest.*).

#ifndef TIMINGWHEEL_DURABLE_METRICS_HTTP_H_
#define TIMINGWHEEL_DURABLE_METRICS_HTTP_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "timer/internal/mutex.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace timingwheel {

// MetricsHttpOptions
struct MetricsHttpOptions {
  // The address to bind ("127.0.0.1", "::1", "0.0.0.0" for every
  // interface).
  std::string host = "127.0.0.1";
  // 0: a free port the system picks (see `MetricsHttpServer::port()`).
  int port = 0;
  std::string path = "/metrics";
  // Called on the server's threads, concurrently, once per scrape; must be
  // thread-safe and must stay callable until the server is stopped.
  std::function<std::string()> render;
  // Optional: served at `health_path` (200 "ok\n" while it returns OK, 503
  // with the status's text otherwise), called like `render`. Without it,
  // `health_path` is 404 like any other path.
  std::function<absl::Status()> health;
  std::string health_path = "/healthz";
};

// MetricsHttpServer
//
// Serves `options.render()` at `options.path` on its own threads from
// `Start()` until `Stop()` or destruction. Thread-safe.
class MetricsHttpServer {
 public:
  // MetricsHttpServer::Start()
  //
  // Binds and starts serving. InvalidArgument without a render function
  // or when `path` and `health_path` (with a health function) are equal,
  // Unavailable when the address cannot be bound (in use, not local).
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      MetricsHttpOptions options);

  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // Stops (see `Stop()`).
  ~MetricsHttpServer();

  // MetricsHttpServer::port()
  //
  // The bound port.
  int port() const { return port_; }

  // MetricsHttpServer::Stop()
  //
  // Stops accepting, waits for the requests being served, and returns;
  // `render` is not called afterwards. Idempotent.
  void Stop();

 private:
  MetricsHttpServer() = default;

  internal::Mutex stop_mu_;  // Serializes Stop().
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_METRICS_HTTP_H_
