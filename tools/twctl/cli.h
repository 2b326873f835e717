// Copyright 2026 The timingwheel Authors.
//
// cli.h
// -----------------------------------------------------------------------------
//
// twctl's command line: the exit codes it promises, the parsed arguments of
// one run, and the time arguments (`--at`, `--due-before`, ...). This file
// defines:
//
//   * `ExitCode`: the stable exit codes (documented in durable/README.md).
//   * `ExitCodeFor()`: a status's exit code.
//   * `Args`, `CommandSpec`, `ParseArgs()`: `twctl [global flags] COMMAND
//     [flags] [ARG...]`, flags as `--name value` or `--name=value`, anywhere
//     after the command too; `--` ends the flags.
//   * `TimeArg`, `ParseTimeArg()`: RFC 3339 ("2026-12-02T10:00:00Z"), or
//     relative to the database's now ("+5m", "-1h30m", "now").
// Tested by tests/tools/twctl/cli_test.cc.
//
// Thread safety: plain values and pure functions.

#ifndef TIMINGWHEEL_TOOLS_TWCTL_CLI_H_
#define TIMINGWHEEL_TOOLS_TWCTL_CLI_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace twctl {

// ExitCode: what twctl's exit status means. Stable: scripts rely on it.
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,          // Bad command line (unknown command or flag, ...).
  kExitCannotConnect = 2,  // The database cannot be reached (or was lost).
  kExitNotFound = 3,       // No task with this id.
  kExitRefused = 4,        // Wrong state, or the store's schema refuses.
  kExitOther = 5,          // Anything else.
  kExitPermissionDenied = 6,  // The database refused the user a privilege.
};

// ExitCodeFor()
//
// OK -> 0, InvalidArgument -> 1, Unavailable -> 2, NotFound -> 3,
// FailedPrecondition -> 4, anything else -> 5.
int ExitCodeFor(const absl::Status& status);

// CommandSpec: the flags a command accepts besides the global ones
// (`--db`, `--json`, `--help`).
struct CommandSpec {
  std::set<std::string> value_flags;  // Take a value: "--limit 10".
  std::set<std::string> bool_flags;   // Stand alone: "--dry-run".
  int min_positional = 0;
  int max_positional = 0;
};

// Args: one parsed command line.
struct Args {
  std::string command;  // Empty: none given.
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // Flag name (no dashes) -> value.
  std::set<std::string> bools;
  bool json = false;
  bool help = false;
  std::optional<std::string> db;

  bool Has(const std::string& flag) const {
    return values.count(flag) > 0 || bools.count(flag) > 0;
  }
  std::optional<std::string> Value(const std::string& flag) const;
};

// ParseArgs()
//
// Parses `argv` (without the program name). `spec_for(command)` gives the
// command's spec, or nullopt for an unknown command. InvalidArgument
// (exit 1) for an unknown command or flag, a missing value, or the wrong
// number of arguments; never for `--help`/`help`.
absl::StatusOr<Args> ParseArgs(
    const std::vector<std::string>& argv,
    const std::function<std::optional<CommandSpec>(const std::string&)>&
        spec_for);

// TimeArg: an absolute time, or an offset from the database's now.
struct TimeArg {
  bool relative = false;
  absl::Duration offset;  // When relative.
  absl::Time at;          // When absolute.

  // The time it names, given the database's now.
  absl::Time Resolve(absl::Time db_now) const {
    return relative ? db_now + offset : at;
  }
};

// ParseTimeArg()
//
// "now", "+D" / "-D" (D an Abseil duration: "90s", "5m", "1h30m"), or an
// RFC 3339 time ("2026-12-02T10:00:00Z", "...+01:00", fractions allowed).
// InvalidArgument otherwise.
absl::StatusOr<TimeArg> ParseTimeArg(absl::string_view text);

// ParseDurationArg()
//
// A duration for `--in` ("5m", "+5m", "1h30m"); InvalidArgument otherwise.
absl::StatusOr<absl::Duration> ParseDurationArg(absl::string_view text);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_CLI_H_
