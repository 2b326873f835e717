// Copyright 2026 The timingwheel Authors.
//
// twctl: see and steer timingwheel's durable tier without SQL.
//
//   bazel run //tools/twctl:twctl -- --db 'host=/run/postgresql dbname=app'
//   status
//
// Parses the command line, connects (the connection string from --db or
// $TIMINGWHEEL_DB) and runs one command (commands.h). Exit codes: cli.h.

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "durable/admin_store.h"
#include "durable/sql/pooler_probe.h"
#include "tools/twctl/cli.h"
#include "tools/twctl/commands.h"

namespace timingwheel {
namespace twctl {
namespace {

std::optional<CommandSpec> SpecFor(const std::string& name) {
  const Command* c = FindCommand(name);
  if (c == nullptr) return std::nullopt;
  return c->spec;
}

int Main(const std::vector<std::string>& argv) {
  Context context;
  context.out = &std::cout;
  context.err = &std::cerr;
  absl::StatusOr<Args> args = ParseArgs(argv, SpecFor);
  if (!args.ok()) {
    Args json_only;  // Still answer in JSON if it was asked for.
    json_only.json =
        std::find(argv.begin(), argv.end(), "--json") != argv.end();
    context.args = &json_only;
    return Fail(context, args.status(), kExitUsage);
  }
  context.args = &*args;
  const Command* command = FindCommand(args->command);
  if (command == nullptr || args->help || command->run == &RunHelp) {
    const int code = RunHelp(context);
    // No command at all is a usage error (after printing the help).
    return args->command.empty() && !args->help ? kExitUsage : code;
  }
  if (!command->needs_db) return command->run(context);  // `version`.
  std::string conninfo;
  if (args->db.has_value()) {
    conninfo = *args->db;
  } else if (const char* env = std::getenv("TIMINGWHEEL_DB")) {
    conninfo = env;
  } else {
    return Fail(context,
                absl::InvalidArgumentError(
                    "no database: pass --db CONNINFO or set TIMINGWHEEL_DB "
                    "(under .ci/with-postgres: --db \"$TIMINGWHEEL_PG\")"),
                kExitUsage);
  }
  // Before anything is set on a session: a transaction pooler would hand
  // twctl's session settings to its other clients.
  absl::Status direct = durable_internal::CheckNotPooled(conninfo, "twctl");
  if (!direct.ok()) return Fail(context, direct, kExitCannotConnect);
  auto admin = AdminStore::Connect(conninfo);
  if (!admin.ok()) return Fail(context, admin.status(), kExitCannotConnect);
  context.admin = admin->get();
  return command->run(context);
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel

int main(int argc, char** argv) {
  return timingwheel::twctl::Main(
      std::vector<std::string>(argv + 1, argv + argc));
}
