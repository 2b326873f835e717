// Copyright 2026 The timingwheel Authors.
//
// The lease statements: renew (with the heartbeat), acquire (with the
// takeover's re-stamp), release, requeue orphans, remove a node.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "durable/sql/store_internal.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// One round of an owner: records its heartbeat (a leaving one: deletes its
// node row, $6), extends the leases of
// `owned` still held under the same epochs (recording the horizon), and
// counts the live nodes and says when the next slot may come free: the
// first of the other live nodes lapses unless it renews, or the first
// lease lapses of an owner no longer live (a lease taken after its
// owner's last heartbeat outlives it). One statement, so an idle process
// costs one statement per round. The LEFT JOIN returns one row when
// nothing was renewed (slot NULL).
constexpr char kRenewSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
hb AS (
  INSERT INTO tw_node (node_id, heartbeat_us) SELECT $1, now FROM n
  WHERE NOT $6
  ON CONFLICT (node_id) DO UPDATE SET heartbeat_us = EXCLUDED.heartbeat_us
  RETURNING node_id),
gone AS (
  DELETE FROM tw_node WHERE $6 AND node_id = $1 RETURNING node_id),
renewed AS (
  UPDATE tw_slot_lease l SET lease_until_us = n.now + $2, horizon_us = $5
  FROM unnest($3::int4[], $4::int8[]) AS m(slot, epoch), n
  WHERE l.slot = m.slot AND l.epoch = m.epoch AND l.owner = $1
    AND l.lease_until_us > n.now
  RETURNING l.slot),
live AS (
  SELECT 1 + count(*) AS live_nodes,
         min(heartbeat_us) + $2 - min(n.now) AS next_lapse_in_us
  FROM tw_node, n
  WHERE heartbeat_us > n.now - $2 AND node_id <> $1),
orphaned AS (
  SELECT min(l.lease_until_us) - min(n.now) AS lapse_in_us
  FROM tw_slot_lease l, n
  WHERE l.owner <> $1 AND l.lease_until_us > n.now
    AND NOT EXISTS (SELECT FROM tw_node d
                    WHERE d.node_id = l.owner
                      AND d.heartbeat_us > n.now - $2))
SELECT live.live_nodes,
       least(live.next_lapse_in_us, orphaned.lapse_in_us)
           AS next_lapse_in_us,
       renewed.slot
FROM live CROSS JOIN orphaned LEFT JOIN renewed ON true
)sql";

// Takes free or expired slots (SKIP LOCKED: concurrent takers get disjoint
// slots), bumps their epochs, and re-stamps their RUNNING rows PENDING (so
// that a former owner's completion of one matches nothing). SCHEDULED rows
// keep the former epoch: the former owner's fires match nothing (the
// lease's epoch moved) and the new owner's load claims them (kClaimSql),
// writing each row once. A RUNNING row this statement does not re-stamp
// (a fire of the former owner still in flight commits after it, or a row
// a late write moved meanwhile) is claimed by that load too.
//
// The new epoch is above every epoch the slot's claimed rows carry, not
// only above the lease's: the load tells a former owner's rows by an epoch
// other than the lease's, so no claimed row may carry the new one (rows
// from an older schema or restored from elsewhere may carry any).
//
// The slot's claimed rows are read once, through the live-row index, one
// slot at a time (a LATERAL subquery fenced with OFFSET 0, so the planner
// cannot turn it into a hash join over the whole table, as it did with
// 10^6 rows: a full scan per takeover, longer than the statement timeout).
// The RUNNING ones are then locked and updated by their ctids (TID scans
// of the array); one a late write changed meanwhile has another ctid and is
// passed over, left to the load.
//
// A RUNNING row of an attempt the taker still runs ($6, $7: id and
// version, as when a process takes back its own slot after its renewals
// timed out) is spared: it keeps its state and version (the attempt's
// outcome still matches) and takes the new epoch (the load claims only
// rows under another epoch than the lease's, so it leaves it alone).
constexpr char kAcquireSql[] = R"sql(
WITH cand AS (
  SELECT slot FROM tw_slot_lease
  WHERE owner IS NULL OR lease_until_us <= tw_now_us()
  ORDER BY slot LIMIT $2
  FOR UPDATE SKIP LOCKED),
