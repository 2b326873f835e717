// Copyright 2026 The timingwheel Authors.
//
// Recurring schedules on a real PostgreSQL (bash .ci/with-postgres starts
// one): occurrences on time and once each, overlap policies, two
// schedulers and a takeover, a process stopped between a completion and
// the next occurrence's write, pause and resume, update, validation.
// Catch-up after an outage and concurrent advances are tested on the store
// (recurring_store_test.cc); the calendar across DST nights on the pure
// plan (schedule_plan_test.cc).

#include "durable/recurring.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/occurrence_id.h"
#include "durable/testing/pause_points.h"
#include "durable/testing/pg_proxy.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

constexpr absl::Duration kEvery = absl::Milliseconds(200);

RecurringSchedule Every(const std::string& name, Overlap overlap,
                        CatchUp catch_up) {
  RecurringSchedule s;
  s.name = name;
  s.every = kEvery;
  s.payload = "tick";
  s.policy.overlap = overlap;
  s.policy.catch_up = catch_up;
  s.policy.grace = absl::Milliseconds(50);
  s.policy.max_runs = 100;
  return s;
}

class RecurringTest : public DurableFixture {
 protected:
  DurableOptions ShortHorizon(const std::string& node) {
    DurableOptions options = Options(node);
    options.horizon = absl::Seconds(2);  // Loads (and the duty) every 1 s.
    return options;
  }

  // The occurrences the handler ran, in call order.
  std::vector<absl::Time> Occurrences() {
    std::vector<absl::Time> out;
    for (const Recorder::Call& c : recorder_.calls()) {
      out.push_back(c.task.occurrence);
    }
    return out;
  }

  // Every call is an occurrence of `name`, on its grid, never early, and
  // no occurrence ran twice.
  void ExpectEachOnceOnTime(const std::string& name) {
    std::map<absl::Time, int> runs;
    for (const Recorder::Call& c : recorder_.calls()) {
      EXPECT_EQ(c.task.schedule, name);
      EXPECT_EQ(c.task.payload, "tick");
      EXPECT_EQ(c.task.id, durable_internal::OccurrenceId(
                               name, absl::ToUnixMicros(c.task.occurrence)));
      EXPECT_EQ(absl::ToUnixMicros(c.task.occurrence) %
                    absl::ToInt64Microseconds(kEvery),
                0);
      EXPECT_GE(c.task.due, c.task.occurrence);
      EXPECT_GE(c.at, c.task.occurrence) << "ran early";
      ++runs[c.task.occurrence];
    }
    for (const auto& [at, n] : runs) {
      EXPECT_EQ(n, 1) << "occurrence " << at << " ran " << n << " times";
    }
  }

  // No occurrence between the first and last run is missing.
  void ExpectContiguous() {
    std::vector<absl::Time> seen = Occurrences();
    std::sort(seen.begin(), seen.end());
    for (size_t i = 1; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i] - seen[i - 1], kEvery) << "lost after " << seen[i - 1];
    }
  }
};

TEST_F(RecurringTest, IntervalRunsEachOccurrenceOnTime) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(
      scheduler
          ->CreateSchedule(Every("every-200ms", Overlap::kSkipWhileRunning,
                                 CatchUp::kRunOnce))
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 6; }));
  ExpectEachOnceOnTime("every-200ms");
  std::vector<absl::Time> seen = Occurrences();
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));

  auto list = scheduler->ListSchedules();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].definition.name, "every-200ms");
  EXPECT_FALSE((*list)[0].paused);
  EXPECT_GT((*list)[0].next_run, seen[0]);
  EXPECT_NE((*list)[0].spec.find("every"), std::string::npos);
  auto one = scheduler->GetSchedule("every-200ms");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->definition.every, kEvery);
}

