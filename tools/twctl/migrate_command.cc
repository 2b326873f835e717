// Copyright 2026 The timingwheel Authors.
//
// twctl migrate [--dry-run]: create the schema or bring it forward; twctl
// version: the schema version it brings a store to.

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/twctl/commands.h"
#include "tools/twctl/output.h"

namespace timingwheel {
namespace twctl {

int RunVersion(Context& context) {
  const int64_t version = AdminStore::SchemaVersion();
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject().Key("schema_version").Int(version).EndObject();
    *context.out << j.str() << "\n";
  } else {
    *context.out << "twctl (timingwheel): schema version " << version
                 << " (twctl migrate brings a store to it)\n";
  }
  return kExitOk;
}

int RunMigrate(Context& context) {
  const Args& args = *context.args;
  int slot_count = 1024;
  if (std::optional<std::string> n = args.Value("slot-count")) {
    if (!absl::SimpleAtoi(*n, &slot_count) || slot_count < 1 ||
        slot_count > 65536) {
      return Fail(context, absl::InvalidArgumentError(absl::StrCat(
                               "bad --slot-count \"", *n, "\" (1 to 65536)")));
    }
  }
  const bool dry_run = args.bools.count("dry-run") > 0;
  absl::StatusOr<SchemaPlan> plan =
      dry_run ? context.admin->PlanMigration(slot_count)
              : context.admin->Migrate(slot_count);
  if (!plan.ok()) return Fail(context, plan.status());
  if (args.json) {
    JsonWriter j;
    j.BeginObject()
        .Key("dry_run")
        .Bool(dry_run)
        .Key("from_version")
        .Int(plan->from_version)
        .Key("to_version")
        .Int(plan->to_version)
        .Key("steps")
        .BeginArray();
    for (const SchemaPlan::Step& s : plan->steps) {
      j.BeginObject()
          .Key("from")
          .Int(s.from)
          .Key("to")
          .Int(s.to)
          .Key("description")
          .String(s.description)
          .Key("locks")
          .String(s.locks)
          .Key("sql")
          .String(s.sql)
          .EndObject();
    }
    j.EndArray().EndObject();
    *context.out << j.str() << "\n";
    return kExitOk;
  }
  std::ostream& out = *context.out;
  if (plan->steps.empty()) {
    out << "schema is up to date (version " << plan->to_version << ")\n";
    return kExitOk;
  }
  if (!dry_run) {
    out << "migrated from version " << plan->from_version << " to "
        << plan->to_version << ":\n";
    for (const SchemaPlan::Step& s : plan->steps) {
      out << "  " << s.from << " -> " << s.to << ": " << s.description
          << "\n    locks: " << s.locks << "\n";
    }
    return kExitOk;
  }
  out << "-- dry run: the store is at version " << plan->from_version
      << "; these steps would bring it to version " << plan->to_version
      << " (nothing was changed)\n";
  for (const SchemaPlan::Step& s : plan->steps) {
    out << "\n-- step " << s.from << " -> " << s.to << ": " << s.description
        << "\n-- locks: " << s.locks << "\n"
        << s.sql;
  }
  return kExitOk;
}

}  // namespace twctl
}  // namespace timingwheel
