// Copyright 2026 The timingwheel Authors.
//
// twctl list: tasks by id, filtered, a page at a time.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tools/twctl/commands.h"
#include "tools/twctl/output.h"

namespace timingwheel {
namespace twctl {
namespace {

// The filter the flags describe; relative times against the database's now.
absl::StatusOr<TaskFilter> FilterFromFlags(Context& context) {
  const Args& args = *context.args;
  TaskFilter filter;
  if (std::optional<std::string> state = args.Value("state")) {
    filter.state = ParseTaskState(*state);
    if (!filter.state.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad --state \"", *state,
                       "\" (PENDING, SCHEDULED, RUNNING, SUCCESS or FAILED)"));
    }
  }
  std::optional<absl::Time> db_now;
  for (const char* flag : {"due-after", "due-before"}) {
    std::optional<std::string> text = args.Value(flag);
    if (!text.has_value()) continue;
    absl::StatusOr<TimeArg> t = ParseTimeArg(*text);
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": ", t.status().message()));
    }
    if (t->relative && !db_now.has_value()) {
      absl::StatusOr<absl::Time> now = context.admin->DbNow();
      if (!now.ok()) return now.status();
      db_now = *now;
    }
    const absl::Time at = t->Resolve(db_now.value_or(absl::UnixEpoch()));
    (std::string(flag) == "due-after" ? filter.due_after : filter.due_before) =
        at;
  }
  if (std::optional<std::string> prefix = args.Value("prefix")) {
    absl::StatusOr<std::string> bytes = UnescapeBytes(*prefix);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--prefix: ", bytes.status().message()));
    }
    filter.id_prefix = *bytes;
  }
  absl::StatusOr<std::optional<std::string>> kind = KindFlag(args);
  if (!kind.ok()) return kind.status();
  filter.kind = *kind;
  // Schedules' occurrences: left out unless asked for (--occurrences), or
  // alone for one schedule (--schedule), or named by --prefix.
  filter.occurrences = TaskFilter::Occurrences::kExclude;
  if (args.bools.count("occurrences") > 0 ||
      absl::StartsWith(filter.id_prefix, "\x1btw-schedule:")) {
    filter.occurrences = TaskFilter::Occurrences::kInclude;
  }
  if (std::optional<std::string> schedule = args.Value("schedule")) {
    if (!filter.id_prefix.empty()) {
      return absl::InvalidArgumentError(
          "--schedule and --prefix cannot be used together");
    }
    absl::StatusOr<std::string> name = UnescapeBytes(*schedule);
    if (!name.ok() || name->empty()) {
      return absl::InvalidArgumentError(
          "--schedule: a schedule's name (escaped as ids)");
    }
    filter.id_prefix =
        absl::StrCat("\x1btw-schedule:", name->size(), ":", *name, "@");
    filter.occurrences = TaskFilter::Occurrences::kOnly;
  }
  if (std::optional<std::string> after = args.Value("after")) {
    absl::StatusOr<std::string> bytes = UnescapeBytes(*after);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--after: ", bytes.status().message()));
    }
    filter.after_id = *bytes;
  }
  if (std::optional<std::string> limit = args.Value("limit")) {
    if (!absl::SimpleAtoi(*limit, &filter.limit) || filter.limit < 1 ||
        filter.limit > kMaxListLimit) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad --limit \"", *limit, "\" (1 to ", kMaxListLimit, ")"));
    }
  }
  return filter;
}

}  // namespace

int RunList(Context& context) {
  absl::StatusOr<TaskFilter> filter = FilterFromFlags(context);
  if (!filter.ok()) return Fail(context, filter.status());
  absl::StatusOr<TaskPage> page = context.admin->List(*filter);
  if (!page.ok()) return Fail(context, page.status());
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject().Key("tasks").BeginArray();
    for (const TaskSummary& t : page->tasks) {
      j.BeginObject();
      WriteBytesField(j, "id", t.id);
      j.Key("state")
          .String(TaskStateName(t.state))
          .Key("due")
          .Time(t.due)
          .Key("attempt")
          .Int(t.attempt)
          .Key("slot")
          .Int(t.slot)
          .Key("payload_bytes")
          .Int(t.payload_bytes)
          .Key("kind")
          .String(t.kind)
          .Key("priority")
          .Int(t.priority);
      const std::string occurrence = OccurrenceLabel(t.id);
      if (!occurrence.empty()) j.Key("occurrence").String(occurrence);
      j.EndObject();
    }
    j.EndArray().Key("more").Bool(page->more).Key("next_after");
    if (page->more) {
      j.String(EscapeBytes(page->next_after));
    } else {
      j.Null();
    }
    j.EndObject();
    *context.out << j.str() << "\n";
    return kExitOk;
  }
  // Occurrences of recurring schedules get a last column naming the
  // schedule and the instant (their ids stay as twctl takes them back).
  bool occurrences = false;
  for (const TaskSummary& t : page->tasks) {
    occurrences = occurrences || !OccurrenceLabel(t.id).empty();
  }
  std::vector<std::string> header = {"ID",      "STATE", "KIND",         "DUE",
                                     "ATTEMPT", "SLOT",  "PAYLOAD BYTES"};
  if (occurrences) header.push_back("OCCURRENCE OF");
  Table table(header);
  for (const TaskSummary& t : page->tasks) {
    std::vector<std::string> row = {EscapeBytes(t.id),
                                    TaskStateName(t.state),
                                    KindLabel(t.kind),
                                    UtcTime(t.due),
                                    absl::StrCat(t.attempt),
                                    absl::StrCat(t.slot),
                                    absl::StrCat(t.payload_bytes)};
    if (occurrences) {
      const std::string label = OccurrenceLabel(t.id);
      row.push_back(label.empty() ? "-" : label);
    }
    table.AddRow(row);
  }
  *context.out << table.Render();
  if (page->more) {
    // Quoted for a shell (an escaped id holds backslashes).
    std::string cursor = EscapeBytes(page->next_after);
    cursor = absl::StrReplaceAll(cursor, {{"'", "'\\''"}});
    *context.out << "more: next page with --after '" << cursor << "'\n";
  }
  return kExitOk;
}

}  // namespace twctl
}  // namespace timingwheel
