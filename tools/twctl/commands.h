// Copyright 2026 The timingwheel Authors.
//
// commands.h
// -----------------------------------------------------------------------------
//
// twctl's commands. Each prints its result (a table, or one JSON document
// with `--json`) and returns the exit code (cli.h). This file defines:
//
//   * `Context`: what a command runs with (the store, its arguments, where
//     to print).
//   * `Command`, `Commands()`, `FindCommand()`: the command table (name,
//     flags, one-line summary, usage), which `twctl help` prints.
//   * `Fail()`: prints an error (on stderr, and as JSON on stdout with
//     `--json`) and returns its exit code.
//   * `RunHelp()`.
// One file per command: status_command.cc, list_command.cc,
// show_command.cc, task_commands.cc (cancel, retry, reschedule),
// schedules_command.cc (schedules and the writes on one),
// migrate_command.cc. Tested end to end by tests/durable/twctl_test.cc.
//
// Thread safety: a command runs on the main thread only.

#ifndef TIMINGWHEEL_TOOLS_TWCTL_COMMANDS_H_
#define TIMINGWHEEL_TOOLS_TWCTL_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "durable/admin_store.h"
#include "tools/twctl/cli.h"

namespace timingwheel {
namespace twctl {

struct Context {
  AdminStore* admin = nullptr;  // Connected; null for `help`.
  const Args* args = nullptr;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
};

struct Command {
  const char* name;
  CommandSpec spec;
  const char* summary;  // One line.
  const char* usage;    // The synopsis and the flags, several lines.
  int (*run)(Context& context);
  bool needs_db = true;
};

// Commands()
//
// Every command, in the order `twctl help` lists them.
const std::vector<Command>& Commands();

// FindCommand()
//
// The command called `name`, or nullptr.
const Command* FindCommand(const std::string& name);

// Fail()
//
// Prints `status` ("twctl: <message>" on stderr; with --json also
// {"error":{"code":N,"status":"...","message":"..."}} on stdout) and
// returns `exit_code`, or `ExitCodeFor(status)` when it is negative.
int Fail(Context& context, const absl::Status& status, int exit_code = -1);

// KindFlag()
//
// `--kind K` of `args`: nullopt without it; K unescaped like ids (`\xNN`,
// `\\`) and checked by `CheckKindFilter()`; InvalidArgument ("--kind:
// ...", exit 1) for a bad escape or a bad kind.
absl::StatusOr<std::optional<std::string>> KindFlag(const Args& args);

// The commands.
int RunHelp(Context& context);
int RunStatus(Context& context);
int RunList(Context& context);
int RunShow(Context& context);
int RunCancel(Context& context);
int RunPauseSchedule(Context& context);
int RunResumeSchedule(Context& context);
int RunDeleteSchedule(Context& context);
int RunDiscard(Context& context);
int RunSchedules(Context& context);
int RunRetryFailed(Context& context);
int RunRetry(Context& context);
int RunReschedule(Context& context);
int RunMigrate(Context& context);
int RunVersion(Context& context);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_COMMANDS_H_
