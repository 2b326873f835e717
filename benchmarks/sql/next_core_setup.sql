-- The store at :rows PENDING rows (psql -v rows=N; next_core.sh gives
-- 10^6) over 1024 slots, in today's task and lease tables; node n0 holds
-- 102 slots (a tenth), 1,000 of its rows already due. Used by next_core.sh.
CREATE FUNCTION tw_now_us() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint $$;
CREATE SEQUENCE tw_version_seq CACHE 1000;
CREATE TABLE tw_timer (
  task_id bytea PRIMARY KEY, slot integer NOT NULL, due_us bigint NOT NULL,
  state smallint NOT NULL, version bigint NOT NULL DEFAULT nextval('tw_version_seq'),
  epoch bigint NOT NULL DEFAULT 0, attempt integer NOT NULL DEFAULT 0,
  payload bytea NOT NULL, last_error bytea, finished_us bigint,
  kind text NOT NULL DEFAULT '', priority smallint NOT NULL DEFAULT 0) WITH (fillfactor = 50);
CREATE INDEX tw_timer_live ON tw_timer (slot, due_us) WHERE finished_us IS NULL;
CREATE INDEX tw_timer_finished ON tw_timer (slot, finished_us) WHERE finished_us IS NOT NULL;
CREATE TABLE tw_slot_lease (slot integer PRIMARY KEY, owner text, epoch bigint NOT NULL DEFAULT 0,
  lease_until_us bigint NOT NULL DEFAULT 0, horizon_us bigint NOT NULL DEFAULT 0) WITH (fillfactor = 50);
INSERT INTO tw_slot_lease SELECT s, CASE WHEN s < 102 THEN 'n0' ELSE 'n' || (s % 9 + 1) END, 7, tw_now_us() + 3600000000 FROM generate_series(0, 1023) s;
-- Ids hashed to slots, due over an hour from a minute on, of three kinds;
-- then 1,000 of n0's rows due already.
INSERT INTO tw_timer (task_id, slot, due_us, state, payload, kind)
SELECT convert_to('task-' || i, 'UTF8'), (hashint4(i) & 1023), tw_now_us() + 60000000 + (hashint4(i * 7) & 2147483647)::bigint % 3600000000, 0, '\x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20'::bytea, 'kind-' || (i % 3)
FROM generate_series(1, :rows) i;
UPDATE tw_timer SET due_us = tw_now_us() - 1000 WHERE task_id IN (SELECT task_id FROM tw_timer WHERE slot < 102 ORDER BY task_id LIMIT 1000);
VACUUM ANALYZE tw_timer; VACUUM ANALYZE tw_slot_lease;
SELECT count(*) FILTER (WHERE slot < 102) AS owned_rows, count(*) FROM tw_timer;