// Occurrences carry the schedule's kind and priority to the kind's handler;
// a schedule of a kind no scheduler registered is refused.
TEST_F(RecurringTest, OccurrencesRunAsTheSchedulesKind) {
  Recorder reports;
  TaskKind kind;
  kind.name = "report";
  kind.handler = reports.Handler();
  DurableOptions options = ShortHorizon("a");
  options.kinds = {kind};
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  RecurringSchedule s =
      Every("nightly", Overlap::kSkipWhileRunning, CatchUp::kSkipMissed);
  s.kind = "nobody";
  EXPECT_TRUE(absl::IsNotFound(scheduler->CreateSchedule(s)));
  s.kind = "report";
  s.priority = 7;
  ASSERT_TRUE(scheduler->CreateSchedule(s).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.size() >= 2; }));
  EXPECT_EQ(recorder_.size(), 0u);  // Never the default handler.
  for (const Recorder::Call& c : reports.calls()) {
    EXPECT_EQ(c.task.kind, "report");
    EXPECT_EQ(c.task.priority, 7);
    EXPECT_EQ(c.task.schedule, "nightly");
  }
  auto info = scheduler->GetSchedule("nightly");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->definition.kind, "report");
  EXPECT_EQ(info->definition.priority, 7);
  // The same definition again is no change; another kind is a conflict.
  EXPECT_TRUE(scheduler->CreateSchedule(s).ok());
  s.priority = 0;
  EXPECT_TRUE(absl::IsAlreadyExists(scheduler->CreateSchedule(s)));
}

TEST_F(RecurringTest, SkipWhileRunningNeverOverlaps) {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  recorder_.SetResult([&](const DurableTask&) {
    const int now = ++running;
    most = std::max(most.load(), now);
    absl::SleepFor(absl::Milliseconds(450));  // Longer than the interval.
    --running;
    return absl::OkStatus();
  });
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->CreateSchedule(Every("slow", Overlap::kSkipWhileRunning,
                                         CatchUp::kSkipMissed))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 4; }));
  EXPECT_EQ(most.load(), 1) << "runs overlapped";
  ExpectEachOnceOnTime("slow");
  std::vector<absl::Time> seen = Occurrences();
  for (size_t i = 1; i < seen.size(); ++i) {
    // The occurrences that came due while a run ran were skipped.
    EXPECT_GE(seen[i] - seen[i - 1], 2 * kEvery);
  }
  scheduler->Shutdown();
}

TEST_F(RecurringTest, RunAnywayRunsEveryOccurrenceOnce) {
  recorder_.SetResult([](const DurableTask&) {
    absl::SleepFor(absl::Milliseconds(300));  // Runs overlap.
    return absl::OkStatus();
  });
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->CreateSchedule(Every("overlapping", Overlap::kRunAnyway,
                                         CatchUp::kRunEachMissed))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 8; }));
  scheduler->Shutdown();
  ExpectEachOnceOnTime("overlapping");
  ExpectContiguous();
}

TEST_F(RecurringTest, TwoSchedulersWriteEachOccurrenceOnce) {
  // One slot: one owner at a time; the other takes over at a's shutdown.
  auto a = Start(ShortHorizon("a"));
  auto b = Start(ShortHorizon("b"));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->CreateSchedule(Every("shared", Overlap::kSkipWhileRunning,
                                      CatchUp::kRunEachMissed))
                  .ok());
  // Both create it: identical, so OK, and nothing written twice.
  ASSERT_TRUE(b->CreateSchedule(Every("shared", Overlap::kSkipWhileRunning,
                                      CatchUp::kRunEachMissed))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 4; }));
  const bool a_owned = a->Metrics().slots_owned == 1;
  (a_owned ? a : b)->Shutdown();
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 5; }));
  (a_owned ? b : a)->Shutdown();
  ExpectEachOnceOnTime("shared");
  ExpectContiguous();  // kRunEachMissed ran what the takeover delayed.
}

