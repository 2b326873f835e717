// Copyright 2026 The timingwheel Authors.
//
// The statements of a task's way through an owner: the horizon load, the
// fire, start marks, outcomes (with their attempt records) and the
// cleanup of finished rows.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "durable/sql/store_internal.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// The horizon load: one statement for all the slots this node holds. It
// claims the PENDING rows and the rows a former owner left claimed, under
// another epoch than the lease's (kAcquireSql): SCHEDULED ones (a takeover
// leaves them for this load, which writes each row once, where re-stamping
// them PENDING first wrote it twice) and RUNNING ones (a former owner's fire
// that committed after the takeover had read the slot; FAILED once their
// attempts are used up, as the takeover's re-stamp does).
//
// Its cost follows the limit, not the table: each slot's candidates are
// read in due order through the live-row index (a LATERAL subquery per
// slot with its own LIMIT $7, which the caller sets to a share of the
// limit), and only then sorted, a bounded sort of at most slots x $7 rows,
// and cut to the limit $5. The rows are locked after the cut, each by its
// key (a lock under the sort, as in `ORDER BY ... LIMIT ... FOR UPDATE`,
// makes the sort read and keep every candidate of every slot: at 10^6 rows
// a load cost 1-2 s whatever its limit). `more` says whether rows were left
// over (more than the limit, or a slot that gave its whole share), so the
// caller loads again at once; `skipped` counts the rows cut to the limit
// that another transaction held locked (a former owner's fire in flight, a
// caller's open transaction), which a later load must take. A load that
// claims nothing still returns one row, with both and no task.
//
// It locks the lease rows it claims under (FOR KEY SHARE) until it
// commits: a takeover either waits and is skipped (its FOR UPDATE SKIP
// LOCKED passes the slot over until the next round, when its own load
// claims what this load committed), or committed first, and then this load
// re-reads the lease row and claims nothing in that slot. The owner's own
// renewals (an UPDATE of no key column, on the renewer's connection) do
// not wait for it. The db_now_us column reads the database's clock again
// as each row is returned (not `n.now`, read when the statement started):
// the process converts due times with the latest reading, so a slow
// statement does not make every task it loads fire late by its run time.
constexpr char kClaimSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
mine AS (
  SELECT l.slot, l.epoch
  FROM tw_slot_lease l
  JOIN unnest($2::int4[], $3::int8[]) AS m(slot, epoch)
    ON l.slot = m.slot AND l.epoch = m.epoch, n
  WHERE l.owner = $1 AND l.lease_until_us > n.now
  FOR KEY SHARE OF l),
cand AS MATERIALIZED (
  SELECT mine.slot, mine.epoch, x.task_id, x.due_us, x.priority
  FROM mine, n, LATERAL (
    SELECT t.task_id, t.due_us, t.priority FROM tw_timer t
    WHERE t.slot = mine.slot AND t.finished_us IS NULL
      AND (t.state = 0 OR (t.state IN (1, 2) AND t.epoch <> mine.epoch))
      AND t.due_us < n.now + $4
    ORDER BY t.due_us, t.priority DESC LIMIT $7) x),
c AS (
  SELECT x.task_id, x.used_up, first.epoch
  FROM (SELECT * FROM cand ORDER BY due_us, priority DESC LIMIT $5) first,
       LATERAL (
         SELECT t.task_id, t.state = 2 AND t.attempt >= $6 AS used_up
         FROM tw_timer t
         WHERE t.task_id = first.task_id AND t.finished_us IS NULL
           AND (t.state = 0
                OR (t.state IN (1, 2) AND t.epoch <> first.epoch))
         OFFSET 0 FOR UPDATE OF t SKIP LOCKED) x),
failed AS (
  UPDATE tw_timer t SET state = 4, finished_us = tw_now_us(), epoch = c.epoch,
                        version = nextval('tw_version_seq')
  FROM c WHERE t.task_id = c.task_id AND c.used_up),
claimed AS (
  UPDATE tw_timer t SET state = 1, epoch = c.epoch, version = nextval('tw_version_seq')
  FROM c WHERE t.task_id = c.task_id AND NOT c.used_up
  RETURNING t.task_id, t.slot, t.due_us, t.epoch, t.kind, t.priority),
