-- Today's statements against the planned core's (docs/durable-core-plan.md),
-- on the store next_core_setup.sql makes. Each write runs in a transaction
-- that is rolled back, so the file can run again on the same store.
\timing on
\echo == planned load: the next due time of each of n0s 102 slots (reads one index entry per slot, writes nothing)
SELECT count(*) AS slots, min(x.due_us) AS earliest FROM tw_slot_lease l, LATERAL (
  SELECT t.due_us FROM tw_timer t
  WHERE t.slot = l.slot AND t.finished_us IS NULL AND t.state = 0
  ORDER BY t.due_us LIMIT 1) x
WHERE l.owner = 'n0' AND l.epoch = 7;

\echo == planned load again (warm): the next due time of each of n0s 102 slots (reads one index entry per slot, writes nothing)
SELECT count(*) AS slots, min(x.due_us) AS earliest FROM tw_slot_lease l, LATERAL (
  SELECT t.due_us FROM tw_timer t
  WHERE t.slot = l.slot AND t.finished_us IS NULL AND t.state = 0
  ORDER BY t.due_us LIMIT 1) x
WHERE l.owner = 'n0' AND l.epoch = 7;

\echo == planned fire: the due rows of n0s slots, fenced by each slot lease, PENDING -> RUNNING (one write per row; the attempt counts later, as today)
BEGIN;
WITH n AS (SELECT tw_now_us() AS now),
due AS (
  SELECT x.tid, l.epoch FROM tw_slot_lease l, n, LATERAL (
    SELECT t.ctid AS tid FROM tw_timer t
    WHERE t.slot = l.slot AND t.finished_us IS NULL AND t.state = 0
      AND t.due_us <= n.now
    ORDER BY t.due_us, t.priority DESC LIMIT 1000 FOR UPDATE OF t SKIP LOCKED) x
  WHERE l.owner = 'n0' AND l.epoch = 7 AND l.lease_until_us > n.now),
run AS (
  UPDATE tw_timer t SET state = 2, epoch = due.epoch,
                        version = nextval('tw_version_seq')
  FROM due WHERE t.ctid = due.tid RETURNING t.task_id)
SELECT count(*) AS fired FROM run;
ROLLBACK;

\echo == planned fire with each kind held to its free handlers (kind-0: 100, kind-1: none, kind-2: 1000), in due and priority order per kind
BEGIN;
WITH n AS (SELECT tw_now_us() AS now),
budget AS (
  SELECT * FROM unnest(ARRAY['kind-0', 'kind-1', 'kind-2'], ARRAY[100, 0, 1000])
    AS b(kind, free)),
cand AS (
  SELECT x.tid, x.kind, x.due_us, x.priority, l.epoch
  FROM tw_slot_lease l, n, LATERAL (
    SELECT t.ctid AS tid, t.kind, t.due_us, t.priority FROM tw_timer t
    WHERE t.slot = l.slot AND t.finished_us IS NULL AND t.state = 0
      AND t.due_us <= n.now
    ORDER BY t.due_us, t.priority DESC LIMIT 1000) x
  WHERE l.owner = 'n0' AND l.epoch = 7 AND l.lease_until_us > n.now),
due AS (
  SELECT c.tid, c.epoch FROM (
    SELECT c.*, row_number() OVER (PARTITION BY c.kind
                                   ORDER BY c.due_us, c.priority DESC) AS nth
    FROM cand c) c
  JOIN budget b ON b.kind = c.kind AND c.nth <= b.free),
locked AS (
  SELECT t.ctid AS tid, due.epoch FROM due, LATERAL (
    SELECT t.ctid FROM tw_timer t WHERE t.ctid = due.tid AND t.state = 0
    FOR UPDATE OF t SKIP LOCKED) t),
run AS (
  UPDATE tw_timer t SET state = 2, epoch = locked.epoch,
                        version = nextval('tw_version_seq')
  FROM locked WHERE t.ctid = locked.tid RETURNING t.kind)
SELECT kind, count(*) AS fired FROM run GROUP BY kind ORDER BY kind;
ROLLBACK;

\echo == the current fire by ids (the shape of kStartSql) of the same 1,000 rows; first, untimed in effect, they are claimed SCHEDULED
BEGIN;
UPDATE tw_timer SET state = 1, epoch = 7
WHERE slot < 102 AND due_us <= tw_now_us() AND finished_us IS NULL;
SELECT array_agg(task_id) AS ids FROM tw_timer WHERE slot < 102 AND state = 1 \gset
WITH n AS (SELECT tw_now_us() AS now),
b AS (SELECT b.task_id, b.ord
      FROM unnest(:'ids'::bytea[]) WITH ORDINALITY AS b(task_id, ord)),
due AS (
  SELECT x.tid FROM b, n, LATERAL (
    SELECT t.ctid AS tid FROM tw_timer t
    WHERE t.task_id = b.task_id AND t.state = 1 AND t.due_us <= n.now
      AND EXISTS (
        SELECT FROM tw_slot_lease l
        WHERE l.slot = t.slot AND l.epoch = t.epoch AND l.owner = 'n0'
          AND l.lease_until_us > n.now OFFSET 0)
    OFFSET 0 FOR UPDATE OF t) x),
run AS (
  UPDATE tw_timer t SET state = 2, version = nextval('tw_version_seq')
  WHERE t.ctid = ANY (ARRAY(SELECT tid FROM due)) RETURNING t.task_id)
SELECT count(*) AS fired FROM run;
ROLLBACK;

\echo == the current takeover load: every PENDING row of n0s 102 slots claimed SCHEDULED under the new epoch (one write per row)
BEGIN;
UPDATE tw_timer t SET state = 1, epoch = 8, version = nextval('tw_version_seq')
WHERE t.slot IN (SELECT slot FROM tw_slot_lease WHERE owner = 'n0')
  AND t.finished_us IS NULL AND t.state = 0;
ROLLBACK;
