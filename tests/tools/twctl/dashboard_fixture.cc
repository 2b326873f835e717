// Copyright 2026 The timingwheel Authors.
//
// dashboard_fixture: the store the dashboard's browser test looks at. Creates
// a fresh database ($TIMINGWHEEL_PG), runs a scheduler on it, and puts tasks
// in every state:
//
//   done-1, done-2          SUCCESS
//   failed-1, HOSTILE_ID    FAILED (errors with `<script>` in them; the
//                           first attempt of each fails, later ones succeed,
//                           so that a Retry runs and succeeds)
//   running-1               RUNNING (its handler waits for the end)
//   scheduled-1..3          SCHEDULED (due within the hour)
//   pending-1               PENDING (due in 3 hours, past the horizon)
//
// where HOSTILE_ID is `<script>alert('id')</script>`. Each FAILED task has
// an attempt history: the records its scheduler wrote, or, while
// schedulers write none, one FAILED record per task made here by SQL (only
// for a task with no record, so it works either way). pending-1 has the
// kind `<b>mail</b>` and priority 5 (set by SQL: no scheduler here
// registers that kind; it is due hours after the test ends). A recurring
// schedule "nightly <i>report</i>" (cron, next run months away) and two
// of its occurrences as PENDING tasks (occurrence ids, due in 3 hours),
// for the schedules page and the occurrence filters. Prints
// "CONNINFO <conninfo>" and then "READY", keeps the scheduler running (a
// retried task runs), and ends when its standard input closes.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "timer/executor.h"

namespace {

using timingwheel::DurableScheduler;
using timingwheel::DurableTask;
using timingwheel::TaskState;

const char kHostileId[] = "<script>alert('id')</script>";
const char kScheduleName[] = "nightly <i>report</i>";

// A thread per callback, so that the blocked RUNNING handler does not hold
// up a retried task. Joins them all at the end.
class ThreadPerTask final : public timingwheel::Executor {
 public:
  ~ThreadPerTask() override { Join(); }
  void Execute(Callback callback) override {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.emplace_back(
        [c = std::move(callback)]() mutable { std::move(c)(); });
  }
  void Join() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
  }

 private:
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

int Fail(const std::string& message) {
  std::cerr << "dashboard_fixture: " << message << std::endl;
  return 1;
}

}  // namespace

int main() {
  auto db = timingwheel::durable_testing::TestDatabase::Create();
  if (!db.ok()) return Fail(db.status().ToString());

  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<bool> running_started{false};
  std::set<std::string> failed_once;
  ThreadPerTask executor;

  timingwheel::DurableOptions options;
  options.conninfo = (*db)->conninfo();
  options.node_id = "dash-node-<i>";
  options.slot_count = 8;
  options.lease_ttl = absl::Seconds(4);
  options.retry.max_attempts = 1;
  options.executor = &executor;
  options.handler = [&](const DurableTask& task) -> absl::Status {
    if (task.id == "running-1") {
      running_started = true;
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return release; });
      return absl::OkStatus();
    }
    if (task.id == "failed-1" || task.id == kHostileId) {
      std::lock_guard<std::mutex> lock(mu);
      if (failed_once.insert(task.id).second) {
        return absl::InternalError(absl::StrCat(
            "attempt ", task.attempt, " failed: <script>alert('error')",
            "</script> & \"quotes\""));
      }
    }
    return absl::OkStatus();
  };
  auto scheduler = DurableScheduler::Create(options);
  if (!scheduler.ok()) return Fail(scheduler.status().ToString());
  DurableScheduler& s = **scheduler;

  struct Want {
    std::string id;
    absl::Duration delay;
    TaskState state;
  };
  const std::vector<Want> wants = {
      {"done-1", absl::ZeroDuration(), TaskState::kSuccess},
      {"done-2", absl::ZeroDuration(), TaskState::kSuccess},
      {"failed-1", absl::ZeroDuration(), TaskState::kFailed},
      {kHostileId, absl::ZeroDuration(), TaskState::kFailed},
      {"running-1", absl::ZeroDuration(), TaskState::kRunning},
      {"scheduled-1", absl::Minutes(5), TaskState::kScheduled},
      {"scheduled-2", absl::Minutes(20), TaskState::kScheduled},
      {"scheduled-3", absl::Minutes(45), TaskState::kScheduled},
      {"pending-1", absl::Hours(3), TaskState::kPending},
  };
  for (const Want& w : wants) {
    absl::Status status = s.Schedule(w.id, w.delay, "payload <b>bold</b>");
    if (!status.ok()) return Fail(status.ToString());
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  for (const Want& w : wants) {
    for (;;) {
      auto info = s.Get(w.id);
      if (info.ok() && info->state == w.state &&
          (w.id != "running-1" || running_started)) {
        break;
      }
      if (absl::Now() > deadline) {
        return Fail(absl::StrCat("task ", w.id, " did not reach ",
                                 timingwheel::TaskStateName(w.state)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  // The attempt history of the failed tasks, if the scheduler wrote none.
  const timingwheel::durable_testing::StoreInspector store((*db)->conninfo());
  auto failed = store.Tasks(timingwheel::durable_testing::TaskMatch().State(
      timingwheel::TaskState::kFailed));
  if (!failed.ok()) return Fail(failed.status().ToString());
  for (const timingwheel::durable_testing::TaskRow& t : *failed) {
    auto recorded = store.CountAttempts(t.id);
    if (!recorded.ok()) return Fail(recorded.status().ToString());
    if (*recorded > 0) continue;
    const int64_t finished_us = t.finished_us.value_or(0);
    absl::Status history = store.InsertAttempt(
        t.id, timingwheel::durable_testing::AttemptRow{
                  std::max(t.attempt, 1), 2, "dash-node-<i>",
                  finished_us - 1500, finished_us, t.last_error});
    if (!history.ok()) return Fail(history.ToString());
  }
  auto kind = store.SetKindAndPriority("pending-1", "<b>mail</b>", 5);
  if (!kind.ok()) return Fail(kind.status().ToString());
  // A recurring schedule (its next occurrence months away, so that nothing
  // of it runs during the test) and two occurrences of it written as
  // tasks, due in 3 hours (past the horizon: they stay PENDING).
  timingwheel::RecurringSchedule report;
  report.name = kScheduleName;
  report.cron = "0 3 1 1 *";
  report.payload = "r";
  absl::Status created = s.CreateSchedule(report);
  if (!created.ok()) return Fail(created.ToString());
  for (int64_t instant_us :
       {int64_t{1764633600000000}, int64_t{1764633603250000}}) {
    timingwheel::durable_testing::InsertedTask occurrence;
    occurrence.id = absl::StrCat("\x1btw-schedule:", sizeof(kScheduleName) - 1,
                                 ":", kScheduleName, "@", instant_us);
    occurrence.due_in_us = int64_t{3} * 3600 * 1000000;
    absl::Status inserted = store.InsertTask(occurrence);
    if (!inserted.ok()) return Fail(inserted.ToString());
  }
  std::cout << "CONNINFO " << (*db)->conninfo() << "\nREADY" << std::endl;

  // Until the test closes our standard input.
  char buffer[256];
  while (read(STDIN_FILENO, buffer, sizeof(buffer)) > 0) {
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  s.Shutdown();
  scheduler->reset();
  executor.Join();
  return 0;
}