left_over AS (
  SELECT k.n > $5 OR k.fullest >= $7 AS more,
         least($5, k.n) - (SELECT count(*) FROM c) AS skipped
  FROM (SELECT coalesce(sum(per_slot), 0)::int8 AS n,
               coalesce(max(per_slot), 0) AS fullest
        FROM (SELECT count(*) AS per_slot FROM cand GROUP BY slot) s) k)
SELECT claimed.*, tw_now_us() AS db_now_us, left_over.more, left_over.skipped
FROM left_over LEFT JOIN claimed ON true
)sql";

// The fire CAS: SCHEDULED -> RUNNING for the due rows, claimed under their
// slot's current epoch, of slots this node holds under a valid lease. The
// row's `attempt` (attempts started) is not incremented here: the attempt
// returned is the next one, and it counts once its handler has started
// (kMarkStartedSql, or its completion). A process killed between this
// statement and the handler's start leaves a RUNNING row whose attempt was
// never counted; the next owner runs it under the same number.
//
// Also returns the rows that are not due yet on the database's clock. The
// batch (`unnest` WITH ORDINALITY, in the caller's order) drives a nested
// loop over the primary key whatever the statistics say: each id's row is
// found and locked by a LATERAL subquery fenced with OFFSET 0 (so it cannot
// be flattened into a join the planner may turn around), and the update
// then reaches the locked rows by their ctids (one TID scan of the array:
// a join on ctid would hash the whole table). Plans
// that start from the table instead, trusting statistics that say "about
// one SCHEDULED row" when there are 20,000, rescanned the batch per row
// (seconds per statement). The lease check is a subquery kept as a SubPlan
// (OFFSET 0 again): one probe of the lease table's key per row, never a
// rescan of its rows. Due-ness is checked against `n.now`; the last column
// is a later reading, for converting the not-due rows' due times.
constexpr char kStartSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
b AS (
  SELECT b.task_id, b.ord
  FROM unnest($2::bytea[]) WITH ORDINALITY AS b(task_id, ord)),
due AS (
  SELECT x.tid
  FROM b, n, LATERAL (
    SELECT t.ctid AS tid FROM tw_timer t
    WHERE t.task_id = b.task_id AND t.state = 1 AND t.due_us <= n.now
      AND EXISTS (
        SELECT FROM tw_slot_lease l
        WHERE l.slot = t.slot AND l.epoch = t.epoch AND l.owner = $1
          AND l.lease_until_us > n.now OFFSET 0)
    OFFSET 0 FOR UPDATE OF t) x),
run AS (
  UPDATE tw_timer t
  SET state = 2, version = nextval('tw_version_seq')
  WHERE t.ctid = ANY (ARRAY(SELECT tid FROM due))
  RETURNING t.task_id, t.payload, t.attempt + 1 AS attempt, t.version,
            t.due_us, t.slot, t.epoch, t.kind, t.priority),
early AS (
  SELECT x.*
  FROM b, n, LATERAL (
    SELECT t.task_id, t.slot, t.due_us, t.epoch, t.kind, t.priority
    FROM tw_timer t
    WHERE t.task_id = b.task_id AND t.state = 1 AND t.due_us > n.now
    OFFSET 0) x)
SELECT true AS run, task_id, payload, attempt, version, due_us, slot, epoch,
       tw_now_us() AS db_now_us, kind, priority,
       (SELECT now FROM n) AS started_us
FROM run
UNION ALL
SELECT false, task_id, NULL, 0, 0, due_us, slot, epoch, tw_now_us(), kind,
       priority, (SELECT now FROM n)
FROM early
)sql";

