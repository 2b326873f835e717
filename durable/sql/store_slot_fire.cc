// Copyright 2026 The timingwheel Authors.
//
// The planned core's statements (docs/durable-core-plan.md, step 2): the
// read-only load (each owned slot's next due time) and the fire by slot
// (a slot's due rows PENDING -> RUNNING, fenced by its lease, within each
// kind's free places). The engine does not run them yet; today's load and
// fire are in store_attempts.cc. Shapes measured by
// benchmarks/sql/next_core_bench.sql.

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "durable/sql/store_internal.h"
#include "durable/task_kind.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// The priorities in use among the live rows, highest first (`levels`): a
// loose scan of tw_timer_priority's first column, one probe per priority.
// Both statements walk a slot's rows one range of that index per level.
constexpr char kLevelsCte[] = R"sql(prios(priority) AS (
  (SELECT t.priority FROM tw_timer t WHERE t.finished_us IS NULL
   ORDER BY t.priority DESC LIMIT 1)
  UNION ALL
  SELECT (SELECT t.priority FROM tw_timer t
          WHERE t.finished_us IS NULL AND t.priority < p.priority
          ORDER BY t.priority DESC LIMIT 1)
  FROM prios p WHERE p.priority IS NOT NULL),
levels AS MATERIALIZED (
  SELECT priority FROM prios WHERE priority IS NOT NULL),
)sql";

// Each held slot's next due time (its earliest waiting row) and the
// priority of the row it gives next (`h`: its highest-priority due waiting
// row, one probe per level; else the earliest's), the rows of `fired` left
// out (the fire's own, which its snapshot still shows waiting; none for
// the load).
constexpr char kNextCte[] = R"sql(next AS (
  SELECT mine.slot, mine.epoch, x.due_us AS next_due_us,
         coalesce(h.priority, x.priority) AS next_priority
  FROM mine CROSS JOIN n LEFT JOIN LATERAL (
    SELECT t.due_us, t.priority FROM tw_timer t
    WHERE t.slot = mine.slot AND t.finished_us IS NULL AND t.state IN (0, 1)
      AND t.task_id NOT IN (SELECT task_id FROM fired)
    ORDER BY t.due_us LIMIT 1) x ON true
  LEFT JOIN LATERAL (
    SELECT y.priority FROM levels, LATERAL (
      SELECT t.priority FROM tw_timer t
      WHERE t.priority = levels.priority AND t.slot = mine.slot
        AND t.finished_us IS NULL AND t.state IN (0, 1) AND t.due_us <= n.now
        AND t.task_id NOT IN (SELECT task_id FROM fired)
      LIMIT 1) y
    WHERE x.due_us <= n.now
    ORDER BY y.priority DESC LIMIT 1) h ON true))sql";

// The read-only load: the slots of $2/$3 that $1 still holds under those
// epochs with a valid lease, and the due time of each one's earliest
// waiting row (PENDING, or SCHEDULED under any epoch): one LATERAL walk of
// the live-row index (slot, due_us) per slot, stopped at the first waiting
// row (only the slot's RUNNING rows, if any, are passed on the way), and
// the priority of the row it gives next (`kNextCte`). No
// lock and no write: the lease rows are read, not locked (a takeover that
// commits meanwhile is seen by the fire, which reads them again). A slot
// without a waiting row has a NULL due time; a call holding no slot still
// returns one row (slot NULL) carrying the clock.
const std::string& NextDueSql() {
  static const std::string* const sql =
      new std::string(absl::StrCat(R"sql(
WITH RECURSIVE n AS (SELECT tw_now_us() AS now),
fired(task_id) AS (SELECT NULL::bytea WHERE false),
)sql",
                                   kLevelsCte, R"sql(
mine AS (
  SELECT l.slot, l.epoch
  FROM tw_slot_lease l
  JOIN unnest($2::int4[], $3::int8[]) AS m(slot, epoch)
    ON l.slot = m.slot AND l.epoch = m.epoch, n
  WHERE l.owner = $1 AND l.lease_until_us > n.now),
)sql",
                                   kNextCte, R"sql(

SELECT s.slot, s.epoch, s.next_due_us, s.next_priority,
       tw_now_us() AS db_now_us
FROM (SELECT 1) one LEFT JOIN next s ON true
)sql"));
  return *sql;
}

