// Copyright 2026 The timingwheel Authors.
//
// The reference model of the workload's rules (chaos_checker.h, rules 7 to
// 9): the replace modes' rule on the due time a task first runs at, the
// kinds' limits per scheduler process, and no free place left idle while a
// task is overdue.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/durable/chaos_checker.h"

namespace timingwheel {
namespace durable_test {
namespace {

// ScheduleOutcome's values (durable/task.h).
constexpr int kScheduled = 0;
constexpr int kReplaced = 1;
constexpr int kKept = 2;

// Whether the calls, applied in `order` (indexes into `calls`; the ones
// left out did not apply), answer what each known caller got and leave
// `final_due_us`. A call in `resent` may answer as applied twice in a row
// (the client sent it again after its reply was lost).
bool Explains(const std::vector<const ChaosReplaceCall*>& calls,
              const std::vector<bool>& resent, const std::vector<int>& order,
              int64_t final_due_us) {
  bool exists = false;
  int64_t due = 0;
  for (int i : order) {
    const ChaosReplaceCall& c = *calls[i];
    int answer;
    if (!exists) {
      if (c.mode == ChaosReplaceCall::kReschedule) return false;
      answer = kScheduled;
      exists = true;
      due = c.due_us;
    } else {
      const bool take =
          c.mode == ChaosReplaceCall::kKeepEarlier ? c.due_us < due
          : c.mode == ChaosReplaceCall::kKeepLater ? c.due_us > due
                                                   : true;
      answer = take ? kReplaced : kKept;
      if (take) due = c.due_us;
    }
    const int again = c.mode == ChaosReplaceCall::kKeepEarlier ||
                              c.mode == ChaosReplaceCall::kKeepLater
                          ? kKept
                          : kReplaced;
    if (c.outcome >= 0 && c.outcome != answer &&
        !(resent[i] && c.outcome == again)) {
      return false;
    }
  }
  return exists && due == final_due_us;
}

// Whether some serial order of some applied subset (every known call in
// it) explains the final due time, each call after every call that
// returned before it began.
bool SomeOrderExplains(const std::vector<const ChaosReplaceCall*>& calls,
                       const std::vector<bool>& resent, int64_t final_due_us) {
  const int n = static_cast<int>(calls.size());
  for (int mask = 0; mask < (1 << n); ++mask) {
    std::vector<int> order;
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      const bool in = (mask >> i) & 1;
      if (!in && calls[i]->outcome >= 0) ok = false;
      if (in) order.push_back(i);
    }
    if (!ok) continue;
    do {
      bool real_time = true;
      for (size_t a = 0; a < order.size() && real_time; ++a) {
        for (size_t b = a + 1; b < order.size(); ++b) {
          if (calls[order[b]]->end_us < calls[order[a]]->begin_us) {
            real_time = false;
            break;
          }
        }
      }
      if (real_time && Explains(calls, resent, order, final_due_us)) {
        return true;
      }
    } while (std::next_permutation(order.begin(), order.end()));
  }
  return false;
}

std::string Describe(const std::vector<const ChaosReplaceCall*>& calls) {
  static const char* const kModes[] = {"replace", "keep-earlier", "keep-later",
                                       "reschedule"};
  std::string out;
  for (const ChaosReplaceCall* c : calls) {
    absl::StrAppend(&out, " [", kModes[c->mode], " due ", c->due_us, " in ",
                    c->begin_us, "..", c->end_us, " -> ", c->outcome, "]");
  }
  return out;
}

}  // namespace

void CheckWorkload(
    const ChaosHistory& history, const ChaosLimits& limits,
    const std::map<std::string, std::vector<ChaosRun>>& runs_by_id,
    ChaosReport* report) {
  auto add = [&](std::string message) {
    report->violations.push_back(std::move(message));
  };

  // 7. Replace modes.
  std::map<std::string, std::vector<const ChaosReplaceCall*>> calls_by_id;
  for (const ChaosReplaceCall& c : history.replaces) {
    calls_by_id[c.id].push_back(&c);
  }
  for (auto& [id, calls] : calls_by_id) {
    std::sort(calls.begin(), calls.end(),
              [](const ChaosReplaceCall* a, const ChaosReplaceCall* b) {
                return a->begin_us < b->begin_us;
              });
    auto runs = runs_by_id.find(id);
    if (runs == runs_by_id.end() || runs->second.empty()) continue;
    const int64_t first_start = runs->second.front().start_us;
    const bool overlapped =
        std::any_of(calls.begin(), calls.end(),
                    [&](const auto* c) { return c->end_us >= first_start; });
    if (overlapped) {
      ++report->replace_ids_unchecked;
      continue;
    }
    // The due time the row had when it first ran: the last one logged
    // before that run (a kept call writes nothing).
    int64_t final_due = INT64_MIN, logged_at = INT64_MIN;
    for (const ChaosDue& d : history.dues) {
      if (d.id == id && d.at_us < runs->second.front().at_us &&
          d.at_us >= logged_at) {
        logged_at = d.at_us;
        final_due = d.due_us;
      }
    }
    // A reply lost to the producer (or a server restart) while a call ran:
    // the client may have sent it again.
    std::vector<bool> resent;
    for (const ChaosReplaceCall* c : calls) {
      resent.push_back(std::any_of(
          history.faults.begin(), history.faults.end(),
          [&](const ChaosFault& f) {
            return (f.target == "producer" || f.target == "server") &&
                   f.at_us >= c->begin_us && f.at_us <= c->end_us + 2500000;
          }));
    }
    ++report->replace_ids_checked;
    if (!SomeOrderExplains(calls, resent, final_due)) {
      add(absl::StrCat(
          id, ": first ran due ", final_due,
          ", which no serial order of its calls gives:", Describe(calls)));
    }
  }

  // 8. No kind over its limit, per process.
  std::map<std::pair<std::string, std::string>, std::vector<const ChaosRun*>>
      by_process_kind;
  for (const ChaosRun& run : history.runs) {
    auto limit = history.kind_limits.find(run.kind);
    if (limit == history.kind_limits.end() || limit->second <= 0) continue;
    by_process_kind[{run.process, run.kind}].push_back(&run);
  }
  for (const auto& [key, runs] : by_process_kind) {
    std::vector<std::pair<int64_t, int>> events;
    for (const ChaosRun* run : runs) {
      events.push_back({run->at_us, 1});
      events.push_back({run->end_us > 0 ? run->end_us : INT64_MAX, -1});
    }
    std::sort(events.begin(), events.end());  // An end before a start.
    int64_t now = 0, peak = 0, peak_at = 0;
    for (const auto& [at, delta] : events) {
      now += delta;
      if (now > peak) {
        peak = now;
        peak_at = at;
      }
    }
    report->kind_peak = std::max(report->kind_peak, peak);
    const int limit = history.kind_limits.at(key.second);
    if (peak > limit) {
      add(absl::StrCat("process ", key.first, " ran ", peak, " tasks of kind ",
                       key.second, " at once at ", peak_at, " (its limit is ",
                       limit, ")"));
    }
  }

  // 9. No free place idle while a task is overdue.
  if (limits.late_bound_us <= 0) return;
  std::map<std::string, std::vector<const ChaosRun*>> by_process;
  for (const ChaosRun& run : history.runs)
    by_process[run.process].push_back(&run);
  std::map<std::string, std::vector<const ChaosDue*>> dues_by_id;
  for (const ChaosDue& d : history.dues) dues_by_id[d.id].push_back(&d);
  for (const ChaosRun& run : history.runs) {
    auto limit = history.kind_limits.find(run.kind);
    if (limit != history.kind_limits.end() && limit->second > 0) continue;
    int64_t due = INT64_MIN, logged = INT64_MIN;
    int slot = -1;
    for (const ChaosDue* d : dues_by_id[run.id]) {
      if (d->attempt <= run.attempt - 1 && d->at_us < run.at_us &&
          d->at_us >= logged) {
        due = d->due_us;
        logged = d->at_us;
        slot = d->slot;
      }
    }
    if (due == INT64_MIN) continue;
    const int64_t late = run.at_us - due;
    report->late_max_us = std::max(report->late_max_us, late);
    if (late <= limits.late_bound_us) continue;
    const int64_t since = due - limits.late_fault_window_us;
    const bool fault = std::any_of(
        history.faults.begin(), history.faults.end(), [&](const ChaosFault& f) {
          return f.at_us >= since && f.at_us <= run.at_us &&
                 (f.target == run.node || f.target == "server" ||
                  f.target == "producer" || f.target == "all");
        });
    const bool moved = std::any_of(
        history.leases.begin(), history.leases.end(), [&](const ChaosLease& l) {
          return l.slot == slot && l.at_us >= since && l.at_us <= run.at_us;
        });
    if (fault || moved) continue;
    // How long of the wait a place was free: all places but one busy (the
    // process's handlers running, from logged start to logged return)
    // counts as full, since a place whose outcome is being written, or
    // whose handler has not logged its start yet, looks free.
    std::vector<std::pair<int64_t, int>> steps;  // (instant, +1 / -1)
    int busy = 0;
    for (const ChaosRun* o : by_process[run.process]) {
      if (o->at_us > run.at_us || (o->end_us != 0 && o->end_us <= due)) {
        continue;
      }
      if (o->at_us <= due) {
        ++busy;
      } else {
        steps.push_back({o->at_us, +1});
      }
      if (o->end_us != 0 && o->end_us < run.at_us) {
        steps.push_back({o->end_us, -1});
      }
    }
    std::sort(steps.begin(), steps.end());
    int64_t free_us = 0, at = due;
    int most = busy;
    for (const auto& [instant, change] : steps) {
      const int64_t from = std::max(at, due);
      if (instant > from && busy < limits.max_in_flight - 1) {
        free_us += instant - from;
      }
      at = std::max(at, instant);
      busy += change;
      most = std::max(most, busy);
    }
    if (busy < limits.max_in_flight - 1 && run.at_us > at) {
      free_us += run.at_us - at;
    }
    const bool full = free_us <= limits.late_bound_us;
    if (full) continue;
    std::string message =
        absl::StrCat(run.id, ": started ", late / 1000, " ms after its due ",
                     "time (attempt ", run.attempt, ", ", run.process,
                     ") with a free place (at most ", most, " of ",
                     limits.max_in_flight, " busy) and no fault since ", since);
    if (limits.defect3_fails) {
      add(std::move(message));
    } else {
      report->known_defect_findings.push_back(
          absl::StrCat("defect 3 (or 4): ", message));
    }
  }
}

}  // namespace durable_test
}  // namespace timingwheel
