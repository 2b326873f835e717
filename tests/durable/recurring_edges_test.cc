// Copyright 2026 The timingwheel Authors.
//
// Where recurring schedules meet the rest, on both stores
// (two_store_fixture.h):
//   * A pause deletes an occurrence already due but not yet fired (held
//     in the fire queue: its kind is at its limit): the occurrence is not
//     accounted for, so the catch-up policy runs it at the resume.
//   * An update leaves an occurrence already due: it still runs.
//   * The last run reported is never a future occurrence written ahead, nor
//     a pause's instant: before the first occurrence, the creation.
//   * Every input of the schedule calls has a limit (recurring.h), refused
//     with InvalidArgument naming the field.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/recurring.h"
#include "gtest/gtest.h"
#include "tests/durable/test_util.h"
#include "tests/durable/two_store_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

class RecurringEdgesTest : public TwoStoreFixture {
 protected:
  // A scheduler with kind "k" limited to one attempt, whose handler holds
  // the task "blocker" at `gate_`, and a plain task "blocker" of kind "k"
  // running; then an hourly schedule of kind "k" whose first occurrence
  // (`occurrence_`) comes due 300 ms later and waits in the fire queue.
  std::unique_ptr<DurableScheduler> StartWithADueOccurrence() {
    DurableOptions options = Options("a");
    options.horizon = absl::Seconds(2);
    DurableHandler inner = recorder_.Handler();
    options.kinds = {TaskKind{"k",
                              [this, inner](const DurableTask& task) {
                                absl::Status status = inner(task);
                                if (task.id == "blocker") gate_.Wait();
                                return status;
                              },
                              1}};
    auto s = Start(options);
    if (s == nullptr) return nullptr;
    ScheduleRequest blocker;
    blocker.id = "blocker";
    blocker.payload = "p";
    blocker.kind = "k";
    EXPECT_TRUE(s->ScheduleBatch({&blocker, 1}).ok());
    EXPECT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
    // Whole microseconds, as the store keeps instants.
    occurrence_ = absl::FromUnixMicros(
        absl::ToUnixMicros(absl::Now() + absl::Milliseconds(300)));
    schedule_.name = "hourly";
    schedule_.every = absl::Hours(1);
    schedule_.anchor = occurrence_;
    schedule_.payload = "old";
    schedule_.kind = "k";
    schedule_.policy.catch_up = CatchUp::kRunOnce;
    schedule_.policy.overlap = Overlap::kSkipWhileRunning;
    EXPECT_TRUE(s->CreateSchedule(schedule_).ok());
    // Due, fired by the wheel, held: "k" has no room.
    EXPECT_TRUE(WaitFor([&] { return s->Metrics().waiting == 1; }))
        << s->Metrics().waiting << " waiting";
    return s;
  }

  // Whether the occurrence ran (once) within a bounded wait.
  bool OccurrenceRan() {
    return WaitFor(
        [&] {
          for (const Recorder::Call& c : recorder_.calls()) {
            if (c.task.schedule == "hourly" && c.task.occurrence == occurrence_)
              return true;
          }
          return false;
        },
        absl::Seconds(10));
  }

  Gate gate_;
  absl::Time occurrence_;
  RecurringSchedule schedule_;
};

TEST_P(RecurringEdgesTest, PauseOfADueOccurrenceLeavesItToTheCatchUp) {
  auto s = StartWithADueOccurrence();
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->PauseSchedule("hourly").ok());
  absl::StatusOr<ScheduleInfo> info = s->GetSchedule("hourly");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_LT(info->last_run, occurrence_)
      << "the deleted occurrence counts as accounted for";
  gate_.Open();
  ASSERT_TRUE(s->ResumeSchedule("hourly").ok());
  EXPECT_TRUE(OccurrenceRan()) << "no catch-up ran the deleted occurrence";
  EXPECT_EQ(recorder_.CountById().size(), 2u);  // blocker, the occurrence.
  for (const auto& [id, n] : recorder_.CountById()) EXPECT_EQ(n, 1) << id;
  s->Shutdown();
}

TEST_P(RecurringEdgesTest, UpdateLeavesAnOccurrenceAlreadyDue) {
  auto s = StartWithADueOccurrence();
  ASSERT_NE(s, nullptr);
  RecurringSchedule changed = schedule_;
  changed.payload = "new";
  ASSERT_TRUE(s->UpdateSchedule(changed).ok());
  gate_.Open();
  EXPECT_TRUE(OccurrenceRan()) << "the update deleted a due occurrence";
  for (const auto& [id, n] : recorder_.CountById()) EXPECT_EQ(n, 1) << id;
  s->Shutdown();
}