// The fire by slot. `mine`: the slots of $2/$3 that $1 holds under those
// epochs with a valid lease on the database's clock, the lease rows locked
// FOR KEY SHARE until the commit, as the horizon load does (kClaimSql): a
// takeover's FOR UPDATE SKIP LOCKED passes such a slot over until its next
// round, and one that committed first is re-read here (READ COMMITTED) and
// fences the slot; renewals (no key column) do not wait. `free`: each
// kind's free places ($4/$5, and $7 for the kinds not named, together:
// the entry whose kind is NULL; a share above the limit $6 is cut to it).
// `share`: the most rows of a kind one slot gives: the limit over the held
// slots rounded up, so that the statement reads about its limit however many
// rows are due (a slot with more due rows keeps them: its next due time is then
// already due), or the whole limit while that reads at most 256 rows over
// the slots held (kSlotFireExactRows: a small fire is exact in priority
// order across its slots). Rows of a priority below $8 (the best of the due
// slots the engine did not name) are left out. `cand`: per slot and kind
// with a free place, the slot's due waiting rows of that kind in due,
// priority (higher first) and id order, at most that kind's free places and the
// slot's share (a LATERAL walk of the live-row index per slot and kind),
// numbered per kind (the kinds not named as one) across the slots (row_number()
// OVER (PARTITION BY kind), as in next_core_bench.sql). `picked`: each kind's
// first `free` rows, then the first $6 of those in the same order: exactly the
// rows a walk in due and priority order would take while its kind and the whole
// fire have room. `locked`: each picked row locked by its key, passed over when
// another transaction holds it (SKIP LOCKED: never waited for; its place is not
// given to another row), its state, due time and kind checked again on the
// row's latest version. `run` writes them RUNNING as the fire by ids does
// (kStartSql): a new version, the lease's epoch, the attempt not counted
// (the one returned is the next). `next`: each held slot's next due
// waiting row after the fire; the statement's snapshot still shows the rows
// `run` wrote as waiting, so they are left out by id (a hashed subplan over
// the fired ids). The first rows returned are the fired ones, then one per
// held slot (one with slot NULL when none is held), each carrying the
// fire's clock (`started_us`, the due check's) and a later reading.
const std::string& FireSlotsSql() {
  static const std::string* const sql =
      new std::string(absl::StrCat(R"sql(
WITH RECURSIVE n AS (SELECT tw_now_us() AS now),
)sql",
                                   kLevelsCte, R"sql(
mine AS (
  SELECT l.slot, l.epoch
  FROM tw_slot_lease l
  JOIN unnest($2::int4[], $3::int8[]) AS m(slot, epoch)
    ON l.slot = m.slot AND l.epoch = m.epoch, n
  WHERE l.owner = $1 AND l.lease_until_us > n.now
  FOR KEY SHARE OF l),
free AS (
  SELECT b.kind, least(b.free, $6) AS free
  FROM unnest($4::text[], $5::int8[]) AS b(kind, free)
  WHERE b.free > 0
  UNION ALL
  SELECT NULL, least($7, $6) WHERE $7 > 0),
share AS (
  SELECT greatest(
           greatest($6, 0) / greatest(count(*), 1)
             + (greatest($6, 0) % greatest(count(*), 1) > 0)::int,
           least(greatest($6, 0), 256 / greatest(count(*), 1))) AS rows
  FROM mine),
cand AS MATERIALIZED (
  SELECT mine.slot, x.task_id, x.kind, x.due_us, x.priority, mine.epoch,
         free.free,
         row_number() OVER (PARTITION BY free.kind
                            ORDER BY x.priority DESC, x.due_us, x.task_id)
           AS nth
  FROM mine, free, share, n, LATERAL (
    SELECT y.task_id, y.kind, y.due_us, y.priority FROM levels, LATERAL (
      SELECT t.task_id, t.kind, t.due_us, t.priority FROM tw_timer t
      WHERE t.priority = levels.priority AND t.slot = mine.slot
        AND t.finished_us IS NULL AND t.state IN (0, 1)
        AND t.due_us <= n.now
        AND (t.kind = free.kind
             OR (free.kind IS NULL AND t.kind <> ALL ($4::text[])))
      ORDER BY t.due_us LIMIT least(free.free, share.rows)) y
    WHERE levels.priority >= $8
    ORDER BY y.priority DESC, y.due_us, y.task_id
    LIMIT least(free.free, share.rows)) x),
picked AS (
  SELECT c.slot, c.task_id, c.kind, c.epoch FROM cand c
  WHERE c.nth <= c.free
  ORDER BY c.priority DESC, c.due_us, c.task_id LIMIT $6),
locked AS (
  SELECT x.tid, picked.epoch
  FROM picked, n, LATERAL (
    SELECT t.ctid AS tid FROM tw_timer t
    WHERE t.task_id = picked.task_id AND t.finished_us IS NULL
      AND t.state IN (0, 1) AND t.due_us <= n.now AND t.kind = picked.kind
    OFFSET 0 FOR UPDATE OF t SKIP LOCKED) x),
run AS (
  UPDATE tw_timer t
  SET state = 2, epoch = locked.epoch, version = nextval('tw_version_seq')
  FROM locked
  WHERE t.ctid = ANY (ARRAY(SELECT tid FROM locked)) AND t.ctid = locked.tid
  RETURNING t.task_id, t.payload, t.attempt + 1 AS attempt, t.version,
            t.due_us, t.slot, t.epoch, t.kind, t.priority),
fired AS (SELECT task_id FROM run),
)sql",
                                   kNextCte, R"sql(,
skips AS (
  SELECT p.slot, count(*) AS rows FROM picked p
  WHERE p.task_id NOT IN (SELECT task_id FROM run)
  GROUP BY p.slot)
SELECT true AS run, task_id, payload, attempt, version, due_us, slot, epoch,
       kind, priority, NULL::int8 AS next_due_us, NULL::int2 AS next_priority,
       0::int8 AS skipped, (SELECT now FROM n) AS started_us,
       tw_now_us() AS db_now_us
FROM run
UNION ALL
SELECT false, NULL, NULL, 0, 0, 0, s.slot, s.epoch, '', 0, s.next_due_us,
       s.next_priority, coalesce(k.rows, 0), (SELECT now FROM n), tw_now_us()
FROM (SELECT 1) one LEFT JOIN next s ON true LEFT JOIN skips k ON k.slot = s.slot
)sql"));
  return *sql;
}

