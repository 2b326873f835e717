// Copyright 2026 The timingwheel Authors.
//
// The registry of task kinds (tw_kind): a scheduler registers the kinds it
// runs when it starts and confirms them periodically; a kind no scheduler
// confirmed for the registry's retention is forgotten; inserts check their
// kinds against it.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// The kinds of a batch that no scheduler registered.
constexpr char kUnknownKindsSql[] = R"sql(
SELECT k.kind FROM unnest($1::text[]) AS k(kind)
WHERE NOT EXISTS (SELECT FROM tw_kind WHERE tw_kind.kind = k.kind)
)sql";

// Registers (or confirms) node $1's kinds $2 on the database's clock, and
// forgets the other kinds nobody confirmed within $3 microseconds (none
// when $3 < 0) that no recurring schedule names (its occurrences are
// written under its kind). `stale` sees the rows as they were before the
// upsert, hence its own test on $2. It passes over rows another
// transaction holds (SKIP LOCKED): a concurrent confirmation of a kind it
// would forget keeps it, and two schedulers registering at once, each
// with a kind the other finds stale, never wait for each other (they
// deadlocked). A confirmation that commits first is re-read (READ
// COMMITTED) and keeps its kind too.
constexpr char kRegisterKindsSql[] = R"sql(
WITH confirmed AS (
  INSERT INTO tw_kind (kind, node_id, registered_us)
  SELECT k, $1, tw_now_us() FROM unnest($2::text[]) AS k
  ON CONFLICT (kind) DO UPDATE
  SET node_id = EXCLUDED.node_id, registered_us = EXCLUDED.registered_us
  RETURNING kind),
stale AS MATERIALIZED (
  SELECT k.kind FROM tw_kind k
  WHERE $3::int8 >= 0 AND k.registered_us < tw_now_us() - $3::int8
    AND NOT (k.kind = ANY($2::text[]))
    AND NOT EXISTS (SELECT FROM tw_schedule s WHERE s.kind = k.kind)
  FOR UPDATE OF k SKIP LOCKED),
forgotten AS (
  DELETE FROM tw_kind WHERE kind IN (SELECT kind FROM stale)
  RETURNING kind)
SELECT (SELECT count(*) FROM confirmed) AS confirmed,
       (SELECT count(*) FROM forgotten) AS forgotten
)sql";

}  // namespace

absl::Status CheckKinds(PGconn* conn, absl::Span<const InsertRow> rows,
                        KnownKinds* known) {
  // The clock is read only for a batch that names a kind (most name none).
  const bool kinded =
      std::any_of(rows.begin(), rows.end(),
                  [](const InsertRow& r) { return !r.kind.empty(); });
  if (!kinded) return absl::OkStatus();
  if (known != nullptr) {
    const int64_t now_us = absl::ToUnixMicros(absl::Now());
    if (now_us - known->since_us >= known->trusted_for_us ||
        now_us < known->since_us) {
      known->kinds.clear();
      known->since_us = now_us;
    }
  }
  std::vector<absl::string_view> asked;
  absl::flat_hash_set<absl::string_view> seen;
  for (const InsertRow& row : rows) {
    if (row.kind.empty()) continue;
    if (known != nullptr && known->kinds.contains(row.kind)) continue;
    if (seen.insert(row.kind).second) asked.push_back(row.kind);
  }
  if (asked.empty()) return absl::OkStatus();
  PgParams params;
  params.TextArray(asked);
  absl::StatusOr<PgResult> r = PgExec(conn, kUnknownKindsSql, params);
  if (!r.ok()) return r.status();
  if (r->rows() > 0) {
    return absl::NotFoundError(absl::StrCat(
        "unknown task kind \"", PgRow(*r, 0).Bytes("kind"),
        "\": no running scheduler has registered it (DurableOptions::kinds; "
        "a kind is forgotten after DurableOptions::forget_kinds_after "
        "without one); start a scheduler that handles it before scheduling "
        "its tasks"));
  }
  if (known != nullptr) {
    for (absl::string_view kind : asked) known->kinds.emplace(kind);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Store::RegisterKinds(
    const std::string& node, absl::Span<const std::string> kinds,
    int64_t forget_after_us) {
  std::vector<absl::string_view> names(kinds.begin(), kinds.end());
  PgParams params;
  params.Text(node).TextArray(names).Int64(forget_after_us);
  absl::StatusOr<PgResult> r = PgExec(conn_, kRegisterKindsSql, params);
  if (!r.ok()) return r.status();
  if (r->rows() != 1) return absl::InternalError("register kinds: no row");
  PgRow row(*r, 0);
  const int64_t forgotten = row.Int("forgotten");
  if (!row.status().ok()) return row.status();
  return forgotten;
}

}  // namespace durable_internal
}  // namespace timingwheel
