// Copyright 2026 The timingwheel Authors.
//
// An operator's retry of a FAILED occurrence of a schedule that does not
// overlap runs (Overlap::kSkipWhileRunning): the next occurrence was
// written when it failed, so a retry would run beside it. The retry is
// refused while a later occurrence waits or runs; paused, the schedule
// lets it run and resumes after it, without overlap.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/recurring.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/statement_gate.h"
#include "gtest/gtest.h"
#include "tests/durable/admin_test_fixture.h"

namespace timingwheel {
namespace durable_test {
namespace {

using RecurringRetryTest = AdminStoreTest;

TEST_F(RecurringRetryTest, RetryOfAFailedOccurrenceNeverOverlapsTheNext) {
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  // The first occurrence's instant (set once the scheduler runs).
  std::atomic<int64_t> first_us{0};
  // The first run of each occurrence fails (one attempt allowed); a run of
  // an occurrence retried waits at `gate` and records whether another
  // occurrence ran meanwhile.
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> running{0}, most_running{0}, runs{0};
  recorder_.SetResult([&](const DurableTask& task) {
    const int now = ++running;
    int seen = most_running.load();
    while (now > seen && !most_running.compare_exchange_weak(seen, now)) {
    }
    const bool retried =
        absl::ToUnixMicros(task.occurrence) == first_us.load() && ++runs > 1;
    if (retried) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::seconds(20), [&] { return open; });
    }
    --running;
    return retried ? absl::OkStatus() : absl::InternalError("first run fails");
  });
  StartScheduler();
  if (HasFatalFailure()) return;
  const absl::Time anchor = absl::Now() + absl::Milliseconds(300);
  first_us = absl::ToUnixMicros(anchor);
  const std::string first_id =
      durable_internal::OccurrenceId("nightly", first_us.load());
  RecurringSchedule s;
  s.name = "nightly";
  s.every = absl::Seconds(2);
  s.anchor = anchor;
  s.payload = "p";
  s.policy.overlap = Overlap::kSkipWhileRunning;
  s.policy.catch_up = CatchUp::kRunOnce;
  ASSERT_TRUE(scheduler_->CreateSchedule(s).ok());
  ASSERT_TRUE(
      WaitFor([&] { return StateOf(*admin, first_id) == TaskState::kFailed; }));
  // Its failure wrote the next occurrence: a retry now would overlap it.
  auto refused = admin->Retry(first_id);
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->outcome, ActionOutcome::kWrongState) << refused->message;
  EXPECT_NE(refused->message.find("pause"), std::string::npos)
      << refused->message;
  if (refused->outcome == ActionOutcome::kDone) {
    // Retried anyway: the next occurrence (due 2 s after the first) must
    // not start while the retried run is held.
    EXPECT_FALSE(
        WaitFor([&] { return most_running.load() > 1; }, absl::Seconds(4)))
        << "the retried occurrence ran beside the next one";
  }
  // The way through: pause, retry, resume.
  ASSERT_TRUE(scheduler_->PauseSchedule("nightly").ok());
  ASSERT_TRUE(WaitFor([&] { return running.load() == 0; }));
  // No later occurrence is stored now; the retry still holds the
  // schedule's row until it commits, so no advance writes one beside it.
  auto gate = durable_testing::StatementGate::Install(
      db_->conninfo(), "tw_timer", "UPDATE", "/* admin retry */",
      durable_testing::StatementGate::When::kAfterWrite);
  ASSERT_TRUE(gate.ok()) << gate.status();
  absl::StatusOr<ActionResult> retried = absl::UnknownError("not run");
  std::thread retry([&] { retried = admin->Retry(first_id); });
  const bool blocked = (*gate)->WaitBlocked(absl::Seconds(20));
  const absl::Status advance = durable_testing::ExecSql(
      db_->conninfo(),
      "SELECT 1 FROM tw_schedule WHERE name = 'nightly' FOR UPDATE NOWAIT");
  (*gate)->Release();
  retry.join();
  (*gate).reset();
  ASSERT_TRUE(blocked);
  EXPECT_FALSE(advance.ok())
      << "the schedule's row was not locked while the retry ran";
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->outcome, ActionOutcome::kDone) << retried->message;
  ASSERT_TRUE(WaitFor([&] { return runs.load() >= 2; }));
  ASSERT_TRUE(scheduler_->ResumeSchedule("nightly").ok());
  // Resumed while the retried run is held: nothing overlaps it.
  EXPECT_FALSE(
      WaitFor([&] { return most_running.load() > 1; }, absl::Seconds(3)))
      << "an occurrence ran beside the retried one";
  {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
  ASSERT_TRUE(Succeeded(first_id));
  EXPECT_EQ(most_running.load(), 1);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
