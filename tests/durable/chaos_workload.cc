// Copyright 2026 The timingwheel Authors.

#include "tests/durable/chaos_workload.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/schedule_in_transaction.h"
#include "durable/task.h"
#include "tests/durable/chaos_sql_calls.h"

namespace timingwheel {
namespace durable_test {
namespace {

int64_t NowUs() { return absl::ToUnixMicros(absl::Now()); }

void SleepMs(int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// A call retried while it fails (an identical schedule is OK again), up to
// 20 times: OK if one attempt was.
template <typename Fn>
bool Retried(Fn fn) {
  for (int i = 0; i < 20; ++i) {
    if (i > 0) SleepMs(100);
    if (fn().ok()) return true;
  }
  return false;
}

// Records a cancel's answer: the first that deleted the task (true) rules;
// an unknown one (it may have) overrules "not cancelled".
void NoteCancel(ChaosIntent& intent, ChaosIntent::Cancel answer,
                int64_t returned_us) {
  using Cancel = ChaosIntent::Cancel;
  if (intent.cancel == Cancel::kTrue) return;
  if (answer == Cancel::kFalse && intent.cancel != Cancel::kNone) return;
  intent.cancel = answer;
  intent.cancel_returned_us = returned_us;
}

}  // namespace

ChaosWorkload::ChaosWorkload(DurableClient* client, DurableClient* pair_client,
                             PGconn* in_tx_conn, ChaosHistory* history,
                             std::mutex* history_mu,
                             ChaosWorkloadOptions options)
    : client_(client),
      pair_client_(pair_client),
      in_tx_conn_(in_tx_conn),
      history_(history),
      history_mu_(history_mu),
      options_(options) {}

void ChaosWorkload::Count(const std::string& what, int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  calls_[what] += n;
}

ChaosIntent& ChaosWorkload::Intent(const std::string& id) {
  ChaosIntent& intent = history_->intents[id];
  intent.meant_to_fail = id.rfind("fail-", 0) == 0;
  return intent;
}

std::string ChaosWorkload::Coverage() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> parts;
  for (const auto& [what, n] : calls_)
    parts.push_back(absl::StrCat(what, "=", n));
  return absl::StrCat("calls: ", absl::StrJoin(parts, " "));
}

std::string ChaosWorkload::TaskId(Rng& rng, int thread) {
  static const char* const kPrefixes[] = {"task", "task",   "task",  "task",
                                          "fail", "snooze", "retry", "discard",
                                          "long", "park",   "nap"};
  const size_t n = options_.defect2_calls ? 11 : 9;
  const std::string prefix = kPrefixes[rng() % n];
  static std::atomic<int64_t> next{0};
  if (options_.defect6_calls && rng() % 12 == 0) {
    std::string id = absl::StrCat("big-", thread, "-", next.fetch_add(1), "-");
    id.resize(static_cast<size_t>(kMaxIdBytes), 'x');
    return id;
  }
  return absl::StrCat(prefix, "-", thread, "-", next.fetch_add(1));
}

ScheduleRequest ChaosWorkload::Request(Rng& rng, const std::string& id,
                                       absl::Duration delay) {
  static const char* const kKinds[] = {"", "", "", "ka", "kb"};
  ScheduleRequest request;
  request.id = id;
  request.payload = "p";
  request.delay = delay;
  request.kind = kKinds[rng() % 5];
  request.priority = static_cast<int>(rng() % 3);
  return request;
}

bool ChaosWorkload::UseSql(Rng& rng) const {
  return !options_.sql_conninfo.empty() && rng() % 3 == 0;
}

void ChaosWorkload::ScheduleSome(Rng& rng, int thread) {
  const int api =
      static_cast<int>(rng() % (options_.sql_conninfo.empty() ? 4 : 5));
  std::vector<ScheduleRequest> requests;
  const int n = api == 2 || api == 4 ? 1 + static_cast<int>(rng() % 3) : 1;
  for (int i = 0; i < n; ++i) {
    requests.push_back(
        Request(rng, TaskId(rng, thread), absl::Milliseconds(rng() % 3000)));
  }
  bool ok = false;
  if (api == 0) {
    const ScheduleRequest& r = requests[0];
    ok = Retried([&] { return client_->Schedule(r.id, r.delay, r.payload); });
    requests[0].kind.clear();
    Count("schedule");
  } else if (api == 1) {
    const ScheduleRequest& r = requests[0];
    const absl::Time due = absl::Now() + r.delay;
    ok = Retried([&] { return client_->ScheduleAt(r.id, due, r.payload); });
    Count("schedule_at");
  } else if (api == 2) {
    ok = Retried([&] { return client_->ScheduleBatch(requests); });
    Count("schedule_batch");
  } else if (api == 4) {
    // The SQL functions take ids of at most 1,024 bytes (the C++ client's
    // default limit; this test's clients admit kMaxIdBytes).
    for (ScheduleRequest& r : requests) {
      if (r.id.size() > 1024) r.id.resize(1024);
    }
    std::lock_guard<std::mutex> lock(in_tx_mu_);
    absl::Status last;
    ok = Retried([&] {
      if (PQstatus(in_tx_conn_) != CONNECTION_OK) PQreset(in_tx_conn_);
      last = SqlScheduleInTransaction(in_tx_conn_, requests);
      return last;
    });
    Count(ok ? "sql_schedule" : "sql_schedule_error");
    if (!ok && !absl::IsUnavailable(last)) {
      std::lock_guard<std::mutex> history_lock(*history_mu_);
      history_->call_errors.push_back(
          absl::StrCat("tw_schedule_task_after(", requests[0].id,
                       ", ...): ", last.ToString()));
    }
  } else {
    std::lock_guard<std::mutex> lock(in_tx_mu_);
    ok = Retried([&] {
      if (PQstatus(in_tx_conn_) != CONNECTION_OK) PQreset(in_tx_conn_);
      PQclear(PQexec(in_tx_conn_, "BEGIN"));
      absl::Status s =
          ScheduleInTransaction(in_tx_conn_, requests, options_.slot_count);
      PGresult* r = PQexec(in_tx_conn_, s.ok() ? "COMMIT" : "ROLLBACK");
      const bool committed = s.ok() && PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
      return committed ? absl::OkStatus() : absl::UnavailableError("commit");
    });
    Count("schedule_in_transaction");
  }
  std::lock_guard<std::mutex> lock(*history_mu_);
  std::lock_guard<std::mutex> own(mu_);
  for (const ScheduleRequest& r : requests) {
    Intent(r.id).scheduled = ok;
    ++calls_[absl::StrCat("id_", r.id.substr(0, r.id.find('-')))];
    if (!r.kind.empty()) ++calls_[absl::StrCat("kind_", r.kind)];
    if (!ok) continue;
    scheduled_.push_back(r.id);
    if (r.id.rfind("long-", 0) == 0 || r.id.rfind("big-", 0) == 0) {
      long_ids_.push_back(r.id);
    }
    if (r.id.rfind("fail-", 0) == 0) failing_ids_.push_back(r.id);
  }
}

void ChaosWorkload::LongBurst(Rng& rng, int thread) {
  // Enough long tasks to fill most places of every scheduler, and short
  // ones due just after them.
  std::vector<ScheduleRequest> requests;
  const absl::Time due = absl::Now() + absl::Milliseconds(300);
  for (int i = 0; i < 48; ++i) {
    ScheduleRequest r = Request(rng, "", absl::ZeroDuration());
    r.id = absl::StrCat(i < 40 ? "long-" : "task-", thread, "-burst-",
                        rng() % 1000000000);
    r.kind.clear();
    r.due = i < 40 ? due : due + absl::Milliseconds(200);
    requests.push_back(std::move(r));
  }
  const bool ok = Retried([&] { return client_->ScheduleBatch(requests); });
  Count("long_burst");
  std::lock_guard<std::mutex> lock(*history_mu_);
  std::lock_guard<std::mutex> own(mu_);
  for (const ScheduleRequest& r : requests) {
    Intent(r.id).scheduled = ok;
    if (ok && r.id.rfind("long-", 0) == 0) long_ids_.push_back(r.id);
  }
}

ChaosReplaceCall ChaosWorkload::ReplaceCall(DurableClient* client, bool sql,
                                            const std::string& id,
                                            ChaosReplaceCall::Mode mode,
                                            int64_t due_us) {
  static const char* const kNames[] = {"replace", "keep_earlier", "keep_later",
                                       "reschedule"};
  ChaosReplaceCall call;
  call.id = id;
  call.mode = mode;
  call.due_us = due_us;
  call.begin_us = NowUs();
  if (sql) {
    absl::StatusOr<int> answer =
        SqlReplace(options_.sql_conninfo, id, mode, due_us);
    call.end_us = NowUs();
    call.outcome = answer.ok() ? *answer : -1;
    Count(absl::StrCat("sql_", kNames[mode], answer.ok() ? "" : "_error"));
    return call;
  }
  absl::StatusOr<ScheduleOutcome> outcome;
  if (mode == ChaosReplaceCall::kReschedule) {
    outcome = client->Reschedule(id, absl::FromUnixMicros(due_us));
  } else {
    ScheduleRequest request;
    request.id = id;
    request.payload = "r";
    request.due = absl::FromUnixMicros(due_us);
    outcome =
        client->ScheduleOrReplace(request, static_cast<ReplaceMode>(mode));
  }
  call.end_us = NowUs();
  call.outcome = outcome.ok() ? static_cast<int>(*outcome) : -1;
  Count(absl::StrCat(kNames[mode], outcome.ok() ? "" : "_error"));
  return call;
}

void ChaosWorkload::ReplaceGroup(Rng& rng, int thread) {
  static std::atomic<int64_t> next{0};
  const std::string id = absl::StrCat("repl-", thread, "-", next.fetch_add(1));
  const int64_t base_us = NowUs() + 2500000;
  auto due = [&] { return base_us + static_cast<int64_t>(rng() % 1500000); };
  auto mode = [&](bool creating) {
    return static_cast<ChaosReplaceCall::Mode>(rng() % (creating ? 3 : 4));
  };
  std::vector<ChaosReplaceCall> calls;
  const int steps = 1 + static_cast<int>(rng() % 3);
  for (int step = 0; step < steps && NowUs() < base_us - 1000000; ++step) {
    const bool pair = rng() % 2 == 0 && (step > 0 || options_.defect1_calls);
    if (!pair) {
      const ChaosReplaceCall::Mode m = mode(step == 0);
      const int64_t d = due();
      calls.push_back(ReplaceCall(client_, UseSql(rng), id, m, d));
      continue;
    }
    // Two concurrent calls, the same mode (a debounce) or not.
    const ChaosReplaceCall::Mode a = mode(step == 0);
    const ChaosReplaceCall::Mode b = rng() % 3 == 0 ? mode(step == 0) : a;
    const int64_t due_a = due(), due_b = due();
    const bool sql_a = UseSql(rng), sql_b = UseSql(rng);
    ChaosReplaceCall other;
    std::atomic<int> ready{0};
    std::thread t([&] {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
      other = ReplaceCall(pair_client_, sql_b, id, b, due_b);
    });
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    calls.push_back(ReplaceCall(client_, sql_a, id, a, due_a));
    t.join();
    calls.push_back(other);
    Count(step == 0 ? "replace_pair_new_id" : "replace_pair");
  }
  std::lock_guard<std::mutex> lock(*history_mu_);
  bool any_ok = false;
  for (const ChaosReplaceCall& c : calls) any_ok = any_ok || c.outcome >= 0;
  ChaosIntent& intent = Intent(id);
  intent.scheduled = any_ok;
  for (ChaosReplaceCall& c : calls) history_->replaces.push_back(std::move(c));
  std::lock_guard<std::mutex> own(mu_);
  if (any_ok) scheduled_.push_back(id);
}

void ChaosWorkload::CancelOne(Rng& rng) {
  std::string victim;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (scheduled_.empty()) return;
    victim = scheduled_[rng() % scheduled_.size()];
  }
  const bool sql = UseSql(rng);
  absl::StatusOr<bool> cancelled =
      sql ? SqlCancel(options_.sql_conninfo, victim) : client_->Cancel(victim);
  const int64_t now = NowUs();
  Count(absl::StrCat(sql ? "sql_" : "",
                     cancelled.ok() ? "cancel" : "cancel_error"));
  std::lock_guard<std::mutex> lock(*history_mu_);
  NoteCancel(Intent(victim),
             !cancelled.ok() ? ChaosIntent::Cancel::kUnknown
             : *cancelled    ? ChaosIntent::Cancel::kTrue
                             : ChaosIntent::Cancel::kFalse,
             now);
}

void ChaosWorkload::CancelTaskOne(Rng& rng) {
  std::string victim;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (long_ids_.empty()) return;
    const size_t i =
        long_ids_.size() - 1 - rng() % std::min<size_t>(long_ids_.size(), 8);
    victim = long_ids_[i];
    long_ids_.erase(long_ids_.begin() + static_cast<ptrdiff_t>(i));
  }
  absl::StatusOr<CancelOutcome> outcome = client_->CancelTask(victim);
  const int64_t now = NowUs();
  static const char* const kNames[] = {"cancelled", "stop_requested",
                                       "finished", "not_found"};
  Count(absl::StrCat("cancel_task_", outcome.ok()
                                         ? kNames[static_cast<int>(*outcome)]
                                         : "error"));
  std::lock_guard<std::mutex> lock(*history_mu_);
  // Only a lost connection excuses an error (a fault of the test's).
  if (!outcome.ok() && !absl::IsUnavailable(outcome.status())) {
    history_->call_errors.push_back(absl::StrCat(
        "CancelTask(", victim.substr(0, 40), victim.size() > 40 ? "..." : "",
        " of ", victim.size(), " bytes): ", outcome.status().ToString()));
  }
  using Cancel = ChaosIntent::Cancel;
  NoteCancel(Intent(victim),
             !outcome.ok() ? Cancel::kUnknown
             : *outcome == CancelOutcome::kCancelled ||
                     *outcome == CancelOutcome::kStopRequested
                 ? Cancel::kTrue
                 : Cancel::kFalse,
             now);
}

