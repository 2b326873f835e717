// Copyright 2026 The timingwheel Authors.
//
// twctl show ID: one task in detail.

#include <string>

#include "absl/strings/str_cat.h"
#include "tools/twctl/commands.h"
#include "tools/twctl/output.h"

namespace timingwheel {
namespace twctl {
namespace {

// The bytes of an error a table cell shows (`--json` has it whole).
constexpr size_t kErrorCellBytes = 60;

void WriteAttempts(JsonWriter& j, const TaskDetail& d) {
  j.Key("attempts_total").Int(d.attempts_total).Key("attempts").BeginArray();
  for (const AttemptRecord& a : d.attempts) {
    j.BeginObject()
        .Key("attempt")
        .Int(a.attempt)
        .Key("outcome")
        .String(AttemptOutcomeName(a.outcome))
        .Key("node_id")
        .String(a.node_id)
        .Key("started")
        .Time(a.started)
        .Key("finished")
        .Time(a.finished)
        .Key("duration_ms")
        .Int(absl::ToInt64Milliseconds(a.finished - a.started));
    // The whole error: escaped, and exact as error_hex; null for none.
    if (a.error.empty()) {
      j.Key("error").Null();
    } else {
      WriteBytesField(j, "error", a.error);
    }
    j.EndObject();
  }
  j.EndArray();
}

std::string AttemptsTable(const TaskDetail& d) {
  if (d.attempts.empty()) {
    return "attempts: none recorded\n";
  }
  std::string out =
      d.attempts_total > static_cast<int64_t>(d.attempts.size())
          ? absl::StrCat("attempts: the newest ", d.attempts.size(), " of ",
                         d.attempts_total, "\n")
          : absl::StrCat("attempts: ", d.attempts_total, "\n");
  Table table({"ATTEMPT", "OUTCOME", "NODE", "STARTED", "FINISHED", "DURATION",
               "ERROR"});
  for (const AttemptRecord& a : d.attempts) {
    table.AddRow(
        {absl::StrCat(a.attempt), AttemptOutcomeName(a.outcome),
         EscapeBytes(a.node_id), UtcTime(a.started), UtcTime(a.finished),
         FormatAge(a.finished - a.started),
         a.error.empty() ? "-" : TruncatedBytes(a.error, kErrorCellBytes)});
  }
  return out + table.Render();
}

}  // namespace

int RunShow(Context& context) {
  absl::StatusOr<std::string> id = UnescapeBytes(context.args->positional[0]);
  if (!id.ok()) return Fail(context, id.status());
  absl::StatusOr<TaskDetail> d = context.admin->Show(*id);
  if (!d.ok()) {
    if (absl::IsNotFound(d.status())) {
      return Fail(context, absl::NotFoundError(absl::StrCat("no task with id ",
                                                            EscapeBytes(*id))));
    }
    return Fail(context, d.status());
  }
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject();
    WriteBytesField(j, "id", d->id);
    if (const std::string of = OccurrenceLabel(d->id); !of.empty()) {
      j.Key("occurrence").String(of);
    }
    j.Key("state")
        .String(TaskStateName(d->state))
        .Key("attempt")
        .Int(d->attempt)
        .Key("due")
        .Time(d->due)
        .Key("slot")
        .Int(d->slot)
        .Key("version")
        .Int(d->version)
        .Key("epoch")
        .Int(d->epoch)
        .Key("payload_bytes")
        .Int(d->payload_bytes)
        .Key("kind")
        .String(d->kind)
        .Key("priority")
        .Int(d->priority);
    WriteBytesField(j, "payload_head", d->payload_head);
    j.Key("last_error");
    if (d->last_error.has_value()) {
      j.String(EscapeBytes(*d->last_error));
    } else {
      j.Null();
    }
    j.Key("finished");
    if (d->finished.has_value()) {
      j.Time(*d->finished);
    } else {
      j.Null();
    }
    j.Key("slot_owner");
    if (d->slot_owner.empty()) {
      j.Null();
    } else {
      j.String(d->slot_owner);
    }
    j.Key("slot_epoch")
        .Int(d->slot_epoch)
        .Key("slot_lease_valid")
        .Bool(d->slot_lease_valid)
        .Key("slot_lease_until")
        .Time(d->slot_lease_until)
        .Key("db_now")
        .Time(d->db_now);
    WriteAttempts(j, *d);
    j.EndObject();
    *context.out << j.str() << "\n";
    return kExitOk;
  }
  Table table({});
  table.AddRow({"id", EscapeBytes(d->id)});
  if (const std::string of = OccurrenceLabel(d->id); !of.empty()) {
    table.AddRow({"occurrence of", of});
  }
  table.AddRow({"state", TaskStateName(d->state)});
  table.AddRow({"kind", d->kind.empty() ? "- (the default kind)"
                                        : EscapeBytes(d->kind)});
  table.AddRow({"priority", absl::StrCat(d->priority)});
  table.AddRow({"attempt", absl::StrCat(d->attempt, " started")});
  const absl::Duration until = d->due - d->db_now;
  table.AddRow(
      {"due", absl::StrCat(UtcTime(d->due), " (",
                           until >= absl::ZeroDuration()
                               ? absl::StrCat("in ", FormatAge(until))
                               : absl::StrCat(FormatAge(-until), " ago"),
                           ")")});
  table.AddRow({"version", absl::StrCat(d->version)});
  table.AddRow({"epoch", absl::StrCat(d->epoch)});
  table.AddRow(
      {"payload",
       absl::StrCat(d->payload_bytes, " bytes: ", EscapeBytes(d->payload_head),
                    d->payload_bytes > kShowPayloadBytes ? "..." : "")});
  table.AddRow({"last error",
                d->last_error.has_value() ? EscapeBytes(*d->last_error) : "-"});
  table.AddRow(
      {"finished", d->finished.has_value() ? UtcTime(*d->finished) : "-"});
  table.AddRow(
      {"slot",
       absl::StrCat(
           d->slot, ", owner ",
           d->slot_owner.empty() ? "(none)" : EscapeBytes(d->slot_owner),
           ", epoch ", d->slot_epoch, ", lease ",
           d->slot_lease_valid
               ? absl::StrCat("valid until ", UtcTime(d->slot_lease_until))
               : "not valid")});
  *context.out << table.Render() << "\n" << AttemptsTable(*d);
  return kExitOk;
}

}  // namespace twctl
}  // namespace timingwheel
