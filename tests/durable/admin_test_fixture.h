// Copyright 2026 The timingwheel Authors.
//
// admin_test_fixture.h
// -----------------------------------------------------------------------------
//
// The fixture of the AdminStore tests (admin_store_test.cc, reads;
// admin_writes_test.cc, writes): a fresh database per test, a scheduler of
// one slot (so it owns every task) on a pool executor, and a handler whose
// answer depends on the id ("fail..." fails until healed, "block..." waits
// until released).

#ifndef TIMINGWHEEL_TESTS_DURABLE_ADMIN_TEST_FIXTURE_H_
#define TIMINGWHEEL_TESTS_DURABLE_ADMIN_TEST_FIXTURE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "timer/testing/pool_executor.h"

namespace timingwheel {
namespace durable_test {

inline ::testing::AssertionResult Ok(const absl::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status;
}

class AdminStoreTest : public durable_test::DurableFixture {
 protected:
  void SetUp() override {
    DurableFixture::SetUp();
    if (HasFatalFailure()) return;
    // Ids starting "fail" fail; "block" wait until released.
    recorder_.SetResult([this](const DurableTask& task) {
      if (absl::StartsWith(task.id, "fail") && !heal_) {
        return absl::InternalError("boom: it's \"broken\"");
      }
      if (absl::StartsWith(task.id, "block")) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, std::chrono::seconds(30), [&] { return released_; });
      }
      return absl::OkStatus();
    });
  }

  void TearDown() override {
    Release();
    if (scheduler_ != nullptr) scheduler_->Shutdown();
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  void StartScheduler() {
    DurableOptions options = Options("admin-node");
    options.horizon = absl::Minutes(30);
    options.retry.max_attempts = 1;
    options.executor = &pool_;
    scheduler_ = Start(options);
    ASSERT_NE(scheduler_, nullptr);
  }

  std::unique_ptr<AdminStore> Admin() {
    auto admin = AdminStore::Connect(db_->conninfo());
    EXPECT_TRUE(admin.ok()) << admin.status();
    return admin.ok() ? *std::move(admin) : nullptr;
  }

  TaskState StateOf(AdminStore& admin, const std::string& id) {
    auto d = admin.Show(id);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? d->state : TaskState::kPending;
  }

  bool WaitState(AdminStore& admin, const std::string& id, TaskState state) {
    return WaitFor([&] {
      auto d = admin.Show(id);
      return d.ok() && d->state == state;
    });
  }

  // One task in every state: "pending" (beyond the horizon), "scheduled"
  // (in the wheel), "block-running", "done" (SUCCESS), "fail-x" (FAILED).
  void MakeEveryState(AdminStore& admin) {
    StartScheduler();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(Ok(scheduler_->Schedule("pending", absl::Hours(2), "p")));
    ASSERT_TRUE(Ok(scheduler_->Schedule("scheduled", absl::Minutes(20), "s")));
    ASSERT_TRUE(scheduler_
                    ->Schedule("block-running", absl::ZeroDuration(),
                               std::string("r\0r", 3))
                    .ok());
    ASSERT_TRUE(Ok(scheduler_->Schedule("done", absl::ZeroDuration(), "d")));
    ASSERT_TRUE(
        Ok(scheduler_->Schedule("fail-x", absl::ZeroDuration(), "payload-f")));
    ASSERT_TRUE(WaitState(admin, "scheduled", TaskState::kScheduled));
    ASSERT_TRUE(WaitState(admin, "block-running", TaskState::kRunning));
    ASSERT_TRUE(WaitState(admin, "done", TaskState::kSuccess));
    ASSERT_TRUE(WaitState(admin, "fail-x", TaskState::kFailed));
    ASSERT_EQ(StateOf(admin, "pending"), TaskState::kPending);
  }

  timingwheel::testing::PoolExecutor pool_{4};  // Outlives scheduler_.
  std::unique_ptr<DurableScheduler> scheduler_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  std::atomic<bool> heal_{false};
};

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_ADMIN_TEST_FIXTURE_H_
