// Copyright 2026 The timingwheel Authors.
//
// The command table, help, and error printing.

#include "tools/twctl/commands.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tools/twctl/output.h"
#include "tools/twctl/serve_twctl.h"

namespace timingwheel {
namespace twctl {

const std::vector<Command>& Commands() {
  static const std::vector<Command>* commands = new std::vector<Command>{
      {"status",
       {{"lease-ttl"}, {"all-slots"}, 0, 0},
       "problems first (stale nodes, slots without a lease, overdue and "
       "failing kinds), then nodes, slot owners, tasks by state, task kinds",
       "twctl status [--all-slots] [--lease-ttl D]\n"
       "  --all-slots   one row per slot (owner, epoch, lease) instead of a\n"
       "                summary per owner\n"
       "  --lease-ttl D the schedulers' lease TTL (default 10s): a node whose\n"
       "                heartbeat is older is reported stale\n"
       "  PROBLEMS comes first: stale nodes, slots without a valid lease and\n"
       "  who last held them, overdue tasks by kind, kinds with FAILED\n"
       "  tasks, kinds nobody registered. `twctl serve`'s overview shows the\n"
       "  same figures (one computation).\n"
       "  The kinds table: every registered kind (the node that last\n"
       "  confirmed it, when) and every kind tasks carry, with its\n"
       "  unfinished tasks;\n"
       "  a kind with tasks that no scheduler registered says so.\n",
       &RunStatus},
      {"list",
       {{"state", "due-before", "due-after", "prefix", "kind", "limit", "after",
         "schedule"},
        {"occurrences"},
        0,
        0},
       "tasks by id, filtered, a page at a time",
       "twctl list [--state S] [--due-after T] [--due-before T] [--prefix P]\n"
       "           [--kind K] [--limit N] [--after ID] [--occurrences]\n"
       "           [--schedule NAME]\n"
       "  --state S       PENDING, SCHEDULED, RUNNING, SUCCESS or FAILED\n"
       "  --due-after T   due at or after T; --due-before T: due before T\n"
       "                  (T: RFC 3339 like 2026-12-02T10:00:00Z, or +5m,\n"
       "                  -1h, now: relative to the database's clock)\n"
       "  --prefix P      ids starting with the bytes P (escaped as ids)\n"
       "  --kind K        tasks of kind K only (exact; --kind= for the\n"
       "                  default kind, shown as - in the KIND column; at\n"
       "                  most 128 bytes of UTF-8, no control characters)\n"
       "  --limit N       at most N tasks (default 100, at most 10000)\n"
       "  --after ID      the page after ID (the next page's --after is\n"
       "                  printed when there is one)\n"
       "  Recurring schedules' occurrences are left out unless asked:\n"
       "  --occurrences   list them with the other tasks\n"
       "  --schedule NAME only the occurrences of schedule NAME\n",
       &RunList},
      {"show",
       {{}, {}, 1, 1},
       "one task in detail: state, kind, priority, attempt history, last "
       "error, payload, slot owner",
       "twctl show ID\n"
       "  The attempts table lists the newest 100 recorded attempts, oldest\n"
       "  first (ATTEMPT, OUTCOME, NODE, STARTED, FINISHED, DURATION, ERROR\n"
       "  cut to 60 bytes); --json has every error whole and the total.\n",
       &RunShow},
      {"cancel",
       {{}, {}, 1, 1},
       "delete a PENDING or SCHEDULED task",
       "twctl cancel ID\n"
       "  A RUNNING task cannot be cancelled (exit 4), nor a finished one.\n",
       &RunCancel},
      {"schedules",
       {{}, {}, 0, 0},
       "the recurring schedules and their next runs",
       "twctl schedules\n"
       "  NAME, KIND (- the default), SPEC (the interval or the cron\n"
       "  expression and zone), PAUSED, NEXT RUN, LAST RUN; --json for\n"
       "  scripts.\n",
       &RunSchedules},
      {"pause-schedule",
       {{}, {}, 1, 1},
       "pause a recurring schedule (its waiting occurrences are deleted)",
       "twctl pause-schedule NAME\n"
       "  A running occurrence finishes; none is written until it is "
       "resumed.\n"
       "  An unknown NAME exits 3.\n",
       &RunPauseSchedule},
      {"resume-schedule",
       {{}, {}, 1, 1},
       "resume a paused recurring schedule",
       "twctl resume-schedule NAME\n"
       "  Writes the occurrences due now, as the schedule's catch-up policy\n"
       "  says for the runs missed while paused. An unknown NAME exits 3.\n",
       &RunResumeSchedule},
      {"delete-schedule",
       {{}, {}, 1, 1},
       "delete a recurring schedule and its waiting occurrences",
       "twctl delete-schedule NAME\n"
       "  A running occurrence finishes, and its outcome stays. An unknown\n"
       "  NAME exits 3.\n",
       &RunDeleteSchedule},
      {"discard",
       {{}, {}, 1, 1},
       "delete a FAILED task (a dead letter dealt with)",
       "twctl discard ID\n"
       "  Any other state is refused (exit 4).\n",
       &RunDiscard},
      {"retry-failed",
       {{"prefix", "kind", "at"}, {}, 0, 0},
       "run every FAILED task again (whose id starts with --prefix, of "
       "--kind)",
       "twctl retry-failed [--prefix P] [--kind K] [--at T]\n"
       "  --prefix P   only ids starting with P (bytes, \\xNN escapes)\n"
       "  --kind K     only tasks of kind K (exact; --kind= the default kind)\n"
       "  --at T       due at T (RFC 3339, or +5m); default: now\n",
       &RunRetryFailed},
      {"retry",
       {{"at"}, {}, 1, 1},
       "run a FAILED task again, attempts reset",
       "twctl retry ID [--at T]\n"
       "  --at T   due at T (RFC 3339, or +5m relative to the database's\n"
       "           clock); default: now\n",
       &RunRetry},
      {"reschedule",
       {{"at", "in"}, {}, 1, 1},
       "move a PENDING or SCHEDULED task to another due time",
       "twctl reschedule ID --at T | --in D\n"
       "  --at T   the new due time (RFC 3339, or +5m)\n"
       "  --in D   due D after the database's now (90s, 5m, 1h30m)\n"
       "  The task is PENDING afterwards; if its owner held it in its wheel,\n"
       "  that entry is refused when it fires, and the owner loads the task\n"
       "  again at its new time. A RUNNING or finished task is refused "
       "(exit 4).\n",
       &RunReschedule},
      {"migrate",
       {{"slot-count"}, {"dry-run"}, 0, 0},
       "create the schema, or bring it to this twctl's version (twctl "
       "version)",
       "twctl migrate [--dry-run] [--slot-count N]\n"
       "  --dry-run        print the SQL that would run, change nothing\n"
       "  --slot-count N   slots of a new store (default 1024); ignored for\n"
       "                   an existing one\n",
       &RunMigrate},
      {"version",
       {{}, {}, 0, 0},
       "the schema version this twctl creates and understands",
       "twctl version (also: twctl --version)\n",
       &RunVersion,
       /*needs_db=*/false},
      ServeCommand(),
      {"help",
       {{}, {}, 0, 1},
       "this text, or one command's",
       "twctl help [COMMAND]\n",
       &RunHelp,
       /*needs_db=*/false},
  };
  return *commands;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

namespace {

constexpr char kHelpHeader[] =
    "twctl: see and steer timingwheel's durable tier (PostgreSQL)\n"
    "\n"
    "usage: twctl [--db CONNINFO] [--json] COMMAND [FLAGS] [ARGS]\n"
    "  --db CONNINFO   a libpq connection string or URI (default: the\n"
    "                  TIMINGWHEEL_DB environment variable)\n"
    "  --json          one JSON document on stdout instead of a table\n"
    "\n"
    "commands:\n";

constexpr char kHelpFooter[] =
    "\n"
    "Task ids are bytes: printable ASCII is shown as-is, a backslash as \\\\,\n"
    "any other byte as \\xNN; ids given as arguments use the same form.\n"
    "\n"
    "exit codes: 0 ok, 1 usage error, 2 cannot connect to the database,\n"
    "3 not found, 4 wrong state or refused, 5 other error, 6 permission\n"
    "denied by the database (the message names the user and the fix).\n";

}  // namespace

int RunHelp(Context& context) {
  std::ostream& out = *context.out;
  const Args& args = *context.args;
  std::string topic;
  if (!args.positional.empty()) {
    topic = args.positional[0];
  } else if (args.command != "help") {
    topic = args.command;
  }
  if (!topic.empty()) {
    const Command* c = FindCommand(topic);
    if (c == nullptr) {
      return Fail(context, absl::InvalidArgumentError(absl::StrCat(
                               "unknown command \"", topic, "\"")));
    }
    out << c->summary << "\n\nusage: " << c->usage;
    return kExitOk;
  }
  out << kHelpHeader;
  // The summaries start in one column, two spaces past the longest name.
  size_t width = 0;
  for (const Command& c : Commands()) {
    width = std::max(width, std::strlen(c.name));
  }
  for (const Command& c : Commands()) {
    std::string name = c.name;
    name.resize(width + 2, ' ');
    out << "  " << name << c.summary << "\n";
  }
  out << kHelpFooter;
  return kExitOk;
}

absl::StatusOr<std::optional<std::string>> KindFlag(const Args& args) {
  std::optional<std::string> kind = args.Value("kind");
  if (!kind.has_value()) return std::optional<std::string>();
  // Escaped like ids (so that what `list` prints can be pasted back), then
  // checked before anything is read.
  absl::StatusOr<std::string> bytes = UnescapeBytes(*kind);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kind: ", bytes.status().message()));
  }
  absl::Status valid = CheckKindFilter(*bytes);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kind: ", valid.message()));
  }
  return std::optional<std::string>(*bytes);
}

int Fail(Context& context, const absl::Status& status, int exit_code) {
  const int code = exit_code >= 0 ? exit_code : ExitCodeFor(status);
  *context.err << "twctl: " << status.message() << "\n";
  if (context.args != nullptr && context.args->json) {
    JsonWriter j;
    j.BeginObject()
        .Key("error")
        .BeginObject()
        .Key("code")
        .Int(code)
        .Key("status")
        .String(absl::StatusCodeToString(status.code()))
        .Key("message")
        .String(status.message())
        .EndObject()
        .EndObject();
    *context.out << j.str() << "\n";
  }
  return code;
}

}  // namespace twctl
}  // namespace timingwheel