TEST_F(RecurringTest, OwnerStalledBeforeACompletionWritesNothingTwice) {
  auto a = Start(ShortHorizon("a"));
  ASSERT_NE(a, nullptr);
  durable_testing::PausePoint held("schedule.completing");
  ASSERT_TRUE(a->CreateSchedule(Every("stalled", Overlap::kSkipWhileRunning,
                                      CatchUp::kRunOnce))
                  .ok());
  // a's maintenance thread stops before the transaction that records the
  // first outcome and writes the next occurrence.
  ASSERT_TRUE(held.WaitReached(absl::Seconds(20)));
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kRunning)), 1);
  // Its lease runs out; b takes the slot, runs that occurrence again (the
  // at-least-once window) and goes on.
  auto b = Start(ShortHorizon("b"));
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 4; }));
  held.Resume();  // a's stale outcome and advance change nothing.
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 2; }));
  a->Shutdown();
  b->Shutdown();
  std::map<absl::Time, int> runs;
  const std::vector<absl::Time> seen = Occurrences();
  for (absl::Time t : seen) ++runs[t];
  for (const auto& [t, n] : runs) {
    EXPECT_LE(n, t == seen[0] ? 2 : 1) << t << " ran " << n << " times";
  }
  // kSkipWhileRunning: never more than one unfinished occurrence.
  EXPECT_LE(Count(TaskMatch().StateBefore(TaskState::kSuccess)), 1);
}

TEST_F(RecurringTest, CancelledOccurrenceIsRepairedByTheOwnersDuty) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  RecurringSchedule s =
      Every("cancelled", Overlap::kSkipWhileRunning, CatchUp::kSkipMissed);
  s.every = absl::Seconds(1);
  ASSERT_TRUE(scheduler->CreateSchedule(s).ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 1; }));
  // The waiting occurrence is cancelled like a task (twctl cancel): the
  // owner's next load writes the one after it.
  ASSERT_TRUE(WaitFor([&] {
    return Count(TaskMatch().StateBefore(TaskState::kRunning)) == 1;
  }));
  auto info = scheduler->GetSchedule("cancelled");
  ASSERT_TRUE(info.ok());
  const std::string id = durable_internal::OccurrenceId(
      "cancelled", absl::ToUnixMicros(info->last_run));
  auto cancelled = scheduler->Cancel(id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  ASSERT_TRUE(*cancelled);
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 2; }));
  scheduler->Shutdown();
  for (const Recorder::Call& c : recorder_.calls()) {
    EXPECT_NE(c.task.id, id) << "a cancelled occurrence ran";
    EXPECT_EQ(c.task.schedule, "cancelled");
  }
}

TEST_F(RecurringTest, AdvanceWhoseCommitReplyIsLostWritesNothingTwice) {
  auto proxy = durable_testing::PgProxy::Start(db_->conninfo());
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  DurableOptions options = ShortHorizon("a");
  options.conninfo = (*proxy)->conninfo();
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(
      scheduler
          ->CreateSchedule(Every("lost-reply", Overlap::kSkipWhileRunning,
                                 CatchUp::kRunEachMissed))
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 1; }));
  // The next transaction to commit is an advance (after a completion, or
  // the duty's): it commits, its reply is lost, the connection dies.
  (*proxy)->DropReplyTo("COMMIT");
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 4; }));
  EXPECT_GE(scheduler->Metrics().reconnects, 1);
  scheduler->Shutdown();
  ExpectEachOnceOnTime("lost-reply");
  ExpectContiguous();
}