// Outcomes of a batch: compare-and-set on RUNNING and the attempt's version.
// Its rows are locked in the order of its arrays, by task id (ByTaskId()).
// The update reaches them by id, not by the ctid the lock returned: a start
// mark committed by the other outcome writer after this statement's
// snapshot made a newer row version, which the snapshot cannot see at that
// ctid (the outcome was dropped); by id, the update re-checks the newest
// version, as READ COMMITTED does.
// Outcome 3 (snooze) is due again like a retry, keeps the last error unless
// it gives one, and uncounts its attempt (the start mark may have counted
// it). The batch (`unnest` WITH ORDINALITY) drives a nested loop over the
// primary key whatever the statistics say, as in the fire statement: a
// fenced LATERAL subquery finds and locks each row, the update reaches the
// rows by their ctids (a TID scan) and joins the batch's values to them.
// Retries are due `n.now` + backoff; the sixth column is a later reading of
// the clock, for converting their due times. With $9, each written outcome
// leaves its attempt's record (tw_attempt; outcome codes as `Outcome`,
// which AttemptOutcome repeats), from the rows the update wrote: an
// outcome the compare-and-set refused records nothing. A snooze's record
// replaces the earlier snoozes of the same attempt number (a snooze does
// not count its attempt, so the next run has the same number): a task that
// keeps snoozing keeps one snooze record per attempt number, and its
// history stays within two records per attempt that counted. A snooze
// before an operator's retry (outcome 4, which resets the attempt count)
// is a run of before and is kept
// (AdminStoreTest.RetryKeepsTheSnoozesOfTheRunsBeforeIt).
constexpr char kCompleteSql[] = R"sql(
WITH n AS (SELECT tw_now_us() AS now),
c AS (
  SELECT c.*, x.tid
  FROM unnest($1::bytea[], $2::int8[], $3::int2[], $4::int8[], $5::bytea[],
              $7::int4[], $10::int8[]) WITH ORDINALITY
         AS c(task_id, version, outcome, backoff_us, error, attempt,
              started_us, ord),
       LATERAL (
         SELECT t.ctid AS tid FROM tw_timer t
         WHERE t.task_id = c.task_id AND t.state = 2
           AND t.version = c.version
         OFFSET 0 FOR UPDATE OF t) x),
done AS (
  UPDATE tw_timer t
  SET state = CASE c.outcome WHEN 0 THEN 3 WHEN 2 THEN 4
                   ELSE CASE WHEN c.backoff_us < $6 THEN 1 ELSE 0 END END,
      due_us = CASE WHEN c.outcome IN (1, 3) THEN n.now + c.backoff_us
                    ELSE t.due_us END,
      finished_us = CASE WHEN c.outcome IN (1, 3) THEN NULL ELSE n.now END,
      last_error = CASE WHEN c.outcome = 0 THEN t.last_error
                        WHEN c.outcome = 3 AND length(c.error) = 0
                          THEN t.last_error
                        ELSE c.error END,
      attempt = CASE WHEN c.outcome = 3 THEN least(t.attempt, c.attempt - 1)
                     ELSE greatest(t.attempt, c.attempt) END,
      version = nextval('tw_version_seq')
  FROM c, n
  WHERE t.task_id = ANY (ARRAY(SELECT task_id FROM c))
    AND t.task_id = c.task_id AND t.state = 2 AND t.version = c.version
  RETURNING t.task_id, t.slot, t.state, t.due_us, t.epoch, t.kind,
            t.priority, c.outcome, c.attempt, c.started_us, c.error, n.now),
history AS (
  INSERT INTO tw_attempt (task_id, attempt, outcome, node_id, started_us,
                          finished_us, error)
  SELECT task_id, attempt, outcome, $8, started_us, now, nullif(error, '')
  FROM done WHERE $9),
snoozes_replaced AS (
  DELETE FROM tw_attempt a USING done
  WHERE $9 AND done.outcome = 3 AND a.task_id = done.task_id
    AND a.attempt = done.attempt AND a.outcome = 3
    AND NOT EXISTS (
      SELECT FROM tw_attempt m
      WHERE m.task_id = a.task_id AND m.outcome = 4
        AND m.finished_us >= a.finished_us))
SELECT task_id, slot, state, due_us, epoch, tw_now_us() AS db_now_us, kind,
       priority
FROM done
)sql";