void ChaosWorkload::Recurring(Rng& rng, int thread) {
  const std::string name = absl::StrCat("rec-", thread, "-", rng() % 3);
  RecurringSchedule schedule;
  schedule.name = name;
  schedule.every = absl::Milliseconds(500 + rng() % 700);
  schedule.payload = "r";
  schedule.policy.overlap =
      rng() % 2 == 0 ? Overlap::kSkipWhileRunning : Overlap::kRunAnyway;
  static const CatchUp kCatchUps[] = {CatchUp::kSkipMissed, CatchUp::kRunOnce,
                                      CatchUp::kRunEachMissed};
  schedule.policy.catch_up = kCatchUps[rng() % 3];
  const int action = static_cast<int>(rng() % 5);
  absl::Status status;
  const char* what = "";
  if (action == 0) {
    status = client_->CreateSchedule(schedule);
    what = "schedule_create";
    std::lock_guard<std::mutex> lock(mu_);
    schedules_.push_back(name);
  } else if (action == 1) {
    status = client_->UpdateSchedule(schedule);
    what = "schedule_update";
  } else {
    // Pause, resume and delete go through the client or, half the time,
    // an operator's AdminStore (twctl's and the dashboard's path).
    absl::StatusOr<AdminStore*> admin = client_->Admin();
    const bool by_admin = rng() % 2 == 0 && admin.ok();
    if (action == 2) {
      status = by_admin ? (*admin)->PauseSchedule(name)
                        : client_->PauseSchedule(name);
      what = by_admin ? "admin_schedule_pause" : "schedule_pause";
    } else if (action == 3) {
      status = by_admin ? (*admin)->ResumeSchedule(name)
                        : client_->ResumeSchedule(name);
      what = by_admin ? "admin_schedule_resume" : "schedule_resume";
    } else {
      status = by_admin ? (*admin)->DeleteSchedule(name).status()
                        : client_->DeleteSchedule(name).status();
      what = by_admin ? "admin_schedule_delete" : "schedule_delete";
    }
  }
  Count(absl::StrCat(what, status.ok()                ? ""
                           : absl::IsNotFound(status) ? "_not_found"
                                                      : "_error"));
}

