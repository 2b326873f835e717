// Copyright 2026 The timingwheel Authors.
//
// Recurring schedules through the scheduler, one suite over both stores
// (two_store_fixture.h: PostgreSQL and the in-memory fake): occurrences on
// time and once each, the kind's handler, overlap policies, two schedulers
// and a takeover, a cancelled occurrence repaired, pause and resume, an
// outage of every scheduler, update, validation. The faults only a real
// server has (a lost reply, a stalled owner) and the client are tested in
// recurring_test.cc.

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/recurring.h"
#include "gtest/gtest.h"
#include "tests/durable/recurring_test_util.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

class RecurringLogicTest : public TwoStoreFixture {
 protected:
  DurableOptions ShortHorizon(const std::string& node) {
    DurableOptions options = Options(node);
    options.horizon = absl::Seconds(2);  // Loads (and the duty) every 1 s.
    return options;
  }
};

TEST_P(RecurringLogicTest, IntervalRunsEachOccurrenceOnTime) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(
      scheduler
          ->CreateSchedule(Every("every-200ms", Overlap::kSkipWhileRunning,
                                 CatchUp::kRunOnce))
          .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 6; }));
  ExpectEachOnceOnTime(recorder_, "every-200ms");
  std::vector<absl::Time> seen = Occurrences(recorder_);
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
TEST_P(RecurringLogicTest, OccurrencesRunAsTheSchedulesKind) {
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

TEST_P(RecurringLogicTest, SkipWhileRunningNeverOverlaps) {
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
  ExpectEachOnceOnTime(recorder_, "slow");
  std::vector<absl::Time> seen = Occurrences(recorder_);
  for (size_t i = 1; i < seen.size(); ++i) {
    // The occurrences that came due while a run ran were skipped.
    EXPECT_GE(seen[i] - seen[i - 1], 2 * kEvery);
  }
  scheduler->Shutdown();
}

TEST_P(RecurringLogicTest, RunAnywayRunsEveryOccurrenceOnce) {
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
  // Occurrences are written ahead: the next run is the earliest of them
  // still waiting, not the next one to be written (after the last); the
  // last run is one whose time has come, not one written ahead.
  auto info = scheduler->GetSchedule("overlapping");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GT(info->next_run, absl::UnixEpoch());
  EXPECT_LE(info->last_run, absl::Now());
  EXPECT_GT(info->last_run, absl::Now() - absl::Seconds(5));
  scheduler->Shutdown();
  ExpectEachOnceOnTime(recorder_, "overlapping");
  ExpectContiguous(recorder_);
}

// A kRunAnyway schedule every 200 ms with the default one-hour horizon
// (the half-horizon round is 30 minutes away): at most
// kMaxOccurrencesAhead occurrences wait at once, and the owner's duty tops
// them up in time by itself (the handlers block, so no completion does):
// each occurrence runs, none twice, none skipped for being written late
// (a 50 ms grace would skip it).
TEST_P(RecurringLogicTest, RunAnywayKeepsAtMostTheBoundWaiting) {
  absl::Notification release;
  recorder_.SetResult([&](const DurableTask&) {
    release.WaitForNotification();
    return absl::OkStatus();
  });
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->CreateSchedule(Every("every-200ms", Overlap::kRunAnyway,
                                         CatchUp::kSkipMissed))
                  .ok());
  EXPECT_LE(CountWaiting(), kMaxOccurrencesAhead);  // The first may run.
  // Three times the bound fire (RUNNING, held by the blocked handlers).
  // Under load some may be due and not yet fired; the bound counts only
  // those written ahead of their due time.
  int64_t most_ahead = 0;
  ASSERT_TRUE(WaitFor([&] {
    most_ahead = std::max(most_ahead, CountWaitingNotYetDue());
    return CountInState(TaskState::kRunning) >= 3 * kMaxOccurrencesAhead;
  }));
  EXPECT_LE(most_ahead, kMaxOccurrencesAhead);
  EXPECT_GE(CountWaiting(), kMaxOccurrencesAhead / 2);
  // NEXT RUN: the earliest waiting occurrence; LAST RUN: the latest that
  // has come due, not one written ahead.
  auto info = scheduler->GetSchedule("every-200ms");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GT(info->next_run, absl::Now() - absl::Seconds(1));
  EXPECT_LE(info->last_run, absl::Now());
  EXPECT_GT(info->last_run, absl::Now() - absl::Seconds(5));
  // No occurrence is missing after the last run: the next waits at most an
  // interval after it (under load, earlier ones may still wait, overdue).
  EXPECT_LE(info->next_run, info->last_run + absl::Milliseconds(200));
  release.Notify();
  const size_t ran = static_cast<size_t>(3 * kMaxOccurrencesAhead);
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= ran; }));
  scheduler->Shutdown();
  ExpectEachOnceOnTime(recorder_, "every-200ms");
  ExpectContiguous(recorder_);
}