live AS MATERIALIZED (
  SELECT cand.slot, x.tid, x.state, x.epoch
  FROM cand, LATERAL (
    SELECT c.ctid AS tid, c.state, c.epoch FROM tw_timer c
    WHERE c.slot = cand.slot AND c.finished_us IS NULL AND c.state IN (1, 2)
    OFFSET 0) x),
got AS (
  UPDATE tw_slot_lease l
  SET owner = $1,
      epoch = greatest(l.epoch, (SELECT max(live.epoch) FROM live
                                 WHERE live.slot = l.slot)) + 1,
      lease_until_us = tw_now_us() + $3, horizon_us = $5
  FROM cand WHERE l.slot = cand.slot
  RETURNING l.slot, l.epoch),
mine AS (
  SELECT a.task_id, a.version
  FROM unnest($6::bytea[], $7::int8[]) AS a(task_id, version)),
running AS (
  SELECT c.ctid AS tid,
         EXISTS (SELECT FROM mine
                 WHERE mine.task_id = c.task_id
                   AND mine.version = c.version) AS spared
  FROM tw_timer c
  WHERE c.ctid = ANY (ARRAY(SELECT tid FROM live WHERE state = 2))
    AND c.finished_us IS NULL AND c.state = 2
  FOR UPDATE OF c),
restamped AS (
  UPDATE tw_timer t
  SET state = CASE WHEN t.attempt >= $4 THEN 4 ELSE 0 END,
      finished_us = CASE WHEN t.attempt >= $4 THEN tw_now_us() END,
      epoch = (SELECT got.epoch FROM got WHERE got.slot = t.slot),
      version = nextval('tw_version_seq')
  WHERE t.ctid = ANY (ARRAY(SELECT tid FROM running WHERE NOT spared))
    AND t.finished_us IS NULL AND t.state = 2
  RETURNING 1),
spared AS (
  UPDATE tw_timer t
  SET epoch = (SELECT got.epoch FROM got WHERE got.slot = t.slot)
  WHERE t.ctid = ANY (ARRAY(SELECT tid FROM running WHERE spared))
    AND t.finished_us IS NULL AND t.state = 2
  RETURNING 1)
SELECT slot, epoch, (SELECT count(*) FROM restamped) AS restamped FROM got
)sql";

constexpr char kReleaseSql[] = R"sql(
UPDATE tw_slot_lease l SET owner = NULL, lease_until_us = 0
FROM unnest($2::int4[], $3::int8[]) AS m(slot, epoch)
WHERE l.slot = m.slot AND l.epoch = m.epoch AND l.owner = $1
)sql";

// This owner's RUNNING rows that no handler of its own is running (an
// abandoned attempt, or a fire whose reply was lost) go back to PENDING (or
// FAILED when their last allowed attempt had started); with $6, after a
// lost connection, its SCHEDULED rows too (a load or a retry whose reply
// was lost committed rows that no wheel holds), so the next load claims
// them again.
constexpr char kRequeueOrphansSql[] = R"sql(
UPDATE tw_timer t
SET state = CASE WHEN t.state = 2 AND t.attempt >= $5 THEN 4 ELSE 0 END,
    finished_us = CASE WHEN t.state = 2 AND t.attempt >= $5
                       THEN tw_now_us() END,
    version = nextval('tw_version_seq')
FROM unnest($2::int4[], $3::int8[]) AS m(slot, epoch), tw_slot_lease l
WHERE t.slot = m.slot AND t.epoch = m.epoch AND t.finished_us IS NULL
  AND ((t.state = 2 AND NOT (t.task_id = ANY($4::bytea[])))
       OR (t.state = 1 AND $6))
  AND l.slot = m.slot AND l.epoch = m.epoch AND l.owner = $1
)sql";

constexpr char kRemoveNodeSql[] = R"sql(
DELETE FROM tw_node WHERE node_id = $1
)sql";

// The outer condition repeats the heartbeat's: a DELETE that waited on the
// row lock of a heartbeat committing meanwhile re-checks it on the row's
// new version, and keeps the row.
constexpr char kForgetStaleNodesSql[] = R"sql(
DELETE FROM tw_node WHERE node_id IN (
  SELECT n.node_id FROM tw_node n
  WHERE n.heartbeat_us < tw_now_us() - $1
    AND NOT EXISTS (SELECT FROM tw_slot_lease l WHERE l.owner = n.node_id)
  ORDER BY n.heartbeat_us LIMIT $2)
  AND heartbeat_us < tw_now_us() - $1
)sql";

}  // namespace

