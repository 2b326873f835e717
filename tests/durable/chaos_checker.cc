// Copyright 2026 The timingwheel Authors.

#include "tests/durable/chaos_checker.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_test {
namespace {

constexpr char kWatchSql[] = R"sql(
CREATE TABLE chaos_due (task_id bytea, slot int, attempt int, due_us bigint,
                        at_us bigint);
CREATE FUNCTION chaos_due_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.due_us <> OLD.due_us THEN
    INSERT INTO chaos_due VALUES (
      NEW.task_id, NEW.slot, NEW.attempt, NEW.due_us,
      (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER chaos_due_log AFTER INSERT OR UPDATE ON tw_timer
  FOR EACH ROW EXECUTE FUNCTION chaos_due_log();
CREATE TABLE chaos_lease (slot int, old_owner text, new_owner text,
                          old_epoch bigint, new_epoch bigint,
                          old_lease_until_us bigint, at_us bigint);
CREATE FUNCTION chaos_lease_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.owner IS DISTINCT FROM OLD.owner OR NEW.epoch <> OLD.epoch THEN
    INSERT INTO chaos_lease VALUES (NEW.slot, OLD.owner, NEW.owner,
                                    OLD.epoch, NEW.epoch, OLD.lease_until_us,
                                    tw_now_us());
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER chaos_lease_log AFTER UPDATE ON tw_slot_lease
  FOR EACH ROW EXECUTE FUNCTION chaos_lease_log();
)sql";

// Runs `sql` and calls `row` with each row's values; an error message or "".
template <typename RowFn>
std::string ForEachRow(PGconn* conn, const char* sql, RowFn row) {
  PGresult* r = PQexec(conn, sql);
  std::string error;
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    error = absl::StrCat(sql, ": ", PQerrorMessage(conn));
  } else {
    for (int i = 0; i < PQntuples(r); ++i) {
      row([&](int col) { return std::string(PQgetvalue(r, i, col)); });
    }
  }
  PQclear(r);
  return error;
}

// The first bytes of a recurring occurrence's task id (occurrence_id.h).
constexpr char kOccurrencePrefix[] = "\x1btw-schedule:";

bool HasPrefix(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

int64_t Int(const std::string& s) {
  return std::strtoll(s.c_str(), nullptr, 10);
}

std::string Describe(const ChaosRun& run) {
  return absl::StrCat("(node ", run.node, ", attempt ", run.attempt, ", at ",
                      run.at_us, ")");
}

}  // namespace

std::string InstallChaosWatch(const std::string& conninfo) {
  absl::Status status = durable_testing::ExecSql(conninfo, kWatchSql);
  return status.ok() ? "" : status.ToString();
}

std::string LoadChaosHistory(const std::string& conninfo,
                             ChaosHistory* history) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string error = PQerrorMessage(conn);
    PQfinish(conn);
    return error;
  }
  std::string error =
      ForEachRow(conn,
                 "SELECT convert_from(task_id, 'UTF8'), node, attempt, at_us, "
                 "coalesce(kind, ''), coalesce(verdict, ''), "
                 "coalesce(end_us, 0), coalesce(call, '') "
                 "FROM test_runs ORDER BY at_us",
                 [&](auto v) {
                   ChaosRun run;
                   run.id = v(0);
                   run.node = v(1);
                   run.attempt = static_cast<int>(Int(v(2)));
                   run.at_us = Int(v(3));
                   run.kind = v(4);
                   run.verdict = v(5);
                   run.end_us = Int(v(6));
                   // The call id is "<node>-<pid>-<n>".
                   const std::string call = v(7);
                   run.process = call.substr(0, call.rfind('-'));
                   history->runs.push_back(std::move(run));
                 });
  if (error.empty()) {
    error = ForEachRow(
        conn,
        "SELECT convert_from(task_id, 'UTF8'), slot, attempt, due_us, "
        "coalesce(at_us, 0) FROM chaos_due",
        [&](auto v) {
          history->dues.push_back({v(0), static_cast<int>(Int(v(1))),
                                   static_cast<int>(Int(v(2))), Int(v(3)),
                                   Int(v(4))});
        });
  }
  if (error.empty()) {
    error = ForEachRow(
        conn,
        "SELECT slot, coalesce(old_owner, ''), coalesce(new_owner, ''), "
        "old_epoch, new_epoch, old_lease_until_us, at_us FROM chaos_lease",
        [&](auto v) {
          history->leases.push_back({static_cast<int>(Int(v(0))), v(1), v(2),
                                     Int(v(3)), Int(v(4)), Int(v(5)),
                                     Int(v(6))});
        });
  }
  if (error.empty()) {
    auto tasks = durable_testing::StoreInspector(conninfo).Tasks();
    if (!tasks.ok()) {
      error = tasks.status().ToString();
    } else {
      for (const durable_testing::TaskRow& task : *tasks) {
        history->rows[task.id] = {static_cast<int>(task.state), task.attempt,
                                  task.slot};
      }
    }
  }
  if (error.empty()) {
    auto early =
        durable_testing::StoreInspector(conninfo).CountEarlyTakeovers();
    if (early.ok()) {
      history->early_takeovers = *early;
    } else {
      error = early.status().ToString();
    }
  }
  PQfinish(conn);
  return error;
}

