// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_command.h"

#include <signal.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/sql/redact.h"
#include "tools/twctl/serve_routes.h"

namespace timingwheel {
namespace twctl {

absl::StatusOr<std::pair<std::string, int>> ParseListen(
    absl::string_view listen) {
  const auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen wants HOST:PORT (127.0.0.1:8080, [::1]:8080), not \"", listen,
        "\""));
  };
  std::string host;
  absl::string_view port_text;
  if (absl::StartsWith(listen, "[")) {
    const size_t close = listen.find("]:");
    if (close == absl::string_view::npos) return bad();
    host = std::string(listen.substr(1, close - 1));
    port_text = listen.substr(close + 2);
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == absl::string_view::npos) return bad();
    host = std::string(listen.substr(0, colon));
    if (host.find(':') != std::string::npos) return bad();
    port_text = listen.substr(colon + 1);
  }
  int port = 0;
  if (host.empty() || !absl::SimpleAtoi(port_text, &port) || port < 0 ||
      port > 65535) {
    return bad();
  }
  return std::make_pair(host, port);
}

absl::StatusOr<ServeFlags> ParseServeFlags(
    const std::vector<std::string>& args) {
  ServeFlags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (absl::StartsWith(name, "--") && i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("serve: ", name, " needs a value"));
    }
    if (name == "--listen") {
      absl::StatusOr<std::pair<std::string, int>> listen = ParseListen(value);
      if (!listen.ok()) return listen.status();
      flags.host = listen->first;
      flags.port = listen->second;
    } else if (name == "--token") {
      if (value.empty()) {
        return absl::InvalidArgumentError(
            "serve: --token is empty (omit the flag for a read-only "
            "dashboard)");
      }
      flags.token = value;
    } else if (name == "--token-file") {
      std::ifstream file(value);
      if (!file) {
        return absl::InvalidArgumentError(
            absl::StrCat("serve: cannot read --token-file ", value));
      }
      std::stringstream content;
      content << file.rdbuf();
      flags.token = content.str();
      if (absl::EndsWith(flags.token, "\n")) flags.token.pop_back();
      if (flags.token.empty()) {
        // An empty token would start the dashboard read-only: a typo in a
        // deploy must not silently take the operator's buttons away.
        return absl::InvalidArgumentError(absl::StrCat(
            "serve: --token-file ", value,
            " is empty (omit the flag for a read-only dashboard)"));
      }
    } else if (name == "--page-size") {
      if (!absl::SimpleAtoi(value, &flags.page_size) || flags.page_size < 1 ||
          flags.page_size > 1000) {
        return absl::InvalidArgumentError("serve: --page-size in [1, 1000]");
      }
    } else if (name == "--lease-ttl") {
      if (!absl::ParseDuration(value, &flags.lease_ttl) ||
          flags.lease_ttl <= absl::ZeroDuration()) {
        return absl::InvalidArgumentError(
            "serve: --lease-ttl is a positive duration (10s, 1m)");
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "serve: unknown flag ", name,
          " (flags: --listen HOST:PORT, --token T, --token-file F, "
          "--page-size N, --lease-ttl D)"));
    }
  }
  return flags;
}

int RunDashboard(AdminStore* store, const ServeFlags& flags,
                 const std::vector<std::string>& secrets, std::ostream& out,
                 std::ostream& err) {
  // SIGINT and SIGTERM are taken by sigwait() below; blocked before the
  // server's threads start, so that none of them takes the signal.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  DashboardOptions options;
  options.host = flags.host;
  options.port = flags.port;
  options.token = flags.token;
  options.page_size = flags.page_size;
  options.stale_after = flags.lease_ttl;
  options.secrets = secrets;
  absl::StatusOr<std::unique_ptr<Dashboard>> dashboard =
      Dashboard::Start(store, options);
  if (!dashboard.ok()) {
    err << "twctl serve: "
        << durable_internal::ScrubSecrets(dashboard.status().message(), secrets)
        << "\n";
    return 1;
  }
  const bool v6 = flags.host.find(':') != std::string::npos;
  out << "twctl serve: listening on http://" << (v6 ? "[" : "") << flags.host
      << (v6 ? "]" : "") << ":" << (*dashboard)->port() << "/ ("
      << (flags.token.empty() ? "read-only: no --token"
                              : "actions need the token")
      << ")" << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  (*dashboard)->Stop();
  return 0;
}

}  // namespace twctl
}  // namespace timingwheel
