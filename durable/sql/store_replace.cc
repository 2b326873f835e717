// Copyright 2026 The timingwheel Authors.
//
// Store::Replace(): schedule-or-replace and reschedule, one statement for
// a batch. The decision per row is taken in SQL on the row locked FOR
// UPDATE, so two replacements of one id serialize and neither is lost.
// A row that another transaction inserted and had not committed when the
// statement took its snapshot is invisible to the prior-row read; the
// insert then meets it in its conflict arm (after waiting for that
// commit), which applies the same rule to the committed row. Tests:
// ReplaceRaceTest.* (tests/durable/replace_race_test.cc).

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// ReplaceSql's prior_state of a row met only in the conflict arm and kept.
constexpr int kPriorUnseen = -2;

// $1..$5 the rows (ids, slots, due or delay, relative, payloads), $6 the
// slot count, $7 the inserter's node, $8 its horizon, $9 the notification
// limit, $10 has_payload, $11 the rules (ReplaceRule), $12 the kinds, $13
// the priorities (both taken with the payload, never by a reschedule,
// which keeps the stored ones). A written row is
// PENDING under a new version; rows in the inserter's slots due within its
// horizon are flagged `soon` (it loads them at once), other owners' rows
// due within their horizons wake them at commit, as the insert does.
// A payload (has_payload) starts the task afresh: attempt 0, no last error.
// prior_state is -1 for a row inserted, the stored state for a row seen in
// the snapshot, 0 for a row met only in the conflict arm and replaced, and
// -2 for one met there and kept (its state is read afterwards).
constexpr char kReplaceSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
input AS (
  SELECT i.task_id, i.slot, i.payload, i.has_payload, i.rule, i.ord,
         convert_from(i.kind, 'UTF8') AS kind, i.priority,
         CASE WHEN i.relative THEN n.now + i.due ELSE i.due END AS due_us
  FROM unnest($1::bytea[], $2::int4[], $3::int8[], $4::bool[], $5::bytea[],
              $10::bool[], $11::int2[], $12::bytea[], $13::int2[])
         WITH ORDINALITY
         AS i(task_id, slot, due, relative, payload, has_payload, rule, kind,
              priority, ord),
       n
  WHERE (SELECT value FROM tw_meta WHERE key = 'slot_count') = $6),
prior AS (
  SELECT t.task_id, t.state, t.due_us, t.payload, t.kind, t.priority
  FROM input i JOIN tw_timer t ON t.task_id = i.task_id
  FOR UPDATE OF t),
decided AS (
  SELECT i.task_id, i.slot, i.due_us, i.ord, p.state AS prior_state,
         CASE WHEN i.has_payload THEN i.payload ELSE p.payload END AS payload,
         CASE WHEN i.has_payload AND i.rule <> 3 THEN i.kind ELSE p.kind END
           AS kind,
         CASE WHEN i.has_payload AND i.rule <> 3 THEN i.priority
              ELSE p.priority END AS priority,
         CASE
           WHEN p.state IS NULL THEN i.rule <> 3
           WHEN p.state = 2 THEN false
           WHEN p.state >= 3 THEN i.rule <> 3
           WHEN i.rule = 1 THEN i.due_us < p.due_us
           WHEN i.rule = 2 THEN i.due_us > p.due_us
           ELSE true
         END AS take
  FROM input i LEFT JOIN prior p ON p.task_id = i.task_id),
up AS (
  INSERT INTO tw_timer AS t (task_id, slot, due_us, state, payload, kind,
                             priority)
  SELECT task_id, slot, due_us, 0, payload, kind, priority FROM decided
  WHERE take
  ON CONFLICT (task_id) DO UPDATE
  SET due_us = excluded.due_us, payload = excluded.payload, state = 0,
      kind = excluded.kind, priority = excluded.priority,
      attempt = CASE WHEN t.state >= 3 OR (SELECT has_payload FROM input
                                           WHERE task_id = excluded.task_id)
                THEN 0 ELSE t.attempt END,
      last_error = CASE WHEN t.state >= 3 OR (SELECT has_payload FROM input
                                              WHERE task_id = excluded.task_id)
                   THEN NULL ELSE t.last_error END,
      finished_us = NULL, version = nextval('tw_version_seq')
  WHERE t.state <> 2 AND (
    SELECT CASE
             WHEN t.state >= 3 THEN c.rule <> 3
             WHEN c.rule = 1 THEN excluded.due_us < t.due_us
             WHEN c.rule = 2 THEN excluded.due_us > t.due_us
             ELSE true
           END
    FROM input c WHERE c.task_id = excluded.task_id)
  RETURNING t.task_id, t.slot, t.due_us, t.kind, t.priority,
            t.xmax = 0 AS fresh),
flagged AS (
  SELECT up.task_id, up.slot, up.due_us, up.kind, up.priority, up.fresh,
         l.epoch, l.horizon_us,
         coalesce(l.owner = $7 AND l.lease_until_us > n.now, false) AS mine
  FROM up JOIN tw_slot_lease l ON l.slot = up.slot, n),
woken AS (
  SELECT string_agg(DISTINCT slot::text, ',') AS slots
  FROM flagged WHERE NOT mine AND due_us < (SELECT now FROM n) + horizon_us),
notified AS (
  SELECT pg_notify('timingwheel',
                   CASE WHEN length(slots) > $9 THEN '*' ELSE slots END)
  FROM woken WHERE slots IS NOT NULL)
SELECT d.task_id,
       CASE
         WHEN d.prior_state IS NOT NULL THEN d.prior_state
         WHEN f.task_id IS NOT NULL THEN CASE WHEN f.fresh THEN -1 ELSE 0 END
         WHEN d.take THEN -2
         ELSE -1
       END AS prior_state,
       f.task_id IS NOT NULL AS written,
       coalesce(f.mine AND f.due_us < (SELECT now FROM n) + $8, false)
         AS soon,
       f.slot, f.due_us, f.epoch, f.kind, f.priority,
       (SELECT now FROM n) AS db_now,
       (SELECT count(*) FROM notified) AS notified
