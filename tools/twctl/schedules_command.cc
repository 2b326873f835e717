// Copyright 2026 The timingwheel Authors.
//
// twctl schedules: the recurring schedules and their next runs; and
// pause-schedule, resume-schedule, delete-schedule: the writes on one.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tools/twctl/commands.h"
#include "tools/twctl/output.h"

namespace timingwheel {
namespace twctl {
namespace {

// An instant, or "-" (JSON null) for none.
std::string WhenOrDash(absl::Time t) {
  return t == absl::InfiniteFuture() || t == absl::InfinitePast() ? "-"
                                                                  : UtcTime(t);
}

void TimeOrNull(JsonWriter& j, absl::Time t) {
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast()) {
    j.Null();
  } else {
    j.Time(t);
  }
}

// Runs `write` on the schedule named by the argument (unescaped as ids)
// and prints what it did: `done` ("paused"), or not_found (exit 3).
template <typename Write>
int WriteSchedule(Context& context, const char* done, const Write& write) {
  absl::StatusOr<std::string> name = UnescapeBytes(context.args->positional[0]);
  if (!name.ok()) {
    return Fail(context, absl::InvalidArgumentError(absl::StrCat(
                             "a schedule's name (escaped as ids): ",
                             name.status().message())));
  }
  absl::Status status = write(*name);
  const bool found = !absl::IsNotFound(status);
  if (!status.ok() && found) return Fail(context, status);
  const std::string message = found ? done : "no schedule with this name";
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject();
    WriteBytesField(j, "name", *name);
    j.Key("outcome").String(found ? "done" : "not_found");
    j.Key("message").String(message).EndObject();
    *context.out << j.str() << "\n";
  } else {
    (found ? *context.out : *context.err)
        << (found ? "" : "twctl: ") << EscapeBytes(*name) << ": " << message
        << "\n";
  }
  return found ? kExitOk : kExitNotFound;
}

}  // namespace

int RunPauseSchedule(Context& context) {
  return WriteSchedule(context, "paused (its waiting occurrences deleted)",
                       [&](const std::string& name) {
                         return context.admin->PauseSchedule(name);
                       });
}

int RunResumeSchedule(Context& context) {
  return WriteSchedule(context, "resumed", [&](const std::string& name) {
    return context.admin->ResumeSchedule(name);
  });
}

int RunDeleteSchedule(Context& context) {
  return WriteSchedule(context, "deleted (with its waiting occurrences)",
                       [&](const std::string& name) -> absl::Status {
                         absl::StatusOr<bool> deleted =
                             context.admin->DeleteSchedule(name);
                         if (!deleted.ok()) return deleted.status();
                         if (!*deleted)
                           return absl::NotFoundError("no such schedule");
                         return absl::OkStatus();
                       });
}

int RunSchedules(Context& context) {
  absl::StatusOr<std::vector<ScheduleInfo>> schedules =
      context.admin->Schedules();
  if (!schedules.ok()) return Fail(context, schedules.status());
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject().Key("schedules").BeginArray();
    for (const ScheduleInfo& s : *schedules) {
      j.BeginObject();
      WriteBytesField(j, "name", s.definition.name);
      j.Key("kind").String(s.definition.kind);
      j.Key("spec").String(s.spec).Key("paused").Bool(s.paused).Key("next_run");
      TimeOrNull(j, s.next_run);
      j.Key("last_run");
      TimeOrNull(j, s.last_run);
      j.Key("payload_bytes")
          .Int(static_cast<int64_t>(s.definition.payload.size()))
          .EndObject();
    }
    j.EndArray().EndObject();
    *context.out << j.str() << "\n";
    return kExitOk;
  }
  Table table({"NAME", "KIND", "SPEC", "PAUSED", "NEXT RUN", "LAST RUN"});
  for (const ScheduleInfo& s : *schedules) {
    table.AddRow({EscapeBytes(s.definition.name),
                  s.definition.kind.empty() ? "-" : s.definition.kind, s.spec,
                  s.paused ? "yes" : "no", WhenOrDash(s.next_run),
                  WhenOrDash(s.last_run)});
  }
  *context.out << table.Render();
  return kExitOk;
}

}  // namespace twctl
}  // namespace timingwheel
