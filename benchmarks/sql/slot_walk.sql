-- benchmarks/sql/slot_walk.sh: 20,000 rows of one due instant over 1024
-- slots; the first row of each slot in the fire's order, over today's
-- index and over one with the priority in it.
INSERT INTO tw_timer (task_id, slot, due_us, state, payload, kind, priority)
SELECT convert_to('t' || i, 'UTF8'), i % 1024, 1000000, 0, '\x00', '', 0
FROM generate_series(1, 20000) i;
ANALYZE tw_timer;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT x.task_id FROM generate_series(0, 1023) s, LATERAL (
  SELECT t.task_id FROM tw_timer t
  WHERE t.slot = s AND t.finished_us IS NULL AND t.state IN (0, 1)
    AND t.due_us <= 2000000 AND t.kind = ''
  ORDER BY t.due_us, t.priority DESC, t.task_id LIMIT 1) x;
CREATE INDEX tw_timer_live_priority ON tw_timer (slot, due_us, priority DESC)
  WHERE finished_us IS NULL;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON)
SELECT x.task_id FROM generate_series(0, 1023) s, LATERAL (
  SELECT t.task_id FROM tw_timer t
  WHERE t.slot = s AND t.finished_us IS NULL AND t.state IN (0, 1)
    AND t.due_us <= 2000000 AND t.kind = ''
  ORDER BY t.due_us, t.priority DESC LIMIT 1) x;
