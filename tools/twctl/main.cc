// Copyright 2026 The timingwheel Authors.
//
// twctl: see and steer timingwheel's durable tier without SQL.
//
//   bazel run //tools/twctl:twctl -- --db 'host=/run/postgresql dbname=app'
//   status
//
// Parses the command line, connects (the connection string from --db or
// $TIMINGWHEEL_DB) and runs one command (commands.h). Exit codes: cli.h.

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/admin_store.h"
#include "tools/twctl/cli.h"
#include "tools/twctl/commands.h"

int main(int argc, char** argv) {
  using namespace timingwheel::twctl;  // NOLINT: the tool's own namespace.
  std::vector<std::string> argv_list(argv + 1, argv + argc);
  Context context;
  context.out = &std::cout;
  context.err = &std::cerr;
  absl::StatusOr<Args> args = ParseArgs(
      argv_list, [](const std::string& name) -> std::optional<CommandSpec> {
        const Command* c = FindCommand(name);
        if (c == nullptr) return std::nullopt;
        return c->spec;
      });
  if (!args.ok()) {
    std::cerr << "twctl: " << args.status().message() << "\n";
    return kExitUsage;
  }
  context.args = &*args;
  const Command* command = FindCommand(args->command);
  if (command == nullptr || args->help || !command->needs_db) {
    const int code = RunHelp(context);
    // No command at all is a usage error (after printing the help).
    return args->command.empty() && !args->help ? kExitUsage : code;
  }
  std::string conninfo;
  if (args->db.has_value()) {
    conninfo = *args->db;
  } else if (const char* env = std::getenv("TIMINGWHEEL_DB")) {
    conninfo = env;
  } else {
    return Fail(context,
                absl::InvalidArgumentError(
                    "no database: pass --db CONNINFO or set TIMINGWHEEL_DB"),
                kExitUsage);
  }
  auto admin = timingwheel::AdminStore::Connect(conninfo);
  if (!admin.ok()) return Fail(context, admin.status(), kExitCannotConnect);
  context.admin = admin->get();
  return command->run(context);
}
