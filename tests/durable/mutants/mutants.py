"""Deliberate bugs in //durable, one at a time, each of which a test in the
default durable suite must catch (fail on an assertion, not hang).

Usage: mutants.py list             prints the mutant names
       mutants.py NAME [ROOT]      applies mutant NAME to the tree at ROOT
Each entry: the file, the exact text that must occur once, its replacement.
"""
import os
import sys

M = {
 "fire_no_epoch": ("durable/store.cc", "WHERE l.slot = t.slot AND l.epoch = t.epoch AND l.owner = $1", "WHERE l.slot = t.slot AND l.owner = $1"),
 "start_check_no_epoch": ("durable/durable_scheduler.cc", "owned != owned_.end() && owned->second == started.epoch &&", "owned != owned_.end() &&"),
 "complete_no_version": ("durable/store.cc", "AND t.state = 2 AND t.version = c.version", "AND t.state = 2"),
 "no_requeue_after_reconnect": ("durable/durable_scheduler.cc", "options_.node_id, leases_->owned(), running, options_.retry.max_attempts,\n      /*include_scheduled=*/true);", "options_.node_id, {}, running, options_.retry.max_attempts,\n      /*include_scheduled=*/true);"),
 "requeue_takes_running": ("durable/store.cc", "(t.state = 2 AND NOT (t.task_id = ANY($4::bytea[])))", "(t.state = 2)"),
 "load_no_skip_locked": ("durable/store.cc", "  FOR UPDATE OF t SKIP LOCKED)", ")"),
 "cleanup_unfinished": ("durable/store.cc", "WHERE slot = ANY($1::int4[]) AND state >= 3\n    AND finished_us < tw_now_us() - $2", "WHERE slot = ANY($1::int4[])\n    AND coalesce(finished_us, 0) < tw_now_us() - $2"),
 "notdue_clock_before": ("durable/durable_scheduler.cc", "  absl::StatusOr<durable_internal::FireResult> result =\n      store_->StartRunning(options_.node_id, batch);\n  const int64_t local_after = clock_->NowNanos();", "  const int64_t local_after = clock_->NowNanos();\n  absl::StatusOr<durable_internal::FireResult> result =\n      store_->StartRunning(options_.node_id, batch);"),
 "acquire_no_skip_locked": ("durable/store.cc", "  ORDER BY slot LIMIT $2\n  FOR UPDATE SKIP LOCKED),", "  ORDER BY slot LIMIT $2\n  FOR UPDATE),"),
 "load_no_lease_lock": ("durable/store_attempts.cc", "  FOR KEY SHARE OF l),", "),"),
 "id_cap_past_notify_limit": ("durable/task.h", "inline constexpr int64_t kMaxIdBytes = 2048;", "inline constexpr int64_t kMaxIdBytes = 4096;"),
 "replace_conflict_no_rule": ("durable/store_replace.cc", "             WHEN c.rule = 1 THEN excluded.due_us < t.due_us\n             WHEN c.rule = 2 THEN excluded.due_us > t.due_us\n", ""),
 "verdict_delay_unbounded": ("durable/handler_outcome.cc", "return std::min(std::max(delay, absl::ZeroDuration()), kMaxVerdictDelay);", "return std::max(delay, absl::ZeroDuration());"),
 "outcome_batch_not_split": ("durable/scheduler_attempts.cc", "  if (SaysNothingOfTheRows(result.status())) {\n    unwritten->insert(", "  if (true) {\n    unwritten->insert("),
 "snooze_history_unbounded": ("durable/store_attempts.cc", "  WHERE $9 AND done.outcome = 3 AND a.task_id = done.task_id", "  WHERE false AND done.outcome = 3 AND a.task_id = done.task_id"),
 "acquire_restamps_live_attempts": ("durable/scheduler_maintenance.cc", "    live = attempts_.RunningAttempts();", "    live.clear();"),
 "fire_waits_for_batch": ("durable/fire_queue.cc", "  return can_go > 0;\n}", "  if (can_go == 0) return false;\n  if (in_flight == 0) return true;\n  return room >= std::min<int64_t>(can_go, std::max(1, max_in_flight_ / 4));\n}"),
 "pause_forgets_due_occurrence": ("durable/schedule_store.cc", "                               if (*earliest == kNoOccurrenceUs) return true;", "                               return true;"),
 "update_deletes_due_occurrence": ("durable/schedule_store.cc", "DeleteWaiting(conn, canonical.name, /*keep_due=*/true)", "DeleteWaiting(conn, canonical.name, /*keep_due=*/false)"),
 "retry_overlaps_next_occurrence": ("durable/admin_writes.cc", "WHERE s.name = $1 AND s.overlap = 0", "WHERE s.name = $1 AND s.overlap = 99"),
 "full_wheel_claims_nothing": ("durable/scheduler_wheel.cc", "  load_waits_for_room_ = true;\n  const int64_t latest_us = wheel_->LatestDueUs();", "  load_waits_for_room_ = true;\n  if (max_pending > 0) return false;\n  const int64_t latest_us = wheel_->LatestDueUs();"),
}
name = sys.argv[1]
if name == "list":
    print(" ".join(M))
    sys.exit(0)
root = sys.argv[2] if len(sys.argv) > 2 else "."
f, a, b = M[name]
path = os.path.join(root, f)
s = open(path).read()
if s.count(a) != 1:
    sys.exit("mutant %s: the text to replace occurs %d times in %s (the code "
             "changed: update tests/durable/mutants/mutants.py)" %
             (name, s.count(a), f))
open(path, "w").write(s.replace(a, b))
print(f)