// Reads the slot columns of a result row (NULL slot: no slot held).
struct SlotColumns {
  int slot, epoch, next, priority, skipped;
};
bool ReadSlotDue(const PgResult& r, int row, const SlotColumns& c,
                 SlotDue* due) {
  if (r.IsNull(row, c.slot)) return false;
  due->slot = static_cast<int>(r.Int(row, c.slot));
  due->epoch = r.Int(row, c.epoch);
  due->next_due_us = r.IsNull(row, c.next) ? kNoDueUs : r.Int(row, c.next);
  due->next_priority =
      r.IsNull(row, c.priority) ? 0 : static_cast<int>(r.Int(row, c.priority));
  if (c.skipped >= 0) due->skipped = r.Int(row, c.skipped);
  return true;
}

bool BySlot(const SlotDue& a, const SlotDue& b) { return a.slot < b.slot; }

// `owned` with each (slot, epoch) once: a slot named twice is held, fired
// and reported once, as in the fake store.
std::vector<SlotEpoch> Distinct(absl::Span<const SlotEpoch> owned) {
  std::vector<SlotEpoch> distinct(owned.begin(), owned.end());
  const auto key = [](const SlotEpoch& s) {
    return std::make_pair(s.slot, s.epoch);
  };
  std::sort(
      distinct.begin(), distinct.end(),
      [&](const SlotEpoch& a, const SlotEpoch& b) { return key(a) < key(b); });
  distinct.erase(std::unique(distinct.begin(), distinct.end(),
                             [&](const SlotEpoch& a, const SlotEpoch& b) {
                               return key(a) == key(b);
                             }),
                 distinct.end());
  return distinct;
}

}  // namespace

