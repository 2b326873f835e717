// Copyright 2026 The timingwheel Authors.
//
// serve_routes.h
// -----------------------------------------------------------------------------
//
// The web dashboard of `twctl serve`: an HTTP server (cpp-httplib) whose
// routes read the store through an `AdminStore` and render serve_pages.h.
//
//   GET  /                    problems first (stale nodes, slots without a
//                             lease, overdue and failing kinds), counts by
//                             state, slots per owner, kinds, the charts
//   GET  /slots               slots per owner, nodes and heartbeats, slots
//   GET  /schedules           recurring schedules, last and next runs
//   GET  /tasks?state=S&kindx=HEX&occurrences=include|only&schedulex=HEX
//              &afterx=HEX&limit=N           tasks by id, paged
//   GET  /failed?afterx=HEX&limit=N&occurrences=...  FAILED tasks, Retry
//   (overview, slots, schedules and tasks: `refresh=off` or a period in
//   seconds; default: reload every 10 s)
//   GET  /task?idx=HEX (or ?id=ID)           one task
//   POST /retry, /cancel      form fields idx (hex id) and token
//   POST /pause-schedule, /resume-schedule   form fields namex (hex name)
//                             and token
//   GET  /static/dashboard.css
//
// What it promises (tests in tests/tools/twctl/serve_routes_test.cc):
//   * Mutating actions are POST only (GET /retry is 405) and need the
//     token given at start, in the form field `token` or the header
//     `X-Twctl-Token`, compared in constant time; anything else is 403,
//     and so is every action when no token was given (read-only).
//     ServeRoutesTest.ActionsNeedPostAndTheToken.
//   * Every value shown is escaped (a `<script>` in an id or an error is
//     text). ServeRoutesTest.HostileIdAndErrorAreEscaped.
//   * Bound to 127.0.0.1 unless the options say otherwise; when bound to a
//     loopback address, a request whose Host header is not that address
//     or localhost (DNS rebinding) is refused with 403.
//     ServeRoutesTest.ForeignHostHeaderIsRefused.
//   * Responses forbid scripts, framing and caching
//     (Content-Security-Policy `default-src 'none'; style-src 'self'`).
//   * A store error is a 503 page whose text never holds the connection
//     string's password.
//
// This file defines:
//
//   * `DashboardOptions`: address, port, token, page size.
//   * `Dashboard`: serves until stopped. Thread-safe.

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_ROUTES_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_ROUTES_H_

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace timingwheel {
namespace twctl {

struct DashboardOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: a free port (see `Dashboard::port()`).
  // Unlocks POST actions; empty: read-only.
  std::string token;
  int page_size = 50;  // Rows per page, in [1, 1000].
  // A node whose heartbeat is older is stale (status_summary.h): the
  // schedulers' lease TTL.
  absl::Duration stale_after = absl::Seconds(10);
  // Scrubbed from every message shown (the connection's password).
  std::vector<std::string> secrets;
};

// Dashboard
//
// Serves the pages on its own threads from `Start()` until `Stop()` or
// destruction. `store` must outlive it. Thread-safe.
class Dashboard {
 public:
  // Dashboard::Start()
  //
  // Binds and serves. InvalidArgument for a bad page size or port,
  // Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<Dashboard>> Start(
      AdminStore* store, DashboardOptions options);

  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;
  ~Dashboard();

  int port() const { return port_; }

  // Dashboard::Stop()
  //
  // Stops serving and waits for the requests in progress. Idempotent.
  void Stop();

 private:
  Dashboard(AdminStore* store, DashboardOptions options);
  void Route();

  AdminStore* const store_;
  const DashboardOptions options_;
  std::mutex stop_mu_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_ROUTES_H_
