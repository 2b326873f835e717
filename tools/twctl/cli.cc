// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/cli.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace twctl {

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
      return kExitUsage;
    case absl::StatusCode::kUnavailable:
      return kExitCannotConnect;
    case absl::StatusCode::kNotFound:
      return kExitNotFound;
    case absl::StatusCode::kFailedPrecondition:
      return kExitRefused;
    case absl::StatusCode::kPermissionDenied:
      return kExitPermissionDenied;
    default:
      return kExitOther;
  }
}

std::optional<std::string> Args::Value(const std::string& flag) const {
  auto it = values.find(flag);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<Args> ParseArgs(
    const std::vector<std::string>& argv,
    const std::function<std::optional<CommandSpec>(const std::string&)>&
        spec_for) {
  Args args;
  std::optional<CommandSpec> spec;
  bool flags_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!flags_done && arg == "--") {
      flags_done = true;
      continue;
    }
    if (flags_done || !absl::StartsWith(arg, "--")) {
      if (args.command.empty()) {
        args.command = arg;
        spec = spec_for(arg);
        if (!spec.has_value()) {
          // The words other tools use for twctl's commands.
          static const auto* const kAliases =
              new std::map<std::string, std::string>{
                  {"get", "show"},      {"describe", "show"},
                  {"inspect", "show"},  {"ls", "list"},
                  {"delete", "cancel"}, {"remove", "cancel"},
                  {"rm", "cancel"},     {"stats", "status"},
                  {"info", "status"},   {"dashboard", "serve"}};
          auto alias = kAliases->find(arg);
          return absl::InvalidArgumentError(absl::StrCat(
              "unknown command \"", arg, "\"",
              alias != kAliases->end()
                  ? absl::StrCat(": did you mean `twctl ", alias->second, "`?")
                  : "",
              " (see twctl help)"));
        }
      } else {
        args.positional.push_back(arg);
      }
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto take_value = [&]() -> absl::StatusOr<std::string> {
      if (value.has_value()) return *value;
      if (i + 1 >= argv.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      }
      return argv[++i];
    };
    auto no_value = [&]() -> absl::Status {
      if (value.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " takes no value"));
      }
      return absl::OkStatus();
    };
    if (name == "version" && args.command.empty()) {
      absl::Status status = no_value();
      if (!status.ok()) return status;
      args.command = "version";
    } else if (name == "json" || name == "help") {
      absl::Status status = no_value();
      if (!status.ok()) return status;
      (name == "json" ? args.json : args.help) = true;
    } else if (name == "db") {
      absl::StatusOr<std::string> v = take_value();
      if (!v.ok()) return v.status();
      args.db = *v;
    } else if (spec.has_value() && spec->value_flags.count(name) > 0) {
      absl::StatusOr<std::string> v = take_value();
      if (!v.ok()) return v.status();
      args.values[name] = *v;
    } else if (spec.has_value() && spec->bool_flags.count(name) > 0) {
      absl::Status status = no_value();
      if (!status.ok()) return status;
      args.bools.insert(name);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown flag --", name,
          args.command.empty() ? "" : absl::StrCat(" for ", args.command),
          " (see twctl help",
          args.command.empty() ? "" : absl::StrCat(" ", args.command), ")"));
    }
  }
  if (args.help || args.command.empty() || args.command == "help") {
    return args;
  }
  const int n = static_cast<int>(args.positional.size());
  if (n < spec->min_positional || n > spec->max_positional) {
    return absl::InvalidArgumentError(absl::StrCat(
        args.command, " takes ",
        spec->min_positional == spec->max_positional
            ? absl::StrCat(spec->min_positional)
            : absl::StrCat(spec->min_positional, " to ", spec->max_positional),
        " argument", spec->max_positional == 1 ? "" : "s", ", not ", n,
        " (see twctl help ", args.command, ")"));
  }
  return args;
}

absl::StatusOr<absl::Duration> ParseDurationArg(absl::string_view text) {
  absl::string_view d = text;
  if (absl::StartsWith(d, "+")) d.remove_prefix(1);
  absl::Duration out;
  if (d.empty() || absl::StartsWith(d, "-") || absl::StartsWith(d, "+") ||
      !absl::ParseDuration(d, &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad duration \"", text, "\" (use e.g. 90s, 5m, 1h30m)"));
  }
  return out;
}

absl::StatusOr<TimeArg> ParseTimeArg(absl::string_view text) {
  TimeArg arg;
  if (text == "now") {
    arg.relative = true;
    return arg;
  }
  if (absl::StartsWith(text, "+") || absl::StartsWith(text, "-")) {
    absl::string_view d = text.substr(1);
    absl::Duration offset;
    if (!d.empty() && !absl::StartsWith(d, "-") && !absl::StartsWith(d, "+") &&
        absl::ParseDuration(d, &offset)) {
      arg.relative = true;
      arg.offset = text[0] == '-' ? -offset : offset;
      return arg;
    }
  } else {
    std::string error;
    if (absl::ParseTime(absl::RFC3339_full, std::string(text), &arg.at,
                        &error)) {
      return arg;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "bad time \"", text,
      "\" (use RFC 3339 like 2026-12-02T10:00:00Z, or +5m, -1h, now)"));
}

}  // namespace twctl
}  // namespace timingwheel