// Counts started attempts: the row is still RUNNING under the version the
// fire gave it. Leaves the version alone (the completion's compare-and-set
// still matches). As the completion, it locks its rows one by one in the
// order of its arrays (sorted by task id, ByTaskId()): the outcome writers
// write marks and outcomes of the same rows at once, and two statements
// that lock in one order cannot deadlock.
constexpr char kMarkStartedSql[] = R"sql(
WITH m AS (
  SELECT m.task_id, m.version, m.attempt
  FROM unnest($1::bytea[], $2::int8[], $3::int4[]) WITH ORDINALITY
         AS m(task_id, version, attempt, ord),
       LATERAL (
         SELECT t.ctid AS tid FROM tw_timer t
         WHERE t.task_id = m.task_id AND t.version = m.version
           AND t.state = 2 AND t.attempt < m.attempt
         OFFSET 0 FOR UPDATE OF t) x)
UPDATE tw_timer t SET attempt = m.attempt
FROM m
WHERE t.task_id = ANY (ARRAY(SELECT task_id FROM m))
  AND t.task_id = m.task_id AND t.version = m.version AND t.state = 2
  AND t.attempt < m.attempt
)sql";

// The order in which `ids` are sent: by task id (bytes), the order every
// statement that locks a batch of RUNNING rows locks them in.
std::vector<size_t> ByTaskId(const std::vector<absl::string_view>& ids) {
  std::vector<size_t> order(ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return ids[a] < ids[b]; });
  return order;
}

// The outer conditions repeat the inner ones: a DELETE that waited on a row
// lock re-checks only them on the row's new version, so a row that a
// replacement or a retry turned back to PENDING meanwhile is kept
// (ReplaceTest.AReplacementRacingTheCleanupKeepsTheTask).
constexpr char kDeleteFinishedSql[] = R"sql(
DELETE FROM tw_timer WHERE task_id IN (
  SELECT task_id FROM tw_timer
  WHERE slot = ANY($1::int4[]) AND finished_us IS NOT NULL AND state >= 3
    AND finished_us < tw_now_us() - $2
  LIMIT $3)
  AND state >= 3 AND finished_us < tw_now_us() - $2
)sql";

// The most rows the horizon load reads from one slot: twice the slot's
// even share of `limit` (slots fill about evenly: ids are hashed), at least
// 16. A slot with more left over makes the load report `more`.
int64_t PerSlotShare(absl::Span<const SlotEpoch> owned, int64_t limit) {
  const int64_t slots = std::max<int64_t>(1, owned.size());
  return std::min(limit,
                  std::max<int64_t>(16, 2 * ((limit + slots - 1) / slots)));
}

}  // namespace

absl::StatusOr<Claimed> Store::ClaimDue(const std::string& node,
                                        absl::Span<const SlotEpoch> owned,
                                        int64_t horizon_us, int64_t limit,
                                        int max_attempts) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  absl::StatusOr<PgResult> r = PgExec(conn_, kClaimSql,
                                      PgParams()
                                          .Text(node)
                                          .Int32Array(slots)
                                          .Int64Array(epochs)
                                          .Int64(horizon_us)
                                          .Int64(limit)
                                          .Int32(max_attempts)
                                          .Int64(PerSlotShare(owned, limit)));
  if (!r.ok()) return r.status();
  PgColumns column(*r);
  const EntryColumns entry(column);
  const int db_now = column("db_now_us"), more = column("more"),
            skipped = column("skipped");
  if (!column.status().ok()) return column.status();
  Claimed claimed;
  claimed.tasks.reserve(r->rows());
  for (int i = 0; i < r->rows(); ++i) {
    // Every row carries the counts; a load that claimed nothing returns one
    // row with them and no task.
    claimed.more = claimed.more || r->Int(i, more) != 0;
    claimed.skipped = std::max(claimed.skipped, r->Int(i, skipped));
    claimed.db_now_us = std::max(claimed.db_now_us, r->Int(i, db_now));
    if (r->IsNull(i, entry.id)) continue;
    claimed.tasks.push_back(entry.Read(*r, i));
  }
  return claimed;
}