TEST_P(RecurringLogicTest, TwoSchedulersWriteEachOccurrenceOnce) {
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
  ExpectEachOnceOnTime(recorder_, "shared");
  ExpectContiguous(recorder_);  // kRunEachMissed ran what the takeover delayed.
}

TEST_P(RecurringLogicTest, CancelledOccurrenceIsRepairedByTheOwnersDuty) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  RecurringSchedule s =
      Every("cancelled", Overlap::kSkipWhileRunning, CatchUp::kSkipMissed);
  s.every = absl::Seconds(1);
  ASSERT_TRUE(scheduler->CreateSchedule(s).ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 1; }));
  // The waiting occurrence is cancelled like a task (twctl cancel): the
  // owner's next load writes the one after it.
  ASSERT_TRUE(WaitFor([&] { return CountWaiting() == 1; }));
  auto info = scheduler->GetSchedule("cancelled");
  ASSERT_TRUE(info.ok());
  const std::string id = durable_internal::OccurrenceId(
      "cancelled", absl::ToUnixMicros(info->next_run));
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

TEST_P(RecurringLogicTest, PausedScheduleRunsNothingAndResumesByItsCatchUp) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->CreateSchedule(Every("pausable", Overlap::kSkipWhileRunning,
                                         CatchUp::kSkipMissed))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() >= 2; }));
  ASSERT_TRUE(scheduler->PauseSchedule("pausable").ok());
  const absl::Time paused_at = absl::Now();
  EXPECT_EQ(CountWaiting(), 0) << "the waiting occurrence stays";
  // A run started before the pause may still finish.
  ASSERT_TRUE(WaitFor([&] { return CountInState(TaskState::kRunning) == 0; }));
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
  ExpectEachOnceOnTime(recorder_, "pausable");
  for (absl::Time t : Occurrences(recorder_)) {
    // kSkipMissed (grace 50 ms): nothing missed during the pause ran.
    EXPECT_FALSE(t > paused_at + absl::Milliseconds(250) &&
                 t < resumed_at - absl::Milliseconds(100))
        << t << " ran though it came due while paused";
  }
}

TEST_P(RecurringLogicTest,
       OutageOfEverySchedulerThenEachMissedRunsOnceInOrder) {
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
  ExpectEachOnceOnTime(recorder_, "outage");
  ExpectContiguous(recorder_);
  std::vector<absl::Time> seen = Occurrences(recorder_);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << "overlapped";
}

TEST_P(RecurringLogicTest, UpdateReplacesTheWaitingOccurrence) {
  auto scheduler = Start(ShortHorizon("a"));
  ASSERT_NE(scheduler, nullptr);
  RecurringSchedule hourly =
      Every("changing", Overlap::kSkipWhileRunning, CatchUp::kRunOnce);
  hourly.every = absl::Hours(1);
  hourly.payload = "old";
  ASSERT_TRUE(scheduler->CreateSchedule(hourly).ok());
  EXPECT_EQ(CountInState(TaskState::kPending), 1);
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
  EXPECT_EQ(CountWaiting(), 0);
}

TEST_P(RecurringLogicTest, InvalidInputIsRefusedNamingTheField) {
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

TW_TWO_STORE_SUITE(RecurringLogicTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