absl::StatusOr<SlotDues> Store::NextDueBySlot(
    const std::string& node, absl::Span<const SlotEpoch> owned) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(Distinct(owned), &slots, &epochs);
  absl::StatusOr<PgResult> r =
      PgExec(conn_, NextDueSql().c_str(),
             PgParams().Text(node).Int32Array(slots).Int64Array(epochs));
  if (!r.ok()) return r.status();
  PgColumns column(*r);
  const SlotColumns slot_columns{column("slot"), column("epoch"),
                                 column("next_due_us"), column("next_priority"),
                                 -1};
  const int db_now = column("db_now_us");
  if (!column.status().ok()) return column.status();
  SlotDues result;
  for (int i = 0; i < r->rows(); ++i) {
    result.db_now_us = std::max(result.db_now_us, r->Int(i, db_now));
    SlotDue due;
    if (ReadSlotDue(*r, i, slot_columns, &due)) {
      result.slots.push_back(due);
    }
  }
  std::sort(result.slots.begin(), result.slots.end(), BySlot);
  return result;
}

absl::StatusOr<SlotFire> Store::FireSlots(const std::string& node,
                                          absl::Span<const SlotEpoch> owned,
                                          const KindCapacity& free_by_kind,
                                          int64_t others_free, int64_t limit,
                                          int min_priority) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(Distinct(owned), &slots, &epochs);
  std::vector<absl::string_view> kinds;
  std::vector<int64_t> free;
  for (const auto& [kind, places] : free_by_kind) {
    // A name no stored task can carry matches nothing (the fake the same);
    // passed on, one not UTF-8 would fail the whole statement.
    if (!CheckKindName(kind).ok()) continue;
    kinds.push_back(kind);
    free.push_back(places);
  }
  absl::StatusOr<PgResult> r = PgExec(conn_, FireSlotsSql().c_str(),
                                      PgParams()
                                          .Text(node)
                                          .Int32Array(slots)
                                          .Int64Array(epochs)
                                          .TextArray(kinds)
                                          .Int64Array(free)
                                          .Int64(std::max<int64_t>(0, limit))
                                          .Int64(others_free)
                                          .Int32(min_priority));
  if (!r.ok()) return r.status();
  PgColumns column(*r);
  const EntryColumns entry(column);
  const int run = column("run"), payload = column("payload"),
            attempt = column("attempt"), version = column("version"),
            db_now = column("db_now_us"), started_us = column("started_us");
  const SlotColumns slot_columns{entry.slot, entry.epoch, column("next_due_us"),
                                 column("next_priority"), column("skipped")};
  if (!column.status().ok()) return column.status();
  SlotFire result;
  for (int i = 0; i < r->rows(); ++i) {
    result.db_now_us = std::max(result.db_now_us, r->Int(i, db_now));
    result.checked_us = r->Int(i, started_us);
    if (r->Int(i, run) == 0) {
      SlotDue due;
      if (ReadSlotDue(*r, i, slot_columns, &due)) {
        result.next_due.push_back(due);
      }
      continue;
    }
    WheelEntry e = entry.Read(*r, i);
    Started s;
    s.task.id = std::move(e.id);
    s.task.payload = r->Bytes(i, payload);
    s.task.attempt = static_cast<int>(r->Int(i, attempt));
    s.version = r->Int(i, version);
    s.task.due = absl::FromUnixMicros(e.due_us);
    int64_t occurrence_us = 0;
    if (ParseOccurrenceId(s.task.id, &s.task.schedule, &occurrence_us)) {
      s.task.occurrence = absl::FromUnixMicros(occurrence_us);
    }
    s.slot = e.slot;
    s.epoch = e.epoch;
    s.task.kind = std::move(e.kind);
    s.task.priority = e.priority;
    s.started_us = r->Int(i, started_us);
    result.started.push_back(std::move(s));
  }
  // RETURNING keeps no order: put the attempts in the fire's.
  std::sort(result.started.begin(), result.started.end(),
            [](const Started& a, const Started& b) {
              return std::make_tuple(-a.task.priority, a.task.due,
                                     absl::string_view(a.task.id)) <
                     std::make_tuple(-b.task.priority, b.task.due,
                                     absl::string_view(b.task.id));
            });
  std::sort(result.next_due.begin(), result.next_due.end(), BySlot);
  return result;
}

}  // namespace durable_internal
}  // namespace timingwheel