std::string ChaosReport::Summary() const {
  std::vector<std::string> causes;
  for (const auto& [kind, n] : double_causes) {
    causes.push_back(absl::StrCat(kind, "=", n));
  }
  return absl::StrCat(
      "runs=", runs, " succeeded=", succeeded, " failed=", failed,
      " cancelled=", cancelled, " doubles=", doubles,
      " (causes: ", causes.empty() ? "none" : absl::StrJoin(causes, " "),
      ") replace_ids_checked=", replace_ids_checked,
      " replace_ids_unchecked=", replace_ids_unchecked,
      " kind_peak=", kind_peak, " latest_start_ms=", late_max_us / 1000,
      " violations=", violations.size());
}

ChaosReport CheckChaos(const ChaosHistory& history, const ChaosLimits& limits) {
  ChaosReport report;
  report.runs = static_cast<int64_t>(history.runs.size());
  std::map<std::string, std::vector<ChaosDue>> dues_by_id;
  std::map<std::string, int> slot_of;
  for (const ChaosDue& due : history.dues) {
    dues_by_id[due.id].push_back(due);
    slot_of[due.id] = due.slot;
  }
  // A run's start: its logged time less the slack, or, when its node was
  // resumed (SIGCONT) shortly before the log, the moment it was stopped (the
  // handler may have started before the stall and logged after it), but not
  // before the row got the due time it last got before the log (a row
  // written during the stall was fired after it).
  auto start_of = [&](const ChaosRun& run) {
    int64_t start = run.at_us - limits.start_slack_us;
    int64_t stopped = INT64_MAX;
    for (const ChaosFault& fault : history.faults) {
      if (fault.target != run.node) continue;
      if (fault.kind == "stop") stopped = fault.at_us;
      if (fault.kind == "cont" && stopped <= run.at_us &&
          fault.at_us >= run.at_us - limits.start_slack_us * 4 &&
          fault.at_us <= run.at_us) {
        start = std::min(start, stopped);
      }
    }
    if (start == run.at_us - limits.start_slack_us) return start;
    auto dues = dues_by_id.find(run.id);
    if (dues == dues_by_id.end()) return start;
    for (const ChaosDue& due : dues->second) {
      if (due.at_us <= run.at_us) start = std::max(start, due.at_us);
    }
    return std::min(start, run.at_us - limits.start_slack_us);
  };
  std::map<std::string, std::vector<ChaosRun>> runs_by_id;
  for (const ChaosRun& run : history.runs) {
    runs_by_id[run.id].push_back(run);
    runs_by_id[run.id].back().start_us = start_of(run);
  }
  // Attempts are numbered in the order they started (a fire reads the
  // attempt the row last recorded, which its handler's start recorded), so
  // a higher attempt comes after a lower one whatever its widened start
  // says; runs of one attempt are ordered by their start.
  for (auto& [id, runs] : runs_by_id) {
    std::stable_sort(runs.begin(), runs.end(),
                     [](const ChaosRun& a, const ChaosRun& b) {
                       if (a.attempt != b.attempt) return a.attempt < b.attempt;
                       return a.start_us < b.start_us;
                     });
  }
  auto add = [&](std::string message) {
    report.violations.push_back(std::move(message));
  };
  // The fence of `run` logged in [start of run, until_us], if any.
  auto fence = [&](const ChaosRun& run, int64_t until_us) -> const ChaosLease* {
    auto slot = slot_of.find(run.id);
    if (slot == slot_of.end()) return nullptr;
    for (const ChaosLease& lease : history.leases) {
      if (lease.slot == slot->second && lease.old_owner == run.node &&
          lease.new_epoch > lease.old_epoch &&
          lease.old_lease_until_us <= lease.at_us &&
          lease.at_us >= run.start_us && lease.at_us <= until_us) {
        return &lease;
      }
    }
    return nullptr;
  };
  // Whether the slot of task `id` was taken, within [from_us, until_us],
  // from a process killed (kill -9) after `from_us` whose lease then ran
  // out: the one way a started attempt goes unreported.
  auto killed_and_fenced = [&](const std::string& id, int64_t from_us,
                               int64_t until_us) {
    auto slot = slot_of.find(id);
    if (slot == slot_of.end()) return false;
    for (const ChaosLease& lease : history.leases) {
      if (lease.slot != slot->second || lease.old_owner.empty() ||
          lease.new_epoch <= lease.old_epoch ||
          lease.old_lease_until_us > lease.at_us || lease.at_us < from_us ||
          lease.at_us > until_us) {
        continue;
      }
      for (const ChaosFault& fault : history.faults) {
        if (fault.kind == "kill" && fault.target == lease.old_owner &&
            fault.at_us >= from_us && fault.at_us <= lease.at_us) {
          return true;
        }
      }
    }
    return false;
  };
  // The last fault on `node` (or the server) at or before `at_us`.
  auto cause = [&](const std::string& node, int64_t at_us) -> std::string {
    const ChaosFault* last = nullptr;
    for (const ChaosFault& fault : history.faults) {
      if (fault.at_us <= at_us &&
          (fault.target == node || fault.target == "server")) {
        last = &fault;
      }
    }
    return last == nullptr ? "no fault logged" : last->kind;
  };

  std::map<std::string, ChaosIntent> intents = history.intents;
  for (const auto& [id, runs] : runs_by_id) {
    if (intents.count(id) != 0) continue;
    if (id.rfind(kOccurrencePrefix, 0) == 0) {
      intents[id].recurring = true;
    } else {
      add(absl::StrCat(id, ": ran, but the test never scheduled it"));
    }
  }
  // A replacement that reached a task after its first run started (it
  // found it running or finished, and a finished one starts afresh).
  for (const ChaosReplaceCall& call : history.replaces) {
    auto runs = runs_by_id.find(call.id);
    if (runs != runs_by_id.end() && !runs->second.empty() &&
        call.end_us >= runs->second.front().start_us) {
      intents[call.id].may_run_again = true;
    }
  }
  for (const std::string& error : history.call_errors) {
    add(absl::StrCat("a call failed: ", error));
  }
  if (history.early_takeovers != 0) {
    add(absl::StrCat(history.early_takeovers,
                     " slots were taken before their lease ran out"));
  }
  for (const auto& [id, intent] : intents) {
    // After an admin Retry(), the runs of the last round.
    std::vector<ChaosRun> runs;
    for (const ChaosRun& run : runs_by_id[id]) {
      if (run.at_us > intent.admin_retry_us) runs.push_back(run);
    }
    const bool extreme = HasPrefix(id, "park-") || HasPrefix(id, "nap-");
    const bool discarded_by_handler =
        std::any_of(runs.begin(), runs.end(),
                    [](const ChaosRun& r) { return r.verdict == "discard"; });
    auto row = history.rows.find(id);
    const bool has_row = row != history.rows.end();
    using Cancel = ChaosIntent::Cancel;

    // 5. Cancelled means cancelled.
    if (intent.cancel == Cancel::kTrue) {
      ++report.cancelled;
      if (has_row) add(absl::StrCat(id, ": cancelled (true) but still stored"));
      for (const ChaosRun& run : runs) {
        if (run.start_us > intent.cancel_returned_us) {
          add(absl::StrCat(id, ": ran ", Describe(run),
                           " after Cancel() returned true at ",
                           intent.cancel_returned_us));
        }
      }
    }

    // 1. None lost.
    const bool may_be_absent =
        intent.cancel == Cancel::kTrue || intent.cancel == Cancel::kUnknown ||
        !intent.scheduled || intent.recurring || intent.discarded;
    std::set<int> attempts;
    int max_seen = 0;
    for (const ChaosRun& run : runs) {
      attempts.insert(run.attempt);
      max_seen = std::max(max_seen, run.attempt);
    }
    const ChaosRun* last_of_max = nullptr;
    for (const ChaosRun& run : runs) {
      if (run.attempt == max_seen) last_of_max = &run;
    }
    const bool last_fenced =
        last_of_max != nullptr && fence(*last_of_max, INT64_MAX) != nullptr;
    // Attempts below the highest one that no handler reported: each may
    // have started (its start mark committed, the attempt counted) in a
    // process killed before its handler recorded the call, so each is
    // excused when, after the task was stored and the attempt before it
    // started, a process holding the task's slot was killed and its slot
    // taken (fenced) before the next reported attempt started.
    int64_t stored_us = INT64_MAX;
    for (const ChaosDue& d : dues_by_id[id]) {
      stored_us = std::min(stored_us, d.at_us);
    }
    int unreported_excused = 0;
    for (int a = 1; a < max_seen; ++a) {
      if (attempts.count(a) != 0) continue;
      int64_t after_us = stored_us, before_us = INT64_MAX;
      for (const ChaosRun& run : runs) {
        if (run.attempt < a) after_us = std::max(after_us, run.start_us);
        if (run.attempt > a) before_us = std::min(before_us, run.at_us);
      }
      if (killed_and_fenced(id, after_us, before_us)) ++unreported_excused;
    }
    if (!has_row) {
      if (!may_be_absent) add(absl::StrCat(id, ": lost (no row)"));
    } else if (row->second.state == 3) {
      ++report.succeeded;
      if (intent.meant_to_fail) {
        add(absl::StrCat(id, ": meant to fail, yet SUCCESS"));
      }
      if (runs.empty()) add(absl::StrCat(id, ": SUCCESS without a run"));
    } else if (row->second.state == 4 && (extreme || discarded_by_handler)) {
      ++report.failed;
    } else if (row->second.state == 4) {
      ++report.failed;
      // The last attempt may have started (its start mark committed, the
      // attempt counted) in a process killed or fenced before its handler
      // recorded the call: one more than the handlers saw, after a fence.
      const bool last_unrecorded = row->second.attempt == max_seen + 1 &&
                                   row->second.attempt == limits.max_attempts &&
                                   last_fenced;
      const bool all_attempts =
          !attempts.empty() &&
          static_cast<int>(attempts.size()) + unreported_excused == max_seen &&
          (max_seen == limits.max_attempts || last_unrecorded);
      if (intent.meant_to_fail && !all_attempts) {
        add(absl::StrCat(id, ": FAILED after attempts {",
                         absl::StrJoin(attempts, ","), "}, not 1..",
                         limits.max_attempts));
      }
      if (!intent.meant_to_fail &&
          !((max_seen == limits.max_attempts || last_unrecorded) &&
            last_fenced)) {
        add(absl::StrCat(id, ": FAILED, not meant to fail (attempts {",
                         absl::StrJoin(attempts, ","), "})"));
      }
    } else if (intent.cancel != Cancel::kTrue && !intent.recurring &&
               !extreme) {
      add(absl::StrCat(id, ": not finished (state ", row->second.state,
                       ", attempt ", row->second.attempt, ")"));
    }

    // 2. None early.
    for (const ChaosRun& run : runs) {
      // The last due time logged before the run (a replacement may move
      // it earlier; writes of one row are logged in their commit order).
      int64_t due = INT64_MIN, logged = INT64_MIN;
      for (const ChaosDue& d : dues_by_id[id]) {
        if (d.attempt <= run.attempt - 1 && d.at_us < run.at_us &&
            d.at_us >= logged) {
          due = d.due_us;
          logged = d.at_us;
        }
      }
      if (due == INT64_MIN) {
        add(absl::StrCat(id, ": run ", Describe(run), " has no due time"));
      } else if (run.at_us < due) {
        add(absl::StrCat(id, ": run ", Describe(run), " is ", due - run.at_us,
                         " us early (due ", due, ")"));
      }
    }

    // 3. None twice outside the window.
    if (static_cast<int>(runs.size()) > limits.max_runs) {
      add(absl::StrCat(id, ": ", runs.size(), " runs (at most ",
                       limits.max_runs, ")"));
    }
    for (size_t j = 1; j < runs.size() && !intent.may_run_again; ++j) {
      const ChaosRun& later = runs[j];
      for (size_t i = 0; i < j; ++i) {
        const ChaosRun& earlier = runs[i];
        // A snooze does not count its attempt; a verdict that ends the
        // task (success, discard, a stop after CancelTask) allows no run
        // after it; a run that never returned is taken for a success
        // unless the task always fails.
        // (Of two runs of one attempt, the one logged first snoozed: the
        // order by start may differ when a stall moved a start back.)
        const ChaosRun& first_logged =
            earlier.at_us <= later.at_us ? earlier : later;
        const bool snoozed =
            first_logged.verdict == "snooze" || first_logged.verdict == "nap";
        const bool repeated = earlier.attempt == later.attempt && !snoozed;
        const bool after_success =
            !intent.may_run_again &&
            (earlier.verdict.empty()
                 ? !intent.meant_to_fail
                 : earlier.verdict == "ok" || earlier.verdict == "discard" ||
                       earlier.verdict == "stopped");
        // One process runs an attempt once at a time, whatever fence: a
        // second run beside a first still running there is never excused.
        if (!earlier.process.empty() && earlier.process == later.process &&
            !snoozed && (earlier.end_us == 0 || earlier.end_us > later.at_us)) {
          std::string retaken;
          auto slot = slot_of.find(id);
          for (const ChaosLease& lease : history.leases) {
            if (slot != slot_of.end() && lease.slot == slot->second &&
                lease.old_owner == later.node &&
                lease.new_owner == later.node && lease.at_us >= earlier.at_us &&
                lease.at_us <= later.at_us) {
              absl::StrAppend(&retaken, " (its node took slot ", lease.slot,
                              " back from itself at ", lease.at_us, ", epoch ",
                              lease.old_epoch, " -> ", lease.new_epoch, ")");
            }
          }
          std::string message = absl::StrCat(
              id, ": ran ", Describe(later), " beside ", Describe(earlier),
              " still running in process ", later.process, retaken);
          if (limits.defect5_fails) {
            add(std::move(message));
          } else {
            report.known_defect_findings.push_back(
                absl::StrCat("defect 5: ", message));
          }
        }
        if (!repeated && !after_success) continue;
        ++report.doubles;
        const ChaosLease* f = fence(earlier, later.at_us);
        if (f == nullptr) {
          add(absl::StrCat(id, ": ran again ", Describe(later), " after ",
                           Describe(earlier),
                           repeated ? " (same attempt)" : " (succeeded)",
                           " with no fence of the earlier run"));
        } else {
          const std::string why = cause(earlier.node, f->at_us);
          ++report.double_causes[why];
          report.double_details.push_back(absl::StrCat(
              id, ": ", Describe(earlier), " then ", Describe(later),
              ", fenced at ", f->at_us, " (slot ", f->slot, " from ",
              f->old_owner, " to ", f->new_owner, ", last fault: ", why, ")"));
        }
        break;  // One excuse per later run.
      }
    }

    // 4. Attempts count started attempts.
    if (has_row && !runs.empty()) {
      const int final_attempt = row->second.attempt;
      const bool last_snoozed =
          last_of_max != nullptr &&
          (last_of_max->verdict == "snooze" || last_of_max->verdict == "nap");
      // One less: the last run was fenced (its start mark lost with its
      // slot) or snoozed; one more: the next attempt started in a process
      // killed or fenced before its handler recorded the call.
      if (final_attempt != max_seen &&
          !(final_attempt == max_seen - 1 && (last_fenced || last_snoozed)) &&
          !(final_attempt == max_seen + 1 && last_fenced)) {
        add(absl::StrCat(id, ": final attempt ", final_attempt,
                         " but handlers were called up to attempt ", max_seen,
                         last_fenced ? "" : " (last run not fenced)"));
      }
    }
  }
  CheckWorkload(history, limits, runs_by_id, &report);
  return report;
}

}  // namespace durable_test
}  // namespace timingwheel
