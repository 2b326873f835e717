// Copyright 2026 The timingwheel Authors.
//
// twctl schedules: the recurring schedules and their next runs.

#include <string>
#include <vector>

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

}  // namespace

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
  Table table({"NAME", "SPEC", "PAUSED", "NEXT RUN", "LAST RUN"});
  for (const ScheduleInfo& s : *schedules) {
    table.AddRow({EscapeBytes(s.definition.name), s.spec,
                  s.paused ? "yes" : "no", WhenOrDash(s.next_run),
                  WhenOrDash(s.last_run)});
  }
  *context.out << table.Render();
  return kExitOk;
}

}  // namespace twctl
}  // namespace timingwheel
