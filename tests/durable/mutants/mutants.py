"""Deliberate bugs in //durable, one at a time, each of which a test in the
durable suite must catch (fail on an assertion, not hang).

Usage: mutants.py list             prints the mutant names
       mutants.py check [ROOT]     checks (without building) that every
                                   mutant's text occurs exactly once in its
                                   file; prints PASS/FAIL per mutant
       mutants.py targets NAME     prints the test targets that must catch
                                   NAME (TESTS[NAME], else DEFAULT_TESTS)
       mutants.py NAME [ROOT]      applies mutant NAME to the tree at ROOT
Each entry of M: the file, the exact text that must occur once, its
replacement. TESTS (optional per mutant) names the Bazel test targets that
catch it; .ci/durable-mutants runs those (or DEFAULT_TESTS).
"""
import os
import sys

M = {
 # Fences and leases (the statements moved out of durable/sql/store.cc and
 # durable/durable_scheduler.cc; same bugs, current text).
 "fire_no_epoch": ("durable/sql/store_attempts.cc", "WHERE l.slot = t.slot AND l.epoch = t.epoch AND l.owner = $1", "WHERE l.slot = t.slot AND l.owner = $1"),
 "start_check_no_epoch": ("durable/scheduler_attempts.cc", "owned != owned_.end() && owned->second == started.epoch &&", "owned != owned_.end() &&"),
 "complete_no_version": ("durable/sql/store_attempts.cc", "WHERE t.task_id = c.task_id AND t.state = 2\n           AND t.version = c.version", "WHERE t.task_id = c.task_id AND t.state = 2"),
 "no_requeue_after_reconnect": ("durable/scheduler_maintenance.cc", "reconnect.before_requeue\");\n  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(\n      options_.node_id, leases_->owned(),", "reconnect.before_requeue\");\n  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(\n      options_.node_id, {},"),
 "requeue_takes_running": ("durable/sql/store_leases.cc", "(t.state = 2 AND NOT (t.task_id = ANY($4::bytea[])))", "(t.state = 2)"),
 "load_no_skip_locked": ("durable/sql/store_attempts.cc", "OFFSET 0 FOR UPDATE OF t SKIP LOCKED) x),", "OFFSET 0) x),"),
 "cleanup_unfinished": ("durable/sql/store_attempts.cc", "  WHERE slot = ANY($1::int4[]) AND finished_us IS NOT NULL AND state >= 3\n    AND finished_us < tw_now_us() - $2\n  LIMIT $3)\n  AND state >= 3 AND finished_us < tw_now_us() - $2", "  WHERE slot = ANY($1::int4[])\n    AND coalesce(finished_us, 0) < tw_now_us() - $2\n  LIMIT $3)\n  AND coalesce(finished_us, 0) < tw_now_us() - $2"),
 "notdue_clock_before": ("durable/scheduler_attempts.cc", "  absl::StatusOr<durable_internal::FireResult> result =\n      store_->StartRunning(options_.node_id, batch);\n  const int64_t local_after = clock_->NowNanos();", "  const int64_t local_after = clock_->NowNanos();\n  absl::StatusOr<durable_internal::FireResult> result =\n      store_->StartRunning(options_.node_id, batch);"),
 "acquire_no_skip_locked": ("durable/sql/store_leases.cc", "  ORDER BY slot LIMIT $2\n  FOR UPDATE SKIP LOCKED),", "  ORDER BY slot LIMIT $2\n  FOR UPDATE),"),
 "id_cap_past_notify_limit": ("durable/task.h", "inline constexpr int64_t kMaxIdBytes = 2048;", "inline constexpr int64_t kMaxIdBytes = 4096;"),
 "replace_conflict_no_rule": ("durable/sql/store_replace.cc", "             WHEN c.rule = 1 THEN excluded.due_us < t.due_us\n             WHEN c.rule = 2 THEN excluded.due_us > t.due_us\n", ""),
 "verdict_delay_unbounded": ("durable/handler_outcome.cc", "return std::min(std::max(delay, absl::ZeroDuration()), kMaxVerdictDelay);", "return std::max(delay, absl::ZeroDuration());"),
 "outcome_batch_not_split": ("durable/scheduler_outcomes.cc", "  if (SaysNothingOfTheRows(result.status())) {\n    unwritten->insert(", "  if (true) {\n    unwritten->insert("),
 "snooze_history_unbounded": ("durable/sql/store_attempts.cc", "  WHERE $9 AND done.outcome = 3 AND a.task_id = done.task_id", "  WHERE false AND done.outcome = 3 AND a.task_id = done.task_id"),
 "acquire_restamps_live_attempts": ("durable/scheduler_maintenance.cc", "    live = attempts_.RunningAttempts();", "    live.clear();"),
 "cancel_lost_reply_says_false": ("durable/client/client_core.cc", "      if (!*stored) cancelled = true;", "      if (!*stored && false) cancelled = true;"),
 "retry_locks_no_schedule": ("durable/sql/admin_writes.cc", "WHERE s.name = $1 AND s.overlap = 0\nFOR SHARE OF s\n", "WHERE s.name = $1 AND s.overlap = 0\n"),
 "stop_before_start_ignored": ("durable/scheduler_attempts.cc", "      attempts_.TakePendingStop(started.task.id, started.version);", "      attempts_.TakePendingStop(started.task.id, started.version) && false;"),
 "stop_reaches_any_attempt": ("durable/engine/attempt_tracker.cc", "      (version == 0 || handler->second.version == version)) {", "      true) {"),
 "fire_beside_own_attempt": ("durable/scheduler_attempts.cc", "              return !attempts_.Running(w.entry.id);", "              return w.entry.id.empty() || true;"),
 "fire_waits_for_batch": ("durable/engine/fire_queue.cc", "  return can_go > 0;\n}", "  if (can_go == 0) return false;\n  if (in_flight == 0) return true;\n  return room >= std::min<int64_t>(can_go, std::max(1, max_in_flight_ / 4));\n}"),
 "pause_forgets_due_occurrence": ("durable/sql/schedule_store.cc", "               if (*earliest == kNoOccurrenceUs) return true;", "               return true;"),
 "update_deletes_due_occurrence": ("durable/sql/schedule_store.cc", "DeleteWaiting(conn, canonical.name, /*keep_due=*/true)", "DeleteWaiting(conn, canonical.name, /*keep_due=*/false)"),
 "retry_overlaps_next_occurrence": ("durable/sql/admin_writes.cc", "WHERE s.name = $1 AND s.overlap = 0", "WHERE s.name = $1 AND s.overlap = 99"),
 "full_wheel_claims_nothing": ("durable/scheduler_wheel.cc", "  load_waits_for_room_ = true;\n  const int64_t latest_us = wheel_->LatestDueUs();", "  load_waits_for_room_ = true;\n  if (max_pending > 0) return false;\n  const int64_t latest_us = wheel_->LatestDueUs();"),
 "takeover_ends_unseen_holder": ("durable/sql/store_node.cc", "AND (a.backend_start IS NULL\n                        OR a.backend_start >", "AND (false\n                        OR a.backend_start >"),
 "kinds_never_forgotten": ("durable/sql/store_kinds.cc", "  WHERE $3::int8 >= 0 AND k.registered_us < tw_now_us() - $3::int8", "  WHERE false AND k.registered_us < tw_now_us() - $3::int8"),
 "due_schedules_read_all": ("durable/sql/schedule_store.cc", "                   + greatest($2, $4) + $2 / 2) s", "                   + greatest($2, $4) + $2 / 2 OR true) s"),
 "kinds_forget_waits_for_locks": ("durable/sql/store_kinds.cc", "  FOR UPDATE OF k SKIP LOCKED),", "  FOR UPDATE OF k),"),
 "kinds_forget_scheduled_kind": ("durable/sql/store_kinds.cc", "    AND NOT EXISTS (SELECT FROM tw_schedule s WHERE s.kind = k.kind)\n", ""),
 # SQL producer functions and the pooler.
 "sql_replace_race_takes_insert": ("durable/sql/producer_functions.cc", "      CONTINUE;  -- Inserted by another transaction meanwhile: decide again.", "      RETURN 'SCHEDULED';"),
 "sql_keep_later_inverted": ("durable/sql/producer_functions.cc", "WHEN mode = 'KEEP_LATER' THEN due_us > stored.due_us", "WHEN mode = 'KEEP_LATER' THEN due_us < stored.due_us"),
 "retry_leaves_no_mark": ("durable/sql/admin_writes.cc", "    r = PgExec(conn_, kRetryMarkSql, PgParams().Bytes(id));\n", "    r = PgExec(conn_, \"SELECT 1\");\n"),
 "sql_slot_differs": ("durable/sql/producer_functions.cc", "    product := lo * 435;", "    product := lo * 434;"),
 "pooler_prepares_by_name": ("durable/sql/store.cc", "  if (limits_.transaction_pooler) return PgExec(conn_, sql, params);\n", ""),
 "shutdown_grace_ignored": ("durable/scheduler_maintenance.cc", "          now + (options_.shutdown_grace > absl::ZeroDuration()", "          now + (false && options_.shutdown_grace > absl::ZeroDuration()"),
 "shutdown_keeps_counting_itself": ("durable/scheduler_maintenance.cc", "        renewer_->Leave();\n", ""),
 # Replace modes.
 "replace_keep_earlier_inverted": ("durable/sql/store_replace.cc", "WHEN i.rule = 1 THEN i.due_us < p.due_us", "WHEN i.rule = 1 THEN i.due_us > p.due_us"),
 "replace_keep_later_always": ("durable/sql/store_replace.cc", "WHEN c.rule = 2 THEN excluded.due_us > t.due_us", "WHEN c.rule = 2 THEN true"),
 "replace_keeps_finished_attempts": ("durable/sql/store_replace.cc", "      attempt = CASE WHEN t.state >= 3 OR (SELECT has_payload FROM input\n                                           WHERE task_id = excluded.task_id)\n                THEN 0 ELSE t.attempt END,", "      attempt = t.attempt,"),
 # Fire queue and kinds.
 "fire_queue_priority_inverted": ("durable/engine/fire_queue.cc", "return a.entry.priority > b.entry.priority;", "return a.entry.priority < b.entry.priority;"),
 "kind_limit_ignored": ("durable/engine/fire_queue.cc", "if (room > 0 && kind_room[w.kind] > 0) {", "if (room > 0) {"),
 "kind_reservation_not_moved": ("durable/scheduler_attempts.cc", "      fire_queue_.Reserve(kinds_->IndexOf(s.task.kind));\n", ""),
 # Outcomes.
 "snooze_counts_attempt": ("durable/sql/store_attempts.cc", "attempt = CASE WHEN c.outcome = 3 THEN least(t.attempt, c.attempt - 1)", "attempt = CASE WHEN c.outcome = 3 THEN greatest(t.attempt, c.attempt)"),
 "discard_is_a_failure": ("durable/handler_outcome.cc", "    verdict.kind = HandlerVerdict::kDiscard;", "    verdict.kind = HandlerVerdict::kFailure;"),
 # Recurrence advance.
 "skip_while_running_overlaps": ("durable/recurrence/schedule_plan.cc", "if (prior.exists && prior.unfinished) {", "if (false && prior.exists && prior.unfinished) {"),
 "advance_forgets_written": ("durable/recurrence/schedule_plan.cc", "    plan.last_us = std::max(plan.last_us, plan.write_us.back());", "    plan.last_us = plan.last_us;"),
 "run_anyway_ignores_bound": ("durable/recurrence/schedule_plan.cc", "absl::InfiniteFuture(), bound - ahead)) {", "absl::InfiniteFuture(), bound)) {"),
 "schedule_duty_no_wakeup": ("durable/scheduler_schedules.cc", "  schedule_duty_at_ = durable_internal::RealNanos() + in_us * 1000;", "  (void)in_us;"),
 # Acquisition.
 "acquire_takes_live_lease": ("durable/sql/store_leases.cc", "  WHERE owner IS NULL OR lease_until_us <= tw_now_us()\n  ORDER BY slot LIMIT $2", "  WHERE true\n  ORDER BY slot LIMIT $2"),
 "acquire_no_epoch_bump": ("durable/sql/store_leases.cc", "WHERE live.slot = l.slot)) + 1,", "WHERE live.slot = l.slot)),"),
 # The planned core's fire by slot (plan step 2; not used by the engine yet).
 "slot_fire_no_epoch": ("durable/sql/store_slot_fire.cc", "    ON l.slot = m.slot AND l.epoch = m.epoch, n\n  WHERE l.owner = $1 AND l.lease_until_us > n.now\n  FOR KEY SHARE OF l),", "    ON l.slot = m.slot, n\n  WHERE l.owner = $1 AND l.lease_until_us > n.now\n  FOR KEY SHARE OF l),"),
 "slot_fire_no_skip_locked": ("durable/sql/store_slot_fire.cc", "    OFFSET 0 FOR UPDATE OF t SKIP LOCKED) x),", "    OFFSET 0 FOR UPDATE OF t) x),"),
 "slot_fire_no_kind_share": ("durable/sql/store_slot_fire.cc", "  WHERE c.nth <= c.free\n", "  WHERE true\n"),
 "kinds_not_confirmed_after_reconnect": ("durable/scheduler_maintenance.cc", "  (void)store_->RegisterKinds(options_.node_id, registered_kinds_, -1);\n", ""),
 "forget_nodes_naming_slots": ("durable/sql/store_leases.cc", "    AND NOT EXISTS (SELECT FROM tw_slot_lease l WHERE l.owner = n.node_id)\n", ""),
 "slot_fire_reads_every_due_row": ("durable/sql/store_slot_fire.cc", "      ORDER BY t.due_us LIMIT least(free.free, share.rows)) y\n", "      ORDER BY t.due_us LIMIT free.free) y\n"),
 "slot_fire_due_before_priority": ("durable/sql/store_slot_fire.cc", "    ORDER BY y.priority DESC, y.due_us, y.task_id\n", "    ORDER BY y.due_us, y.priority DESC, y.task_id\n"),
 "slots_named_by_due_only": ("durable/engine/slot_naming.cc", "std::make_tuple(-a.priority, a.due_us, a.slot) <", "std::make_tuple(0, a.due_us, a.slot) <"),
 "slot_fire_small_fire_shared": ("durable/sql/store_slot_fire.cc", "least(greatest($6, 0), 256 / greatest(count(*), 1))", "0"),
 "slots_named_one_per_place": ("durable/engine/slot_naming.cc", "std::min(due_count, std::max(wanted, kMinSlotsNamed))", "std::min(due_count, wanted)"),
 "slot_parked_with_row_due_during_fire": ("durable/scheduler_slots.cc", "next.next_due_us <= fire->checked_us) {", "true) {"),
 "slot_fire_ignores_floor": ("durable/sql/store_slot_fire.cc", "WHERE levels.priority >= $8", "WHERE true"),
 "large_fire_names_one_slot_per_place": ("durable/engine/slot_naming.cc", "free_places <= kSlotFireExactRows", "true"),
 "slot_fire_others_apart": ("durable/sql/store_slot_fire.cc", "row_number() OVER (PARTITION BY free.kind", "row_number() OVER (PARTITION BY x.kind"),
 "retry_arm_during_fire_dropped": ("durable/scheduler_outcomes.cc", "if (slot_fire_reserved_ > 0 || slot_load_in_flight_) {", "if (slot_load_in_flight_) {"),
 "retry_arm_during_load_dropped": ("durable/scheduler_outcomes.cc", "if (slot_fire_reserved_ > 0 || slot_load_in_flight_) {", "if (slot_fire_reserved_ > 0) {"),
 "writer_lost_reply_not_requeued": ("durable/scheduler_outcomes.cc", "unrecorded_requeue_requested_ = true;", ";"),
 "writer_stall_keeps_leases": ("durable/scheduler_outcomes.cc", "renewer_->NoteWorkBegins(work);", "(void)work;"),
 "overdue_row_through_timer": ("durable/engine/wheel_mirror.cc", "  if (local_due_nanos <= now) return Added::kDueNow;\n", ""),
 "completion_by_locked_ctid": ("durable/sql/store_attempts.cc", "  WHERE t.task_id = ANY (ARRAY(SELECT task_id FROM c))\n    AND t.task_id = c.task_id AND t.state = 2 AND t.version = c.version\n", "  WHERE t.ctid = ANY (ARRAY(SELECT tid FROM c)) AND t.ctid = c.tid\n"),
 "due_now_leaves_rows_over": ("durable/scheduler_wheel.cc", "FollowAtOnce).\n  if (load_waits_for_room_) {", "FollowAtOnce).\n  if (false) {"),
 "last_run_written_ahead": ("durable/sql/schedule_definition.cc", "      (last_us > stored.now_us || stored.paused)) {", "      (last_us > stored.now_us && false)) {"),
}