// ScheduleInfo::last_run (recurring.h): "the newest occurrence whose time
// has come ...; the creation instant before the first". An hourly
// schedule whose first occurrence is half an hour away (written ahead as a
// task), and one anchored 90 minutes ago (its occurrences before the
// creation never ran), report their creation, before and after a pause.
TEST_P(RecurringEdgesTest, LastRunIsNeverAheadNorAPause) {
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  const absl::Time now = absl::Now();
  RecurringSchedule ahead;
  ahead.name = "ahead";
  ahead.every = absl::Hours(1);
  ahead.anchor = now + absl::Minutes(30);
  ahead.payload = "p";
  RecurringSchedule behind = ahead;
  behind.name = "behind";
  behind.anchor = now - absl::Minutes(90);
  const absl::Time before = absl::Now() - absl::Milliseconds(1);
  ASSERT_TRUE(s->CreateSchedule(ahead).ok());
  ASSERT_TRUE(s->CreateSchedule(behind).ok());
  const absl::Time created = absl::Now() + absl::Milliseconds(1);
  for (const char* name : {"ahead", "behind"}) {
    absl::StatusOr<ScheduleInfo> info = s->GetSchedule(name);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_GE(info->last_run, before) << name;
    EXPECT_LE(info->last_run, created) << name << ": ahead of the creation";
    EXPECT_GT(info->next_run, now) << name;
  }
  // Apart from the creation on the clock, so that the pause's instant
  // shows if it is reported.
  absl::SleepFor(absl::Milliseconds(20));
  ASSERT_TRUE(s->PauseSchedule("ahead").ok());
  ASSERT_TRUE(s->PauseSchedule("behind").ok());
  absl::StatusOr<std::vector<ScheduleInfo>> all = s->ListSchedules();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  for (const ScheduleInfo& info : *all) {
    EXPECT_TRUE(info.paused);
    EXPECT_GE(info.last_run, before) << info.definition.name;
    EXPECT_LE(info.last_run, created)
        << info.definition.name << ": the pause's instant";
  }
  s->Shutdown();
}

TEST_P(RecurringEdgesTest, EveryInputHasALimitNamedWhenExceeded) {
  auto s = Start(Options("a"));
  ASSERT_NE(s, nullptr);
  RecurringSchedule good;
  good.name = "limits";
  good.every = absl::Hours(1);
  good.payload = "p";
  auto expect = [&](const RecurringSchedule& bad, const std::string& field) {
    absl::Status status = s->CreateSchedule(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << field << ": " << status;
    EXPECT_NE(status.message().find(field), std::string::npos) << status;
    status = s->UpdateSchedule(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << field << ": " << status;
  };
  RecurringSchedule bad = good;
  bad.name = std::string(kMaxScheduleNameBytes + 1, 'n');
  expect(bad, "name");
  bad = good;
  bad.every = absl::ZeroDuration();
  bad.cron = std::string(kMaxCronBytes + 1, '*');
  expect(bad, "cron");
  bad.cron = "* * * * *";
  bad.time_zone = std::string(kMaxTimeZoneBytes + 1, 'z');
  expect(bad, "time_zone");
  bad.time_zone = "Mars/Olympus_Mons";  // Short, but no such zone.
  expect(bad, "`time_zone`");
  bad = good;
  bad.every = kMaxScheduleInterval + absl::Microseconds(1);
  expect(bad, "every");
  bad.every = absl::InfiniteDuration();
  expect(bad, "every");
  bad.every = kMinScheduleInterval - absl::Microseconds(1);
  expect(bad, "every");
  bad = good;
  bad.anchor = kMaxScheduleAnchor + absl::Seconds(1);
  expect(bad, "anchor");
  bad.anchor = absl::InfiniteFuture();
  expect(bad, "anchor");
  bad = good;
  bad.policy.grace = RecurrencePolicy::kMaxGrace + absl::Microseconds(1);
  expect(bad, "grace");
  bad = good;
  bad.policy.max_runs = RecurrencePolicy::kMaxRunsLimit + 1;
  expect(bad, "max_runs");
  // At the limits: accepted.
  RecurringSchedule edge = good;
  edge.name = std::string(kMaxScheduleNameBytes, 'e');
  edge.every = kMaxScheduleInterval;
  edge.anchor = kMaxScheduleAnchor;
  edge.policy.grace = RecurrencePolicy::kMaxGrace;
  edge.policy.catch_up = CatchUp::kSkipMissed;
  EXPECT_TRUE(s->CreateSchedule(edge).ok()) << s->CreateSchedule(edge);
  RecurringSchedule fastest = good;
  fastest.name = "fastest";
  fastest.every = kMinScheduleInterval;
  EXPECT_TRUE(s->CreateSchedule(fastest).ok());
  EXPECT_TRUE(s->DeleteSchedule("fastest").ok());
  // The calls by name check the name before any statement.
  const std::string long_name(kMaxScheduleNameBytes + 1, 'n');
  for (const std::string& name : {std::string(), long_name}) {
    EXPECT_TRUE(absl::IsInvalidArgument(s->PauseSchedule(name)));
    EXPECT_TRUE(absl::IsInvalidArgument(s->ResumeSchedule(name)));
    EXPECT_TRUE(absl::IsInvalidArgument(s->DeleteSchedule(name).status()));
    absl::Status get = s->GetSchedule(name).status();
    EXPECT_TRUE(absl::IsInvalidArgument(get)) << get;
    EXPECT_NE(get.message().find("name"), std::string::npos) << get;
  }
  s->Shutdown();
}

TW_TWO_STORE_SUITE(RecurringEdgesTest);

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
