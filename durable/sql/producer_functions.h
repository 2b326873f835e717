// Copyright 2026 The timingwheel Authors.
//
// producer_functions.h
// -----------------------------------------------------------------------------
//
// The SQL functions that schedule, replace and cancel durable tasks from any
// PostgreSQL client (psql, a trigger, Python, Go, Java, Node), in the
// caller's transaction, with the C++ producer's semantics: idempotent by id,
// the slot's owner woken for a task due within its horizon, nothing stored
// and no wake-up sent if the transaction rolls back, every input checked
// (SQLSTATE 22023 naming the field). Installed by schema version 6
// (migrations.cc); documented in docs/durable.md, "Scheduling from SQL".
//
//   tw_schedule_task(task_id text, due timestamptz, payload bytea,
//                    kind text DEFAULT '', priority integer DEFAULT 0)
//   tw_schedule_task_after(task_id, delay interval, payload, kind, priority)
//     -> 'SCHEDULED' | 'EXISTS' (identical task stored; 23505 if it differs)
//   tw_schedule_or_replace(task_id, due, payload, mode DEFAULT 'REPLACE',
//                          kind, priority)
//   tw_schedule_or_replace_after(task_id, delay, payload, mode, kind,
//                                priority)
//     mode: 'REPLACE' | 'KEEP_EARLIER' | 'KEEP_LATER'
//     -> 'SCHEDULED' | 'REPLACED' | 'KEPT' | 'ALREADY_RUNNING'
//   tw_reschedule(task_id, due, payload bytea DEFAULT NULL)
//   tw_reschedule_after(task_id, delay, payload DEFAULT NULL)
//     -> 'REPLACED' | 'ALREADY_RUNNING' | 'FINISHED' | 'NOT_FOUND'
//   tw_cancel_task(task_id text)
//     -> 'CANCELLED' | 'STOP_REQUESTED' | 'FINISHED' | 'NOT_FOUND'
//   tw_slot_for(task_id bytea, slot_count integer) -> SlotFor() (request.h)

#ifndef TIMINGWHEEL_DURABLE_SQL_PRODUCER_FUNCTIONS_H_
#define TIMINGWHEEL_DURABLE_SQL_PRODUCER_FUNCTIONS_H_

namespace timingwheel {
namespace durable_internal {

// The CREATE FUNCTION statements (constant text, no parameters).
extern const char kProducerFunctionsSql[];

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_PRODUCER_FUNCTIONS_H_