# The fast tests most mutants of fences and statements break.
DEFAULT_TESTS = [
    "//tests/durable:never_lost_test", "//tests/durable:store_test",
    "//tests/durable:shutdown_test", "//tests/durable:durable_scheduler_test",
]
# Per mutant: the targets expected to catch it (run instead of the default).
TESTS = {
 "fire_no_epoch": DEFAULT_TESTS + ["//tests/durable:store_takeover_test"],
 "start_check_no_epoch": DEFAULT_TESTS + ["//tests/durable:multi_scheduler_test"],
 "acquire_no_skip_locked": DEFAULT_TESTS + ["//tests/durable:store_takeover_test"],
 "replace_keep_earlier_inverted": ["//tests/durable:replace_test", "//tests/durable:chaos_test"],
 "replace_keep_later_always": ["//tests/durable:replace_race_test"],
 "replace_keeps_finished_attempts": ["//tests/durable:replace_test", "//tests/durable:replace_contract_test"],
 "id_cap_past_notify_limit": ["//tests/durable:cancel_task_test", "//tests/durable:durable_bounds_test"],
 "replace_conflict_no_rule": ["//tests/durable:replace_race_test"],
 "verdict_delay_unbounded": ["//tests/durable:outcome_batch_test", "//tests/durable:handler_outcome_test"],
 "outcome_batch_not_split": ["//tests/durable:outcome_batch_test"],
 "snooze_history_unbounded": ["//tests/durable:handler_outcome_test"],
 "acquire_restamps_live_attempts": ["//tests/durable:lease_renewal_test"],
 "cancel_lost_reply_says_false": ["//tests/durable:never_lost_test"],
 "retry_locks_no_schedule": ["//tests/durable:recurring_retry_test"],
 "stop_before_start_ignored": ["//tests/durable:cancel_task_test"],
 "stop_reaches_any_attempt": ["//tests/durable:attempt_tracker_test"],
 "fire_beside_own_attempt": ["//tests/durable:lease_renewal_test"],
 "shutdown_grace_ignored": ["//tests/durable:shutdown_test"],
 "shutdown_keeps_counting_itself": ["//tests/durable:shutdown_test"],
 "sql_replace_race_takes_insert": ["//tests/durable:sql_functions_test"],
 "sql_keep_later_inverted": ["//tests/durable:sql_functions_test", "//tests/durable:python_producer_test", "//tests/durable:chaos_test"],
 "retry_leaves_no_mark": ["//tests/durable:admin_store_test"],
 "sql_slot_differs": ["//tests/durable:sql_functions_test"],
 "takeover_ends_unseen_holder": ["//tests/durable:store_node_test"],
 "due_schedules_read_all": ["//tests/durable:store_plans_test"],
 "kinds_forget_waits_for_locks": ["//tests/durable:store_kinds_test"],
 "kinds_forget_scheduled_kind": ["//tests/durable:store_kinds_test"],
 "kinds_never_forgotten": ["//tests/durable:store_kinds_test", "//tests/durable:task_kinds_test"],
 "pooler_prepares_by_name": ["//tests/durable:pgbouncer_test"],
 "fire_waits_for_batch": ["//tests/durable:fire_queue_test", "//tests/durable:capacity_test"],
 "full_wheel_claims_nothing": ["//tests/durable:capacity_test", "//tests/durable:wheel_mirror_test", "//tests/durable:chaos_test"],
 "pause_forgets_due_occurrence": ["//tests/durable:recurring_edges_test"],
 "update_deletes_due_occurrence": ["//tests/durable:recurring_edges_test"],
 "retry_overlaps_next_occurrence": ["//tests/durable:recurring_retry_test"],
 "fire_queue_priority_inverted": ["//tests/durable:fire_queue_test", "//tests/durable:task_kinds_test"],
 "kind_limit_ignored": ["//tests/durable:fire_queue_test", "//tests/durable:task_kinds_test", "//tests/durable:chaos_test"],
 "kind_reservation_not_moved": ["//tests/durable:task_kinds_test", "//tests/durable:kind_reservations_test"],
 "snooze_counts_attempt": ["//tests/durable:handler_outcome_test"],
 "discard_is_a_failure": ["//tests/durable:handler_outcome_test"],
 "skip_while_running_overlaps": ["//tests/durable:schedule_plan_test", "//tests/durable:recurring_logic_test", "//tests/durable:recurring_store_test"],
 "advance_forgets_written": ["//tests/durable:schedule_plan_test", "//tests/durable:recurring_logic_test", "//tests/durable:recurring_store_test"],
 "run_anyway_ignores_bound": ["//tests/durable:schedule_plan_test", "//tests/durable:recurring_store_test", "//tests/durable:recurring_logic_test"],
 "schedule_duty_no_wakeup": ["//tests/durable:recurring_logic_test"],
 "acquire_takes_live_lease": ["//tests/durable:store_takeover_test", "//tests/durable:multi_scheduler_test", "//tests/durable:store_test"],
 "acquire_no_epoch_bump": ["//tests/durable:store_takeover_test", "//tests/durable:store_test"],
 "slot_fire_no_epoch": ["//tests/durable:store_slot_fire_test"],
 "slot_fire_no_skip_locked": ["//tests/durable:store_slot_fire_test"],
 "slot_fire_no_kind_share": ["//tests/durable:store_slot_fire_test"],
 "slot_fire_reads_every_due_row": ["//tests/durable:store_slot_fire_test", "//tests/durable:store_plans_test"],
 "slot_fire_due_before_priority": ["//tests/durable:store_slot_fire_test"],
 "slots_named_by_due_only": ["//tests/durable:fire_by_slot_test", "//tests/durable:slot_naming_test"],
 "slot_fire_small_fire_shared": ["//tests/durable:store_slot_fire_test"],
 "slots_named_one_per_place": ["//tests/durable:fire_by_slot_test", "//tests/durable:slot_naming_test"],
 "slot_parked_with_row_due_during_fire": ["//tests/durable:fire_by_slot_test"],
 "slot_fire_ignores_floor": ["//tests/durable:store_slot_fire_test"],
 "large_fire_names_one_slot_per_place": ["//tests/durable:slot_naming_test"],
 "forget_nodes_naming_slots": ["//tests/durable:stale_nodes_test"],
 "kinds_not_confirmed_after_reconnect": ["//tests/durable:task_kinds_test"],
 "last_run_written_ahead": ["//tests/durable:recurring_edges_test"],
 "slot_fire_others_apart": ["//tests/durable:store_slot_fire_test"],
 "retry_arm_during_fire_dropped": ["//tests/durable:fire_by_slot_test"],
 "retry_arm_during_load_dropped": ["//tests/durable:fire_by_slot_test"],
 "writer_lost_reply_not_requeued": ["//tests/durable:never_lost_test"],
 "writer_stall_keeps_leases": ["//tests/durable:recurring_test"],
 "overdue_row_through_timer": ["//tests/durable:wheel_mirror_test"],
 "completion_by_locked_ctid": ["//tests/durable:store_outcome_writers_test"],
 "due_now_leaves_rows_over": ["//tests/durable:capacity_test"],
}


