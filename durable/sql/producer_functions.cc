// Copyright 2026 The timingwheel Authors.
//
// The SQL functions producers in any language call (producer_functions.h).

#include "durable/sql/producer_functions.h"

namespace timingwheel {
namespace durable_internal {

// Every function runs in its caller's transaction: a rollback stores
// nothing and sends no wake-up (NOTIFY is sent at commit). Each checks its
// input against the C++ producer's limits with its default options
// (request.cc, task.cc) and raises SQLSTATE 22023 (invalid_parameter_value)
// with a message naming the field; an existing id that differs raises
// 23505 (unique_violation). Messages begin "timingwheel: ".
//
// tw_slot_for() is SlotFor() (request.h): FNV-1a, 64 bits, over the id's
// bytes, modulo the slot count, computed on two 32-bit halves held in
// bigint (h * (2^40 + 435) mod 2^64: the high half gains lo << 8).
// tw_wake() is the inserters' wake-up (store_insert.cc): the owner of the
// row's slot hears of a row due within its horizon.
const char kProducerFunctionsSql[] = R"sql(
CREATE FUNCTION tw_slot_for(task_id bytea, slot_count integer)
RETURNS integer LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  hi bigint := 3421674724;
  lo bigint := 2216829733;
  product bigint;
BEGIN
  FOR i IN 0 .. length(task_id) - 1 LOOP
    lo := lo # get_byte(task_id, i);
    product := lo * 435;
    hi := (hi * 435 + (product >> 32) + ((lo & 16777215) << 8)) & 4294967295;
    lo := product & 4294967295;
  END LOOP;
  RETURN (((hi % slot_count) * (4294967296 % slot_count) + lo)
          % slot_count)::integer;
END $$;

CREATE FUNCTION tw_bad_input(message text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
    MESSAGE = 'timingwheel: ' || message;
END $$;

CREATE FUNCTION tw_task_key(task_id text) RETURNS bytea
LANGUAGE plpgsql STABLE AS $$
DECLARE
  key bytea;
BEGIN
  IF task_id IS NULL THEN PERFORM tw_bad_input('task_id is null'); END IF;
  key := convert_to(task_id, 'UTF8');
  IF length(key) = 0 THEN PERFORM tw_bad_input('task_id is empty'); END IF;
  IF length(key) > 1024 THEN
    PERFORM tw_bad_input(format('task_id of %s bytes exceeds 1024',
                                length(key)));
  END IF;
  IF position('\x1b74772d7363686564756c653a'::bytea IN key) = 1 THEN
    PERFORM tw_bad_input('task_id starts with the prefix reserved for '
                         'recurring schedules'' occurrences');
  END IF;
  RETURN key;
END $$;

CREATE FUNCTION tw_due_us(due timestamptz) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF due IS NULL THEN PERFORM tw_bad_input('due is null'); END IF;
  IF NOT isfinite(due) OR due < 'epoch'::timestamptz
     OR due >= '10000-01-01 00:00:00+00'::timestamptz THEN
    PERFORM tw_bad_input(format('due %s is outside [1970-01-01, 10000-01-01)',
                                due));
  END IF;
  RETURN (extract(epoch FROM due) * 1000000)::bigint;
END $$;

CREATE FUNCTION tw_delay_due_us(delay interval) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  delay_us numeric;
BEGIN
  IF delay IS NULL THEN PERFORM tw_bad_input('delay is null'); END IF;
  IF NOT isfinite(delay) THEN
    PERFORM tw_bad_input('delay is infinite');
  END IF;
  delay_us := extract(epoch FROM delay) * 1000000;
  IF delay_us >= 220898620800000000 THEN
    PERFORM tw_bad_input(format('delay %s is not shorter than 220898620800 s',
                                delay));
  END IF;
  RETURN tw_now_us() + greatest(delay_us, 0)::bigint;
END $$;

CREATE FUNCTION tw_check_task(payload bytea, kind text, priority integer)
RETURNS void LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF payload IS NULL THEN PERFORM tw_bad_input('payload is null'); END IF;
  IF length(payload) = 0 THEN PERFORM tw_bad_input('payload is empty'); END IF;
  IF length(payload) > 16777216 THEN
    PERFORM tw_bad_input(format('payload of %s bytes exceeds 16777216',
                                length(payload)));
  END IF;
  IF kind IS NULL THEN PERFORM tw_bad_input('kind is null'); END IF;
  IF octet_length(kind) > 128 THEN
    PERFORM tw_bad_input(format('kind of %s bytes exceeds 128',
                                octet_length(kind)));
  END IF;
  IF kind !~ '^[ -~]*$' THEN
    PERFORM tw_bad_input('kind: printable ASCII only (0x20 to 0x7e)');
  END IF;
  IF kind <> '' AND NOT EXISTS (SELECT FROM tw_kind k
                                WHERE k.kind = tw_check_task.kind) THEN
    PERFORM tw_bad_input(format('kind %L is not registered by any scheduler',
                                kind));
  END IF;
  IF priority IS NULL OR priority < -32768 OR priority > 32767 THEN
    PERFORM tw_bad_input(format('priority %s is outside [-32768, 32767]',
                                priority));
  END IF;
END $$;

CREATE FUNCTION tw_slot_count() RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT value::integer FROM tw_meta WHERE key = 'slot_count'
$$;

CREATE FUNCTION tw_wake(slot integer, due_us bigint) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_notify('timingwheel', tw_wake.slot::text) FROM tw_slot_lease l
  WHERE l.slot = tw_wake.slot AND tw_wake.due_us < tw_now_us() + l.horizon_us
$$;

-- Inserts the task unless its id is stored (or being inserted: waits for
-- that commit); wakes the slot's owner for a task it inserted.
CREATE FUNCTION tw_insert_new(key bytea, slot integer, due_us bigint,
                              payload bytea, kind text, priority integer)
RETURNS boolean LANGUAGE plpgsql AS $$
#variable_conflict use_variable
BEGIN
  INSERT INTO tw_timer (task_id, slot, due_us, state, payload, kind, priority)
  VALUES (key, slot, due_us, 0, payload, kind, priority)
  ON CONFLICT (task_id) DO NOTHING;
  IF NOT FOUND THEN RETURN false; END IF;
  PERFORM tw_wake(slot, due_us);
  RETURN true;
END $$;

CREATE FUNCTION tw_insert_task(key bytea, due_us bigint, relative boolean,
                               payload bytea, kind text, priority integer)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
  slot integer := tw_slot_for(key, tw_slot_count());
  stored record;
BEGIN
  PERFORM tw_check_task(payload, kind, priority);
  FOR try_number IN 1 .. 3 LOOP
    IF tw_insert_new(key, slot, due_us, payload, kind, priority) THEN
      RETURN 'SCHEDULED';
    END IF;
    SELECT t.due_us, t.payload, t.kind, t.priority, t.state INTO stored
    FROM tw_timer t WHERE t.task_id = key;
    IF FOUND THEN
      IF stored.payload = payload AND stored.kind = kind
         AND stored.priority = priority
         AND (relative OR stored.due_us = due_us) THEN
        IF stored.state = 0 THEN PERFORM tw_wake(slot, stored.due_us); END IF;
        RETURN 'EXISTS';
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'unique_violation',
        MESSAGE = 'timingwheel: task id exists with another due time, '
                  'payload, kind or priority',
        HINT = 'tw_schedule_or_replace() changes a waiting task';
    END IF;
  END LOOP;
  RAISE EXCEPTION USING ERRCODE = 'serialization_failure',
    MESSAGE = 'timingwheel: task id inserted and removed concurrently; retry';
END $$;

CREATE FUNCTION tw_schedule_task(task_id text, due timestamptz, payload bytea,
                                 kind text DEFAULT '',
                                 priority integer DEFAULT 0)
RETURNS text LANGUAGE sql AS $$
  SELECT tw_insert_task(tw_task_key(task_id), tw_due_us(due), false, payload,
                        kind, priority)
$$;

CREATE FUNCTION tw_schedule_task_after(task_id text, delay interval,
                                       payload bytea, kind text DEFAULT '',
                                       priority integer DEFAULT 0)
RETURNS text LANGUAGE sql AS $$
  SELECT tw_insert_task(tw_task_key(task_id), tw_delay_due_us(delay), true,
                        payload, kind, priority)
$$;

CREATE FUNCTION tw_replace_task(key bytea, due_us bigint, payload bytea,
                                mode text, kind text, priority integer)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
  slot integer := tw_slot_for(key, tw_slot_count());
  reschedule boolean := mode = 'RESCHEDULE';
  stored record;
  take boolean;
BEGIN
  IF mode IS NULL OR mode NOT IN ('REPLACE', 'KEEP_EARLIER', 'KEEP_LATER',
                                  'RESCHEDULE') THEN
    PERFORM tw_bad_input(format('mode %L is not REPLACE, KEEP_EARLIER or '
                                'KEEP_LATER', mode));
  END IF;
  IF payload IS NOT NULL OR NOT reschedule THEN
    PERFORM tw_check_task(payload, kind, priority);
  END IF;
  FOR try_number IN 1 .. 3 LOOP
    SELECT t.state, t.due_us, t.slot INTO stored FROM tw_timer t
    WHERE t.task_id = key FOR UPDATE;
    IF NOT FOUND THEN
      IF reschedule THEN RETURN 'NOT_FOUND'; END IF;
      IF tw_insert_new(key, slot, due_us, payload, kind, priority) THEN
        RETURN 'SCHEDULED';
      END IF;
      CONTINUE;  -- Inserted by another transaction meanwhile: decide again.
    END IF;
    IF stored.state = 2 THEN RETURN 'ALREADY_RUNNING'; END IF;
    IF stored.state >= 3 AND reschedule THEN RETURN 'FINISHED'; END IF;
    take := CASE WHEN stored.state >= 3 THEN true
                 WHEN mode = 'KEEP_EARLIER' THEN due_us < stored.due_us
                 WHEN mode = 'KEEP_LATER' THEN due_us > stored.due_us
                 ELSE true END;
    IF NOT take THEN RETURN 'KEPT'; END IF;
    UPDATE tw_timer t
    SET due_us = due_us, state = 0,
        payload = coalesce(payload, t.payload),
        kind = CASE WHEN reschedule THEN t.kind ELSE kind END,
        priority = CASE WHEN reschedule THEN t.priority ELSE priority END,
        attempt = CASE WHEN payload IS NULL THEN t.attempt ELSE 0 END,
        last_error = CASE WHEN payload IS NULL THEN t.last_error END,
        finished_us = NULL, version = nextval('tw_version_seq')
    WHERE t.task_id = key;
    PERFORM tw_wake(stored.slot, due_us);
    RETURN CASE WHEN stored.state >= 3 THEN 'SCHEDULED' ELSE 'REPLACED' END;
  END LOOP;
  RAISE EXCEPTION USING ERRCODE = 'serialization_failure',
    MESSAGE = 'timingwheel: task id inserted and removed concurrently; retry';
END $$;

CREATE FUNCTION tw_schedule_or_replace(task_id text, due timestamptz,
                                       payload bytea,
                                       mode text DEFAULT 'REPLACE',
                                       kind text DEFAULT '',
                                       priority integer DEFAULT 0)
RETURNS text LANGUAGE sql AS $$
  SELECT tw_replace_task(tw_task_key(task_id), tw_due_us(due), payload,
                         upper(coalesce(mode, 'null')), kind, priority)
$$;

CREATE FUNCTION tw_schedule_or_replace_after(task_id text, delay interval,
                                             payload bytea,
                                             mode text DEFAULT 'REPLACE',
                                             kind text DEFAULT '',
                                             priority integer DEFAULT 0)
RETURNS text LANGUAGE sql AS $$
  SELECT tw_replace_task(tw_task_key(task_id), tw_delay_due_us(delay),
                         payload, upper(coalesce(mode, 'null')), kind,
                         priority)
$$;

CREATE FUNCTION tw_reschedule(task_id text, due timestamptz,
                              payload bytea DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
  SELECT tw_replace_task(tw_task_key(task_id), tw_due_us(due), payload,
                         'RESCHEDULE', '', 0)
$$;

CREATE FUNCTION tw_reschedule_after(task_id text, delay interval,
                                    payload bytea DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
  SELECT tw_replace_task(tw_task_key(task_id), tw_delay_due_us(delay), payload,
                         'RESCHEDULE', '', 0)
$$;

CREATE FUNCTION tw_cancel_task(task_id text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  key bytea := tw_task_key(task_id);
  stored record;
BEGIN
  SELECT t.state, t.version INTO stored FROM tw_timer t
  WHERE t.task_id = key FOR UPDATE;
  IF NOT FOUND THEN RETURN 'NOT_FOUND'; END IF;
  IF stored.state >= 3 THEN RETURN 'FINISHED'; END IF;
  DELETE FROM tw_timer t WHERE t.task_id = key;
  IF stored.state = 2 THEN
    PERFORM pg_notify('timingwheel_stop',
                      encode(key, 'hex') || ':' || stored.version);
    RETURN 'STOP_REQUESTED';
  END IF;
  RETURN 'CANCELLED';
END $$;
)sql";

}  // namespace durable_internal
}  // namespace timingwheel