FROM decided d LEFT JOIN flagged f ON f.task_id = d.task_id
ORDER BY d.ord
)sql";

// The states of rows met in the conflict arm and kept: committed by now.
constexpr char kStatesSql[] = R"sql(
SELECT task_id, state FROM tw_timer WHERE task_id = ANY($1::bytea[])
)sql";

// Rows kept in the conflict arm (prior_state -2) take the state the
// task has now: RUNNING (the caller learns kAlreadyRunning) or another
// (kKept); a row gone meanwhile counts as kept, as it existed when the
// statement decided. A plain replacement (`replaces[id]`) is never kept:
// the conflict arm skipped it only because the task was RUNNING then,
// whatever it is now (it may have finished meanwhile).
absl::StatusOr<ReplaceResult> ResolveConflicts(
    PGconn* conn, ReplaceResult result,
    const absl::flat_hash_set<absl::string_view>& replaces) {
  std::vector<absl::string_view> ids;
  for (ReplaceAnswer& answer : result.answers) {
    if (answer.prior_state != kPriorUnseen) continue;
    if (replaces.contains(answer.id)) {
      answer.prior_state = 2;
    } else {
      ids.push_back(answer.id);
    }
  }
  if (ids.empty()) return result;
  PgParams params;
  params.BytesArray(ids);
  absl::StatusOr<PgResult> states = PgExec(conn, kStatesSql, params);
  if (!states.ok()) return states.status();
  absl::flat_hash_map<std::string, int> state_of;
  for (int i = 0; i < states->rows(); ++i) {
    PgRow row(*states, i);
    state_of[row.Bytes("task_id")] = static_cast<int>(row.Int("state"));
    if (!row.status().ok()) return row.status();
  }
  for (ReplaceAnswer& answer : result.answers) {
    if (answer.prior_state != kPriorUnseen) continue;
    auto it = state_of.find(answer.id);
    answer.prior_state =
        it != state_of.end() && it->second == 2 ? it->second : 0;
  }
  return result;
}

}  // namespace

absl::StatusOr<ReplaceResult> Store::Replace(
    const Inserter& inserter, absl::Span<const ReplaceRow> rows) {
  ReplaceResult result;
  if (rows.empty()) return result;
  std::vector<absl::string_view> ids, payloads, kinds;
  std::vector<int32_t> slots;
  std::vector<int64_t> dues;
  std::vector<bool> relative, has_payload;
  std::vector<int16_t> rules, priorities;
  absl::flat_hash_set<absl::string_view> seen;
  for (const ReplaceRow& r : rows) {
    if (!seen.insert(r.row.id).second) {
      return absl::InvalidArgumentError(
          "the same task id twice in one batch of replacements");
    }
    ids.push_back(r.row.id);
    payloads.push_back(r.row.payload);
    slots.push_back(r.row.slot);
    dues.push_back(r.row.due_or_delay_us);
    relative.push_back(r.row.relative);
    has_payload.push_back(r.has_payload);
    rules.push_back(static_cast<int16_t>(r.rule));
    kinds.push_back(r.row.kind);
    priorities.push_back(static_cast<int16_t>(r.row.priority));
  }
  std::vector<InsertRow> kinded;
  for (const ReplaceRow& r : rows) {
    if (r.has_payload && !r.row.kind.empty()) kinded.push_back(r.row);
  }
  absl::Status known = CheckKinds(conn_, kinded, &known_kinds_);
  if (!known.ok()) return known;
  PgParams params;
  params.BytesArray(ids)
      .Int32Array(slots)
      .Int64Array(dues)
      .BoolArray(relative)
      .BytesArray(payloads)
      .Int64(inserter.slot_count)
      .Text(inserter.node_id)
      .Int64(inserter.horizon_us)
      .Int64(kMaxNotifyPayloadBytes)
      .BoolArray(has_payload)
      .Int16Array(rules)
      .BytesArray(kinds)
      .Int16Array(priorities);
  absl::StatusOr<PgResult> replaced = PgExec(conn_, kReplaceSql, params);
  if (!replaced.ok()) return replaced.status();
  if (replaced->rows() != static_cast<int>(rows.size())) {
    return absl::FailedPreconditionError(
        "task not stored: the store's slot count differs from the "
        "scheduler's (or the schema is missing)");
  }
  for (int i = 0; i < replaced->rows(); ++i) {
    PgRow row(*replaced, i);
    ReplaceAnswer answer;
    answer.id = row.Bytes("task_id");
    answer.prior_state = static_cast<int>(row.Int("prior_state"));
    answer.written = row.Int("written") != 0;
    result.inserted.db_now_us = row.Int("db_now");
    if (answer.written && row.Int("soon") != 0) {
      WheelEntry e;
      e.id = answer.id;
      e.slot = static_cast<int>(row.Int("slot"));
      e.due_us = row.Int("due_us");
      e.epoch = row.Int("epoch");
      e.kind = row.Bytes("kind");
      e.priority = static_cast<int>(row.Int("priority"));
      result.inserted.mine.push_back(std::move(e));
    }
    if (!row.status().ok()) return row.status();
    result.answers.push_back(std::move(answer));
  }
  absl::flat_hash_set<absl::string_view> replaces;
  for (const ReplaceRow& r : rows) {
    if (r.rule == ReplaceRule::kReplace) replaces.insert(r.row.id);
  }
  return ResolveConflicts(conn_, std::move(result), replaces);
}

}  // namespace durable_internal
}  // namespace timingwheel
