// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_twctl.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/twctl/serve_command.h"

namespace timingwheel {
namespace twctl {

Command ServeCommand() {
  return {
      "serve",
      {{"listen", "token", "token-file", "page-size", "lease-ttl"}, {}, 0, 0},
      "the web dashboard: problems first, schedules, tasks, slots, failed "
      "tasks and Retry",
      "twctl serve [--listen HOST:PORT] [--token T | --token-file F]\n"
      "            [--page-size N] [--lease-ttl D]\n"
      "  --listen HOST:PORT  where to listen (default 127.0.0.1:8080; port 0:\n"
      "                      a free one, printed)\n"
      "  --token T           unlocks Retry, Cancel, Pause and Resume (POST,\n"
      "                      the token typed into the form or sent as\n"
      "                      X-Twctl-Token); without it the dashboard is\n"
      "                      read-only\n"
      "  --token-file F      the token from a file (kept out of `ps`)\n"
      "  --page-size N       rows per page (default 50, at most 1000)\n"
      "  --lease-ttl D       the schedulers' lease TTL (default 10s): a node\n"
      "                      whose heartbeat is older is shown stale\n"
      "  Refuses to start (exit 2, 4 or 6, as other commands) when the\n"
      "  database cannot be reached or has no store of this version, and\n"
      "  (exit 5) when it cannot listen on the address.\n"
      "  Runs until SIGINT or SIGTERM.\n",
      &RunServeCommand,
  };
}

int RunServeCommand(Context& context) {
  // Back to the flags' own form, parsed (and checked) in one place.
  std::vector<std::string> flags;
  for (const char* name :
       {"listen", "token", "token-file", "page-size", "lease-ttl"}) {
    std::optional<std::string> value = context.args->Value(name);
    if (value.has_value()) {
      flags.push_back(std::string("--") + name);
      flags.push_back(*value);
    }
  }
  absl::StatusOr<ServeFlags> parsed = ParseServeFlags(flags);
  if (!parsed.ok()) return Fail(context, parsed.status(), kExitUsage);
  // A dashboard whose every page would answer 503 is a deploy mistake to
  // show now (an unreachable database, a refused login, no schema or
  // another version), not after the operator opened a page. A database
  // lost later is shown on the pages until it is back.
  absl::StatusOr<absl::Time> reachable = context.admin->DbNow();
  if (!reachable.ok()) return Fail(context, reachable.status());
  const int code =
      RunDashboard(context.admin, *parsed, {}, *context.out, *context.err);
  // It could not listen (the address in use, or not this machine's): not a
  // database's failure.
  return code == 0 ? kExitOk : kExitOther;
}

}  // namespace twctl
}  // namespace timingwheel