void ChaosWorkload::AdminOne(Rng& rng) {
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failing_ids_.empty()) return;
    const size_t i = rng() % failing_ids_.size();
    id = failing_ids_[i];
    failing_ids_.erase(failing_ids_.begin() + static_cast<ptrdiff_t>(i));
  }
  absl::StatusOr<TaskInfo> info = client_->Get(id);
  absl::StatusOr<AdminStore*> admin = client_->Admin();
  if (!info.ok() || info->state != TaskState::kFailed || !admin.ok()) {
    if (info.ok() && info->state != TaskState::kFailed) {
      std::lock_guard<std::mutex> lock(mu_);
      failing_ids_.push_back(id);  // Not failed yet: maybe later.
    }
    return;
  }
  const int64_t begin = NowUs();
  const bool retry = rng() % 2 == 0;
  absl::StatusOr<ActionResult> result =
      retry ? (*admin)->Retry(id) : (*admin)->Discard(id);
  const bool done = result.ok() && result->outcome == ActionOutcome::kDone;
  Count(absl::StrCat(retry ? "admin_retry" : "admin_discard",
                     result.ok() ? (done ? "" : "_refused") : "_error"));
  std::lock_guard<std::mutex> lock(*history_mu_);
  ChaosIntent& intent = Intent(id);
  if (retry && done) intent.admin_retry_us = begin;
  if (!retry && (done || !result.ok())) intent.discarded = true;
}

void ChaosWorkload::Run(int thread, const std::atomic<bool>& stop) {
  Rng rng(static_cast<uint64_t>(options_.seed) * 7919 + 1 +
          static_cast<uint64_t>(thread));
  while (!stop.load()) {
    const int op = static_cast<int>(rng() % 100);
    if (op < 45) {
      ScheduleSome(rng, thread);
    } else if (op < 46) {
      LongBurst(rng, thread);
    } else if (op < 65) {
      ReplaceGroup(rng, thread);
    } else if (op < 75) {
      CancelOne(rng);
    } else if (op < 82) {
      CancelTaskOne(rng);
    } else if (op < 90) {
      Recurring(rng, thread);
    } else {
      AdminOne(rng);
    }
    SleepMs(options_.pause_ms);
  }
}

void ChaosWorkload::DeleteSchedules() {
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    names = schedules_;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names) {
    Retried([&] {
      absl::StatusOr<bool> deleted = client_->DeleteSchedule(name);
      return deleted.ok() || absl::IsNotFound(deleted.status())
                 ? absl::OkStatus()
                 : deleted.status();
    });
  }
}

}  // namespace durable_test
}  // namespace timingwheel