absl::StatusOr<FireResult> Store::StartRunning(
    const std::string& node, absl::Span<const WheelEntry> entries) {
  std::vector<absl::string_view> ids;
  for (const WheelEntry& e : entries) ids.push_back(e.id);
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kStartSql, PgParams().Text(node).BytesArray(ids));
  if (!r.ok()) return r.status();
  PgColumns column(*r);
  const EntryColumns entry(column);
  const int run = column("run"), payload = column("payload"),
            attempt = column("attempt"), version = column("version"),
            db_now = column("db_now_us"), started_us = column("started_us");
  if (!column.status().ok()) return column.status();
  FireResult result;
  for (int i = 0; i < r->rows(); ++i) {
    result.db_now_us = std::max(result.db_now_us, r->Int(i, db_now));
    WheelEntry e = entry.Read(*r, i);
    if (r->Int(i, run) == 0) {
      result.not_due.push_back(std::move(e));
      continue;
    }
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
  return result;
}

absl::StatusOr<CompleteResult> Store::Complete(
    absl::Span<const Completion> completions, int64_t horizon_us,
    const AttemptLog& log) {
  std::vector<absl::string_view> ids, errors;
  std::vector<int64_t> versions, backoffs, started;
  std::vector<int16_t> outcomes;
  std::vector<int32_t> attempts;
  std::vector<absl::string_view> unsorted;
  for (const Completion& c : completions) unsorted.push_back(c.id);
  for (size_t i : ByTaskId(unsorted)) {
    const Completion& c = completions[i];
    attempts.push_back(c.attempt);
    ids.push_back(c.id);
    versions.push_back(c.version);
    outcomes.push_back(static_cast<int16_t>(c.outcome));
    backoffs.push_back(c.backoff_us);
    errors.push_back(c.error);
    started.push_back(c.started_us);
  }
  absl::StatusOr<PgResult> r = PgExec(conn_, kCompleteSql,
                                      PgParams()
                                          .BytesArray(ids)
                                          .Int64Array(versions)
                                          .Int16Array(outcomes)
                                          .Int64Array(backoffs)
                                          .BytesArray(errors)
                                          .Int64(horizon_us)
                                          .Int32Array(attempts)
                                          .Text(log.node_id)
                                          .Bool(log.record)
                                          .Int64Array(started));
  if (!r.ok()) return r.status();
  PgColumns column(*r);
  const EntryColumns entry(column);
  const int state_column = column("state"), db_now = column("db_now_us");
  if (!column.status().ok()) return column.status();
  CompleteResult result;
  result.written = r->rows();
  for (int i = 0; i < r->rows(); ++i) {
    result.db_now_us = std::max(result.db_now_us, r->Int(i, db_now));
    const int64_t state = r->Int(i, state_column);
    if (state == static_cast<int>(TaskState::kSuccess)) {
      ++result.succeeded;
    } else if (state == static_cast<int>(TaskState::kFailed)) {
      ++result.failed;
    } else {
      ++result.retried;
    }
    if (state == static_cast<int>(TaskState::kScheduled)) {
      result.retries.push_back(entry.Read(*r, i));
    }
  }
  return result;
}

absl::StatusOr<int64_t> Store::MarkStarted(absl::Span<const StartMark> marks) {
  std::vector<absl::string_view> ids;
  std::vector<int64_t> versions;
  std::vector<int32_t> attempts;
  std::vector<absl::string_view> unsorted;
  for (const StartMark& m : marks) unsorted.push_back(m.id);
  for (size_t i : ByTaskId(unsorted)) {
    const StartMark& m = marks[i];
    ids.push_back(m.id);
    versions.push_back(m.version);
    attempts.push_back(m.attempt);
  }
  absl::StatusOr<PgResult> r = PgExec(
      conn_, kMarkStartedSql,
      PgParams().BytesArray(ids).Int64Array(versions).Int32Array(attempts));
  if (!r.ok()) return r.status();
  int64_t marked = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &marked);
  return marked;
}

absl::StatusOr<int64_t> Store::DeleteFinished(absl::Span<const SlotEpoch> owned,
                                              int64_t retain_us,
                                              int64_t limit) {
  std::vector<int32_t> slots;
  std::vector<int64_t> epochs;
  SplitSlots(owned, &slots, &epochs);
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kDeleteFinishedSql,
             PgParams().Int32Array(slots).Int64(retain_us).Int64(limit));
  if (!r.ok()) return r.status();
  int64_t deleted = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &deleted);
  return deleted;
}

}  // namespace durable_internal
}  // namespace timingwheel