absl::StatusOr<Renewal> Store::Renew(const std::string& node,
                                     absl::Span<const SlotEpoch> owned,
                                     int64_t ttl_us, int64_t horizon_us,
                                     bool leaving) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  absl::StatusOr<PgResult> r = PgExec(conn_, kRenewSql,
                                      PgParams()
                                          .Text(node)
                                          .Int64(ttl_us)
                                          .Int32Array(slots)
                                          .Int64Array(epochs)
                                          .Int64(horizon_us)
                                          .Bool(leaving));
  if (!r.ok()) return r.status();
  Renewal renewal;
  for (int i = 0; i < r->rows(); ++i) {
    PgRow row(*r, i);
    renewal.live_nodes = row.Int("live_nodes");
    if (!row.IsNull("next_lapse_in_us")) {
      renewal.next_lapse_in_us = row.Int("next_lapse_in_us");
    }
    if (!row.IsNull("slot")) {
      renewal.renewed.push_back(static_cast<int>(row.Int("slot")));
    }
    if (!row.status().ok()) return row.status();
  }
  return renewal;
}

absl::StatusOr<std::vector<SlotEpoch>> Store::Acquire(
    const std::string& node, int count, int64_t ttl_us, int max_attempts,
    int64_t horizon_us, absl::Span<const LiveAttempt> live) {
  std::vector<absl::string_view> live_ids;
  std::vector<int64_t> live_versions;
  for (const LiveAttempt& a : live) {
    live_ids.push_back(a.id);
    live_versions.push_back(a.version);
  }
  absl::StatusOr<PgResult> r = PgExec(conn_, kAcquireSql,
                                      PgParams()
                                          .Text(node)
                                          .Int64(count)
                                          .Int64(ttl_us)
                                          .Int32(max_attempts)
                                          .Int64(horizon_us)
                                          .BytesArray(live_ids)
                                          .Int64Array(live_versions));
  if (!r.ok()) return r.status();
  PgColumns column(*r);
  const int slot = column("slot"), epoch = column("epoch");
  if (!column.status().ok()) return column.status();
  std::vector<SlotEpoch> got;
  for (int i = 0; i < r->rows(); ++i) {
    got.push_back({static_cast<int>(r->Int(i, slot)), r->Int(i, epoch)});
  }
  return got;
}

absl::Status Store::Release(const std::string& node,
                            absl::Span<const SlotEpoch> slots) {
  std::vector<int32_t> s;
  std::vector<int64_t> e;
  SplitSlots(slots, &s, &e);
  return PgExec(conn_, kReleaseSql,
                PgParams().Text(node).Int32Array(s).Int64Array(e))
      .status();
}

absl::StatusOr<int64_t> Store::RequeueOrphans(
    const std::string& node, absl::Span<const SlotEpoch> owned,
    const std::vector<std::string>& running_ids, int max_attempts,
    bool include_scheduled) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  std::vector<absl::string_view> ids(running_ids.begin(), running_ids.end());
  absl::StatusOr<PgResult> r = PgExec(conn_, kRequeueOrphansSql,
                                      PgParams()
                                          .Text(node)
                                          .Int32Array(slots)
                                          .Int64Array(epochs)
                                          .BytesArray(ids)
                                          .Int32(max_attempts)
                                          .Bool(include_scheduled));
  if (!r.ok()) return r.status();
  int64_t count = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &count);
  return count;
}

absl::Status Store::RemoveNode(const std::string& node) {
  return PgExec(conn_, kRemoveNodeSql, PgParams().Text(node)).status();
}

absl::StatusOr<int64_t> Store::ForgetStaleNodes(int64_t stale_for_us,
                                                int64_t limit) {
  absl::StatusOr<PgResult> r = PgExec(
      conn_, kForgetStaleNodesSql, PgParams().Int64(stale_for_us).Int64(limit));
  if (!r.ok()) return r.status();
  int64_t deleted = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &deleted);
  return deleted;
}

}  // namespace durable_internal
}  // namespace timingwheel