def check(root):
    bad = 0
    for name, (f, a, _) in M.items():
        path = os.path.join(root, f)
        n = open(path).read().count(a) if os.path.exists(path) else -1
        if n == 1:
            print("PASS mutant %s: its text occurs once in %s" % (name, f))
        else:
            bad += 1
            print("FAIL mutant %s: its text occurs %s in %s (the code changed: "
                  "port it in tests/durable/mutants/mutants.py)" %
                  (name, "%d times" % n if n >= 0 else "nowhere (no file)", f))
    for name in TESTS:
        if name not in M:
            bad += 1
            print("FAIL mutants.py: TESTS names %s, which M does not" % name)
    return bad == 0


def main():
    name = sys.argv[1]
    if name == "list":
        print(" ".join(M))
        return 0
    if name == "check":
        return 0 if check(sys.argv[2] if len(sys.argv) > 2 else ".") else 1
    if name == "targets":
        print(" ".join(TESTS.get(sys.argv[2], DEFAULT_TESTS)))
        return 0
    root = sys.argv[2] if len(sys.argv) > 2 else "."
    f, a, b = M[name]
    path = os.path.join(root, f)
    s = open(path).read()
    if s.count(a) != 1:
        sys.exit("mutant %s: the text to replace occurs %d times in %s (the "
                 "code changed: update tests/durable/mutants/mutants.py)" %
                 (name, s.count(a), f))
    open(path, "w").write(s.replace(a, b))
    print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