TEST_F(RecurringTest, PausedScheduleRunsNothingAndResumesByItsCatchUp) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->CreateSchedule(Every("pausable", Overlap::kSkipWhileRunning,
                                         CatchUp::kSkipMissed))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
  ASSERT_TRUE(scheduler->PauseSchedule("pausable").ok());
  const absl::Time paused_at = absl::Now();
  EXPECT_EQ(Count(TaskMatch().StateBefore(TaskState::kRunning)), 0)
      << "the waiting occurrence stays";
  // A run started before the pause may still finish.
  ASSERT_TRUE(WaitFor(
      [&] { return Count(TaskMatch().State(TaskState::kRunning)) == 0; }));
  const size_t during = recorder_.size();
  auto info = scheduler->GetSchedule("pausable");
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->paused);
  EXPECT_EQ(info->next_run, absl::InfiniteFuture());
  absl::SleepFor(absl::Seconds(1));  // Five occurrences pass.
  EXPECT_EQ(recorder_.size(), during);
  const absl::Time resumed_at = absl::Now();
  ASSERT_TRUE(scheduler->ResumeSchedule("pausable").ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= during + 2; }));
  ExpectEachOnceOnTime("pausable");
  for (absl::Time t : Occurrences()) {
    // kSkipMissed (grace 50 ms): nothing missed during the pause ran.
    EXPECT_FALSE(t > paused_at + absl::Milliseconds(250) &&
                 t < resumed_at - absl::Milliseconds(100))
        << t << " ran though it came due while paused";
  }
}

TEST_F(RecurringTest, OutageOfEverySchedulerThenEachMissedRunsOnceInOrder) {
  const RecurringSchedule s =
      Every("outage", Overlap::kSkipWhileRunning, CatchUp::kRunEachMissed);
  {
    auto a = Start(ShortHorizon("a"));
    ASSERT_NE(a, nullptr);
    ASSERT_TRUE(a->CreateSchedule(s).ok());
    ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
    a->Shutdown();
  }
  const size_t before = recorder_.size();
  absl::SleepFor(absl::Seconds(1));  // No scheduler: five occurrences pass.
  auto b = Start(ShortHorizon("b"));
  ASSERT_NE(b, nullptr);
  // The missed ones run one after another, then the schedule is on time.
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 8; }));
  b->Shutdown();
  ExpectEachOnceOnTime("outage");
  ExpectContiguous();
  std::vector<absl::Time> seen = Occurrences();
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << "overlapped";
}

TEST_F(RecurringTest, UpdateReplacesTheWaitingOccurrence) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  RecurringSchedule hourly =
      Every("changing", Overlap::kSkipWhileRunning, CatchUp::kRunOnce);
  hourly.every = absl::Hours(1);
  hourly.payload = "old";
  ASSERT_TRUE(scheduler->CreateSchedule(hourly).ok());
  EXPECT_EQ(Count(TaskMatch().State(TaskState::kPending)), 1);
  RecurringSchedule cron = hourly;
  cron.every = absl::ZeroDuration();
  cron.cron = "*/1 * * * * *";  // Every second (six fields).
  cron.time_zone = "America/New_York";
  cron.payload = "tick";
  ASSERT_TRUE(scheduler->UpdateSchedule(cron).ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
  for (const Recorder::Call& c : recorder_.calls()) {
    EXPECT_EQ(c.task.payload, "tick");
    EXPECT_EQ(absl::ToUnixMicros(c.task.occurrence) % 1000000, 0);
    EXPECT_GE(c.at, c.task.occurrence);
  }
  auto info = scheduler->GetSchedule("changing");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->definition.cron, "* * * * * *");
  EXPECT_TRUE(scheduler->DeleteSchedule("changing").value());
  EXPECT_FALSE(scheduler->DeleteSchedule("changing").value());
  EXPECT_EQ(Count(TaskMatch().StateBefore(TaskState::kRunning)), 0);
}

TEST_F(RecurringTest, ClientManagesSchedulesThatSchedulersRun) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  DurableClientOptions options;
  options.conninfo = db_->conninfo();
  options.slot_count = 1;
  auto client = DurableClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(
      (*client)
          ->CreateSchedule(Every("from-client", Overlap::kSkipWhileRunning,
                                 CatchUp::kRunOnce))
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 3; }));
  auto list = (*client)->ListSchedules();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  ASSERT_TRUE((*client)->PauseSchedule("from-client").ok());
  EXPECT_TRUE((*client)->GetSchedule("from-client").value().paused);
  ASSERT_TRUE((*client)->ResumeSchedule("from-client").ok());
  const size_t before = recorder_.size();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= before + 2; }));
  EXPECT_TRUE((*client)->DeleteSchedule("from-client").value());
  scheduler->Shutdown();
  ExpectEachOnceOnTime("from-client");
}

