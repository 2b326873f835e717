// Copyright 2026 The timingwheel Authors.
//
// twctl status: the store at a glance.

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "tools/twctl/commands.h"
#include "tools/twctl/output.h"
#include "tools/twctl/status_summary.h"

namespace timingwheel {
namespace twctl {
namespace {

void PrintJson(Context& context, const StoreStatus& s,
               const StatusSummary& sum) {
  JsonWriter j;
  j.BeginObject();
  j.Key("target").String(context.admin->Target());
  j.Key("db_now").Time(s.db_now);
  j.Key("schema_version").Int(s.schema_version);
  j.Key("slot_count").Int(s.slot_count);
  j.Key("counts").BeginObject();
  for (int i = 0; i < kTaskStateCount; ++i) {
    j.Key(TaskStateName(static_cast<TaskState>(i))).Int(s.counts[i]);
  }
  j.EndObject();
  j.Key("next_due");
  if (s.next_due.has_value()) {
    j.BeginObject()
        .Key("due")
        .Time(*s.next_due)
        .Key("id")
        .String(EscapeBytes(s.next_due_id))
        .Key("id_hex")
        .String(HexBytes(s.next_due_id))
        .EndObject();
  } else {
    j.Null();
  }
  j.Key("overdue").BeginObject().Key("count").Int(s.overdue);
  if (s.oldest_overdue_due.has_value()) {
    j.Key("oldest_due")
        .Time(*s.oldest_overdue_due)
        .Key("oldest_id")
        .String(EscapeBytes(s.oldest_overdue_id))
        .Key("oldest_id_hex")
        .String(HexBytes(s.oldest_overdue_id));
  }
  j.EndObject();
  j.Key("slots_unowned").Int(s.slots_unowned);
  j.Key("task_table")
      .BeginObject()
      .Key("bytes")
      .Int(s.task_table_bytes)
      .Key("updates")
      .Int(s.task_updates)
      .Key("hot_updates")
      .Int(s.task_hot_updates)
      .EndObject();
  j.Key("nodes").BeginArray();
  for (const AdminNode& n : s.nodes) {
    j.BeginObject()
        .Key("node_id")
        .String(n.node_id)
        .Key("heartbeat")
        .Time(n.heartbeat)
        .Key("since_heartbeat_ms")
        .Int(absl::ToInt64Milliseconds(n.since_heartbeat))
        .Key("slots_held")
        .Int(n.slots_held)
        .EndObject();
  }
  j.EndArray();
  j.Key("slots").BeginArray();
  for (const AdminSlot& slot : s.slots) {
    j.BeginObject().Key("slot").Int(slot.slot).Key("owner");
    if (slot.owner.empty()) {
      j.Null();
    } else {
      j.String(slot.owner);
    }
    j.Key("epoch")
        .Int(slot.epoch)
        .Key("lease_until")
        .Time(slot.lease_until)
        .Key("lease_valid")
        .Bool(slot.lease_valid)
        .Key("horizon_ms")
        .Int(absl::ToInt64Milliseconds(slot.horizon))
        .EndObject();
  }
  j.EndArray();
  j.Key("problems").BeginObject().Key("healthy").Bool(sum.healthy());
  j.Key("stale_after_ms").Int(absl::ToInt64Milliseconds(sum.stale_after));
  j.Key("stale_nodes").BeginArray();
  for (const StaleNode& n : sum.stale_nodes) {
    j.BeginObject()
        .Key("node_id")
        .String(n.node_id)
        .Key("since_heartbeat_ms")
        .Int(absl::ToInt64Milliseconds(n.since_heartbeat))
        .Key("slots_held")
        .Int(n.slots_held)
        .EndObject();
  }
  j.EndArray().Key("slots_without_lease").Int(sum.slots_without_lease);
  j.Key("overdue_kinds").BeginObject();
  for (const AdminKind& k : sum.overdue_kinds) j.Key(k.kind).Int(k.overdue);
  j.EndObject().Key("failing_kinds").BeginObject();
  for (const AdminKind& k : sum.failing_kinds) {
    j.Key(k.kind).Int(k.counts[static_cast<int>(TaskState::kFailed)]);
  }
  j.EndObject().EndObject();
  j.Key("owners").BeginArray();
  for (const OwnerSlots& o : sum.owners) {
    j.BeginObject().Key("owner");
    if (o.owner.empty()) {
      j.Null();
    } else {
      j.String(o.owner);
    }
    j.Key("valid")
        .Int(o.valid)
        .Key("lapsed")
        .Int(o.lapsed)
        .Key("stale")
        .Bool(o.stale)
        .EndObject();
  }
  j.EndArray();
  j.Key("kinds").BeginArray();
  for (const AdminKind& k : s.kinds) {
    j.BeginObject()
        .Key("kind")
        .String(k.kind)
        .Key("registered")
        .Bool(k.registered);
    if (k.registered) {
      j.Key("node_id")
          .String(k.node_id)
          .Key("registered_at")
          .Time(k.registered_at);
    }
    j.Key("unfinished").Int(k.unfinished()).Key("counts").BeginObject();
    for (int i = 0; i < kTaskStateCount; ++i) {
      j.Key(TaskStateName(static_cast<TaskState>(i))).Int(k.counts[i]);
    }
    j.EndObject()
        .Key("overdue")
        .Int(k.overdue)
        .Key("succeeded_5m")
        .Int(k.succeeded_recently)
        .Key("failed_5m")
        .Int(k.failed_recently)
        .EndObject();
  }
  j.EndArray();
  j.EndObject();
  *context.out << j.str() << "\n";
}

// Every kind: who registered it, its unfinished tasks by state.
void PrintKinds(std::ostream& out, const StoreStatus& s) {
  Table kinds({"KIND", "REGISTERED BY", "REGISTERED", "PENDING", "SCHEDULED",
               "RUNNING", "OVERDUE", "FAILED", "SUCCEEDED", "DONE/5M",
               "FAILED/5M"});
  for (const AdminKind& k : s.kinds) {
    kinds.AddRow({KindLabel(k.kind),
                  k.registered     ? EscapeBytes(k.node_id)
                  : k.kind.empty() ? "(default handler)"
                                   : "(not registered)",
                  k.registered ? UtcTime(k.registered_at) : "-",
                  absl::StrCat(k.counts[0]), absl::StrCat(k.counts[1]),
                  absl::StrCat(k.counts[2]), absl::StrCat(k.overdue),
                  absl::StrCat(k.counts[4]), absl::StrCat(k.counts[3]),
                  absl::StrCat(k.succeeded_recently),
                  absl::StrCat(k.failed_recently)});
  }
  if (kinds.size() == 0) kinds.AddRow({"(none)"});
  out << kinds.Render() << "\n";
}

// What is wrong, first; "PROBLEMS  none" when nothing is.
void PrintProblems(std::ostream& out, const StatusSummary& sum) {
  if (sum.healthy()) {
    out << "PROBLEMS  none\n\n";
    return;
  }
  Table problems({"PROBLEM", "WHAT"});
  for (const StaleNode& n : sum.stale_nodes) {
    problems.AddRow(
        {"stale node",
         absl::StrCat(EscapeBytes(n.node_id), ": last heartbeat ",
                      FormatAge(n.since_heartbeat), " ago (lease TTL ",
                      FormatAge(sum.stale_after), "), ", n.slots_held,
                      " slots still under a valid lease")});
  }
  for (const OwnerSlots& o : sum.lapsed_owners) {
    problems.AddRow(
        {"slots without a lease",
         absl::StrCat(o.lapsed, o.owner.empty()
                                    ? " never held or released"
                                    : absl::StrCat(" last held by ",
                                                   EscapeBytes(o.owner)))});
  }
  for (const AdminKind& k : sum.overdue_kinds) {
    problems.AddRow({"overdue", absl::StrCat(KindLabel(k.kind), ": ", k.overdue,
                                             " tasks past due")});
  }
  for (const AdminKind& k : sum.failing_kinds) {
    problems.AddRow(
        {"failing kind",
         absl::StrCat(KindLabel(k.kind), ": ",
                      k.counts[static_cast<int>(TaskState::kFailed)],
                      " FAILED (twctl list --state FAILED ",
                      k.kind.empty()
                          ? std::string("--kind=")
                          : absl::StrCat("--kind '", EscapeBytes(k.kind), "'"),
                      ")")});
  }
  for (const AdminKind& k : sum.unhandled_kinds) {
    problems.AddRow(
        {"kind without a handler",
         k.kind.empty()
             ? absl::StrCat("default kind: ", k.unfinished(),
                            " unfinished, no scheduler runs it (none was "
                            "started with DurableOptions::handler)")
             : absl::StrCat(KindLabel(k.kind), ": ", k.unfinished(),
                            " unfinished, no scheduler registered it")});
  }
  out << problems.Render() << "\n";
}

void PrintText(Context& context, const StoreStatus& s,
               const StatusSummary& sum) {
  std::ostream& out = *context.out;
  PrintProblems(out, sum);
  Table summary({});
  summary.AddRow({"store", context.admin->Target()});
  summary.AddRow({"schema", absl::StrCat("version ", s.schema_version, ", ",
                                         s.slot_count, " slots")});
  summary.AddRow({"db now", UtcTime(s.db_now)});
  std::string counts;
  for (int i = 0; i < kTaskStateCount; ++i) {
    absl::StrAppend(&counts, i == 0 ? "" : "  ",
                    TaskStateName(static_cast<TaskState>(i)), " ", s.counts[i]);
  }
  summary.AddRow({"tasks", counts});
  summary.AddRow(
      {"next due",
       s.next_due.has_value()
           ? absl::StrCat(
                 UtcTime(*s.next_due), " (in ",
                 FormatAge(*s.next_due - s.db_now), ")  ",
                 EscapeBytes(s.next_due_id),
                 OccurrenceLabel(s.next_due_id).empty()
                     ? ""
                     : absl::StrCat(" (", OccurrenceLabel(s.next_due_id), ")"))
           : "-"});
  summary.AddRow(
      {"overdue",
       s.oldest_overdue_due.has_value()
           ? absl::StrCat(s.overdue, ", oldest ",
                          UtcTime(*s.oldest_overdue_due), " (",
                          FormatAge(s.db_now - *s.oldest_overdue_due),
                          " ago)  ", EscapeBytes(s.oldest_overdue_id))
           : "0"});
  summary.AddRow({"slots", absl::StrCat(s.slot_count - s.slots_unowned,
                                        " held under a valid lease, ",
                                        s.slots_unowned, " not")});
  summary.AddRow(
      {"task table",
       absl::StrCat(
           absl::StrFormat("%.1f MiB, ", s.task_table_bytes / 1048576.0),
           s.task_updates, " updates",
           s.task_updates > 0
               ? absl::StrFormat(" (%.0f%% in place, HOT)",
                                 100.0 * s.task_hot_updates / s.task_updates)
               : "")});
  out << summary.Render() << "\n";

  Table nodes({"NODE", "LAST HEARTBEAT", "AGO", "SLOTS HELD"});
  for (const AdminNode& n : s.nodes) {
    nodes.AddRow(
        {EscapeBytes(n.node_id), UtcTime(n.heartbeat),
         absl::StrCat(FormatAge(n.since_heartbeat),
                      n.since_heartbeat > sum.stale_after ? " STALE" : ""),
         absl::StrCat(n.slots_held)});
  }
  if (nodes.size() == 0) nodes.AddRow({"(none)"});
  out << nodes.Render() << "\n";
  PrintKinds(out, s);

  if (context.args->bools.count("all-slots") > 0) {
    Table slots({"SLOT", "OWNER", "EPOCH", "LEASE UNTIL", "VALID", "HORIZON"});
    for (const AdminSlot& slot : s.slots) {
      slots.AddRow({absl::StrCat(slot.slot),
                    slot.owner.empty() ? "-" : EscapeBytes(slot.owner),
                    absl::StrCat(slot.epoch), UtcTime(slot.lease_until),
                    slot.lease_valid ? "yes" : "no", FormatAge(slot.horizon)});
    }
    out << slots.Render();
    return;
  }
  Table table({"OWNER", "VALID LEASES", "LAPSED", "EPOCHS", "LEASE LEFT (MIN)",
               "HEARTBEAT"});
  for (const OwnerSlots& o : sum.owners) {
    table.AddRow(
        {o.owner.empty() ? "(none)" : EscapeBytes(o.owner),
         absl::StrCat(o.valid), absl::StrCat(o.lapsed),
         o.min_epoch == o.max_epoch
             ? absl::StrCat(o.min_epoch)
             : absl::StrCat(o.min_epoch, "-", o.max_epoch),
         o.min_lease_left.has_value() ? FormatAge(*o.min_lease_left) : "-",
         o.owner.empty() ? "-"
         : !o.has_node   ? "(no node row)"
                         : absl::StrCat(FormatAge(o.since_heartbeat), " ago",
                                      o.stale ? " STALE" : "")});
  }
  out << table.Render();
}

}  // namespace

int RunStatus(Context& context) {
  absl::Duration stale_after = kDefaultStaleAfter;
  if (std::optional<std::string> ttl = context.args->Value("lease-ttl")) {
    if (!absl::ParseDuration(*ttl, &stale_after) ||
        stale_after <= absl::ZeroDuration()) {
      return Fail(context,
                  absl::InvalidArgumentError(absl::StrCat(
                      "bad --lease-ttl \"", *ttl, "\" (a duration: 10s, 1m)")),
                  kExitUsage);
    }
  }
  absl::StatusOr<StoreStatus> status = context.admin->Status();
  if (!status.ok()) return Fail(context, status.status());
  const StatusSummary summary = Summarize(*status, stale_after);
  if (context.args->json) {
    PrintJson(context, *status, summary);
  } else {
    PrintText(context, *status, summary);
  }
  return kExitOk;
}

}  // namespace twctl
}  // namespace timingwheel
