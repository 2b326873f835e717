// Copyright 2026 The timingwheel Authors.
//
// Scheduler processes whose own clocks are wrong: 10 minutes and 1 hour
// ahead and behind, and clocks that jump while tasks wait in the wheel. The
// database's clock is the only authority: nothing fires early against it, no
// slot is taken while its lease is valid, no SUCCESS task runs again, and a
// constant offset makes nothing late either (due times are converted by
// differences on the process's own clock).

#include <signal.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::TaskMatch;

constexpr int kTtlMs = 1000;

class FaultClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    db_ = FaultDb::Create(&error);
    ASSERT_NE(db_, nullptr) << error;
  }

  // Starts one process per flag set, waits until they share the 64 slots,
  // schedules `tasks` due over the next 3 s, calls `meanwhile` (with the
  // processes) once the first has succeeded, and checks the run.
  void RunSkewed(const std::vector<std::vector<std::string>>& flags, int tasks,
                 absl::Duration max_lateness,
                 const std::function<
                     void(std::vector<std::unique_ptr<SchedulerProcess>>&)>&
                     meanwhile = nullptr) {
    std::vector<std::unique_ptr<SchedulerProcess>> procs;
    for (size_t i = 0; i < flags.size(); ++i) {
      procs.push_back(std::make_unique<SchedulerProcess>());
      ASSERT_TRUE(procs.back()->Start(
          db_->conninfo(), absl::StrCat("skewed-", i), kTtlMs, flags[i]));
      if (i == 0) {
        ASSERT_TRUE(WaitFor([&] { return db_->SlotsOf("skewed-0") == 64; }));
        ASSERT_TRUE(db_->WatchLeases());
      }
    }
    const int64_t share = (64 + flags.size() - 1) / flags.size();
    ASSERT_TRUE(WaitFor([&] {
      for (size_t i = 0; i < flags.size(); ++i) {
        const int64_t n = db_->SlotsOf(absl::StrCat("skewed-", i));
        if (n < share - static_cast<int64_t>(flags.size()) || n > share) {
          return false;
        }
      }
      return true;
    })) << "the skewed processes never shared the slots";
    ASSERT_TRUE(db_->ScheduleTasks("c-", tasks, absl::Milliseconds(300),
                                   absl::Milliseconds(3000) / tasks));
    if (meanwhile) {
      ASSERT_TRUE(WaitFor([&] {
        return db_->CountTasks(TaskMatch().State(TaskState::kSuccess)) > 0;
      }));
      meanwhile(procs);
    }
    ASSERT_TRUE(WaitFor([&] {
      return db_->CountTasks(TaskMatch().State(TaskState::kSuccess)) == tasks;
    })) << db_->CountTasks(TaskMatch().State(TaskState::kSuccess))
        << " of " << tasks << " SUCCESS";
    // Every process keeps running a while after the last SUCCESS: a task
    // that succeeded must not run again.
    absl::SleepFor(absl::Milliseconds(2 * kTtlMs));
    std::map<std::string, int> runs = db_->RunsById();
    ASSERT_EQ(runs.size(), static_cast<size_t>(tasks));
    for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id << " ran " << n;
    EXPECT_EQ(db_->RunsBeforeDue(), 0)
        << "a task ran before it was due on the database's clock";
    EXPECT_EQ(db_->EarlyTakeovers(), 0)
        << "a slot was taken before its lease ran out";
    const int64_t max_late_us = db_->LatenessUs(1.0);
    const int64_t p99_late_us = db_->LatenessUs(0.99);
    std::printf("%zu processes, %d tasks: lateness p99 %.1f ms, max %.1f ms\n",
                flags.size(), tasks, p99_late_us / 1000.0,
                max_late_us / 1000.0);
    EXPECT_LT(max_late_us, absl::ToInt64Microseconds(max_lateness));
    for (auto& p : procs) EXPECT_TRUE(p->Terminate());
    procs_ = std::move(procs);
  }

  std::vector<std::unique_ptr<SchedulerProcess>> procs_;  // Exited.

  std::unique_ptr<FaultDb> db_;
};

// Constant offsets change nothing: not early, and not late beyond the
// wake-up and a round trip (slack for a loaded, sanitized machine).
TEST_F(FaultClockTest, ClocksAheadAndBehindFireOnTheDatabasesTime) {
  RunSkewed({{"--clock_offset_ms=600000"},
             {"--clock_offset_ms=-600000"},
             {"--clock_offset_ms=3600000"},
             {"--clock_offset_ms=-3600000"}},
            200, absl::Seconds(2));
}

// Clocks that jump while tasks wait in the wheels (SIGUSR1 after the first
// SUCCESS). An hour ahead: the wheel fires its tasks at once, the database
// answers "not due" (counted), and they are re-armed from the database's
// clock: none early, none late by the jump. Back: the tasks waiting in that
// wheel are late by the jump (the wheel trusts its monotonic clock; the
// database only guards against early), so the backward jump here is 2 s:
// late by at most that, never early.
TEST_F(FaultClockTest, ClocksThatJumpNeverFireEarly) {
  RunSkewed({{"--clock_jump_ms=3600000"}, {"--clock_jump_ms=-2000"}}, 100,
            absl::Seconds(4), [](auto& procs) {
              for (auto& p : procs) ASSERT_TRUE(p->Signal(SIGUSR1));
            });
  ASSERT_EQ(procs_.size(), 2u);
  EXPECT_GT(procs_[0]->Metric("not_due"), 0)
      << "the clock that jumped ahead never fired early locally";
  EXPECT_EQ(procs_[1]->Metric("not_due"), 0);
}

}  // namespace
}  // namespace timingwheel
