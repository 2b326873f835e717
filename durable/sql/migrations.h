// Copyright 2026 The timingwheel Authors.
//
// migrations.h
// -----------------------------------------------------------------------------
//
// The versioned schema of the durable tier and the forward migrations that
// bring a store to it. A store's version is `tw_meta.schema_version` (0
// when the database has no `tw_meta`: no store yet). This file defines:
//
//   * `MigrationStep`: one forward step, `from` -> `to`, as constant SQL.
//   * `MigrationSteps()`: the list, in order.
//   * `ReadSchemaVersion()`, `PlanMigration()`, `MigrateSchema()`.
//
// How the steps run:
//   * From version v, the step whose `from` is v runs, then the next, until
//     `kSchemaVersion`. Creation is the step from 0: it creates
//     the schema as this library's version made it first (so a new store
//     gets every table option, like the lease table's fillfactor, from the
//     start), plus the slot rows for the requested slot count; later
//     versions add one step each, which creation then runs too.
//   * Each step runs in one transaction that first takes a transaction-level
//     advisory lock (`pg_advisory_xact_lock`) and reads the version again
//     under it: two processes starting at once apply each step once (the
//     second waits, then finds the step done), and a step that fails leaves
//     the store at the version before it.
//   * A store whose version is newer than this library's is refused with
//     FailedPrecondition naming both versions; nothing is changed.
//   * `PlanMigration()` reads the version and returns the SQL the steps
//     would run, changing nothing (a dry run).
// Tested by tests/durable/migrations_test.cc (MigrationsTest.*) and
// tests/durable/store_test.cc (StoreMigrationTest, StoreTest.*Schema*).
//
// Thread safety: functions of `PGconn*` use the connection; the caller
// makes sure no other thread uses it meanwhile.

#ifndef TIMINGWHEEL_DURABLE_SQL_MIGRATIONS_H_
#define TIMINGWHEEL_DURABLE_SQL_MIGRATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace durable_internal {

// The schema version this library creates and understands.
inline constexpr int64_t kSchemaVersion = 7;

// MigrationStep
//
// One forward migration. `sql` is constant text (several statements, no
// parameters); the runner sets `tw_meta.schema_version` to `to` in the same
// transaction (and, for the step from 0, inserts the slot count and the
// lease rows, parameterized).
struct MigrationStep {
  int64_t from = 0;
  int64_t to = 0;
  const char* description = "";
  // The table locks the step takes and what waits on them meanwhile, for
  // the operator who chooses when to run it.
  const char* locks = "";
  const char* sql = "";
};

// MigrationSteps()
//
// Every step this library knows, ordered by `from`. Exactly one step
// starts at each version below `kSchemaVersion`, and following them from
// any version ends at `kSchemaVersion` (MigrationStepsTest.StepsFormAChain).
absl::Span<const MigrationStep> MigrationSteps();

// SchemaInfo: what a store's tw_meta says.
struct SchemaInfo {
  int64_t version = 0;     // 0: no store in this database.
  int64_t slot_count = 0;  // 0 when version is 0.
};

// ReadSchemaVersion()
//
// The store's version and slot count, without locking.
absl::StatusOr<SchemaInfo> ReadSchemaVersion(PGconn* conn);

// PlannedStep: a step as it would run.
struct PlannedStep {
  int64_t from = 0;
  int64_t to = 0;
  std::string description;
  std::string locks;  // MigrationStep::locks.
  // The step's SQL plus the runner's own statements with their values
  // written in, in one transaction: psql can run it as printed.
  std::string sql;
};

struct MigrationPlan {
  int64_t from_version = 0;
  int64_t to_version = 0;          // kSchemaVersion.
  std::vector<PlannedStep> steps;  // Empty: up to date.
};

// PlanMigration()
//
// The steps `MigrateSchema()` would run on the store `conn` points at now,
// changing nothing. `slot_count` appears only in the creation step.
// FailedPrecondition for a newer schema (naming both versions) or for a
// version no step starts from.
absl::StatusOr<MigrationPlan> PlanMigration(PGconn* conn, int slot_count);

// MigrateSchema()
//
// Brings the store to `kSchemaVersion`, each step in its own transaction
// under the advisory lock (see above), creating it with `slot_count` slots
// if there is none. Returns the steps this call applied (none when another
// process did them first) and, in `info`, the store as it is afterwards.
// Does not check the slot count of an existing store (`Store::EnsureSchema`
// does). Opens its own transactions: call it outside one.
absl::StatusOr<MigrationPlan> MigrateSchema(PGconn* conn, int slot_count,
                                            SchemaInfo* info);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_MIGRATIONS_H_