TEST_F(RecurringTest, HostileNamesAndPayloadsRoundTripByteExact) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  static constexpr char kName[] = "it's a \\ '; DROP TABLE x; --\0@1";
  static constexpr char kPayload[] = "\0\0'\"\\";
  const std::string name(kName, sizeof(kName) - 1);
  const std::string payload =
      std::string(kPayload, sizeof(kPayload) - 1) + std::string(1 << 20, 'x');
  RecurringSchedule s =
      Every(name, Overlap::kSkipWhileRunning, CatchUp::kRunOnce);
  s.payload = payload;
  ASSERT_TRUE(scheduler->CreateSchedule(s).ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
  for (const Recorder::Call& c : recorder_.calls()) {
    EXPECT_EQ(c.task.schedule, name);
    EXPECT_EQ(c.task.payload, payload);
  }
  auto info = scheduler->GetSchedule(name);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->definition.name, name);
  ASSERT_TRUE(scheduler->PauseSchedule(name).ok());
  EXPECT_TRUE(scheduler->DeleteSchedule(name).value());
  EXPECT_EQ(Value(Store().CountSchedules()), 0);
}

TEST_F(RecurringTest, InvalidInputIsRefusedNamingTheField) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  auto expect = [&](RecurringSchedule s, absl::StatusCode code,
                    const std::string& words) {
    absl::Status status = scheduler->CreateSchedule(s);
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_NE(status.message().find(words), std::string::npos) << status;
  };
  RecurringSchedule good =
      Every("v", Overlap::kSkipWhileRunning, CatchUp::kRunOnce);
  RecurringSchedule s = good;
  s.every = absl::ZeroDuration();
  s.cron = "61 * * * *";
  expect(s, absl::StatusCode::kInvalidArgument, "minute");
  s.cron = "* * * * *";
  s.time_zone = "Mars/Olympus_Mons";
  expect(s, absl::StatusCode::kInvalidArgument, "Mars/Olympus_Mons");
  s = good;
  s.every = -absl::Seconds(1);
  expect(s, absl::StatusCode::kInvalidArgument, "every");
  s = good;
  s.cron = "* * * * *";
  expect(s, absl::StatusCode::kInvalidArgument, "exactly one");
  s = good;
  s.policy.max_runs = 0;
  expect(s, absl::StatusCode::kInvalidArgument, "max_runs");
  s = good;
  s.payload.clear();
  expect(s, absl::StatusCode::kInvalidArgument, "payload");
  s = good;
  s.name.clear();
  expect(s, absl::StatusCode::kInvalidArgument, "name");

  ASSERT_TRUE(scheduler->CreateSchedule(good).ok());
  ASSERT_TRUE(scheduler->CreateSchedule(good).ok()) << "identical retry";
  s = good;
  s.payload = "other";
  expect(s, absl::StatusCode::kAlreadyExists, "another definition");
  EXPECT_TRUE(absl::IsNotFound(scheduler->PauseSchedule("none")));
  EXPECT_TRUE(absl::IsNotFound(scheduler->ResumeSchedule("none")));
  s.name = "none";
  EXPECT_TRUE(absl::IsNotFound(scheduler->UpdateSchedule(s)));
  EXPECT_TRUE(absl::IsNotFound(scheduler->GetSchedule("none").status()));
  // Plain tasks may not take an occurrence's id.
  EXPECT_TRUE(absl::IsInvalidArgument(scheduler->Schedule(
      durable_internal::OccurrenceId("v", 0), absl::Seconds(1), "p")));
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
