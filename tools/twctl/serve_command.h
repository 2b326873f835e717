// Copyright 2026 The timingwheel Authors.
//
// serve_command.h
// -----------------------------------------------------------------------------
//
// `twctl serve [--listen HOST:PORT] [--token T | --token-file F]
// [--page-size N] [--lease-ttl D]`: runs the dashboard (serve_routes.h) over
// twctl's `AdminStore` until SIGINT or SIGTERM. Listens on 127.0.0.1:8080
// unless `--listen` says otherwise (port 0: a free one); prints
// "twctl serve: listening on http://HOST:PORT/" once it listens.
//
// This file defines:
//
//   * `ParseListen()`: "127.0.0.1:8080", "[::1]:0", "0.0.0.0:80".
//   * `ServeFlags`, `ParseServeFlags()`: the subcommand's flags.
//   * `RunDashboard()`: the subcommand, once connected (serve_twctl.h
//     registers it in twctl); returns 0 after a signal.
//
// Tests: tests/tools/twctl/serve_html_test.cc (ServeCommandTest.*), and the
// browser test tests/tools/twctl/dashboard_browser_test.

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_COMMAND_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_COMMAND_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "tools/twctl/status_summary.h"

namespace timingwheel {
namespace twctl {

// ParseListen()
//
// (host, port) of "HOST:PORT" ("[v6]:PORT" for IPv6). InvalidArgument for
// anything else or a port outside [0, 65535].
absl::StatusOr<std::pair<std::string, int>> ParseListen(
    absl::string_view listen);

struct ServeFlags {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string token;  // Empty: read-only.
  int page_size = 50;
  // The schedulers' lease TTL: a node whose heartbeat is older is stale.
  absl::Duration lease_ttl = kDefaultStaleAfter;
};

// ParseServeFlags()
//
// The flags after `serve` (`--flag value` or `--flag=value`). A token file's
// content is the token, one trailing newline dropped.
absl::StatusOr<ServeFlags> ParseServeFlags(
    const std::vector<std::string>& args);

// RunDashboard()
//
// Serves the dashboard over `store` with `flags` until SIGINT or SIGTERM,
// writing its one line to `out` and errors to `err` (with `secrets`
// scrubbed). Returns 0 after a signal, 1 when the address is unavailable.
int RunDashboard(AdminStore* store, const ServeFlags& flags,
                 const std::vector<std::string>& secrets, std::ostream& out,
                 std::ostream& err);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_COMMAND_H_
