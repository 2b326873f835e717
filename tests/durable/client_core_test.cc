// Copyright 2026 The timingwheel Authors.
//
// ClientCore over the in-memory store: what a committed insert does after
// its statement (the `after` callback, the wake-ups) does not hold the
// connection, so the next calls' statement runs meanwhile; and Close()
// waits for it. The first call's callback is held open by a gate, so the
// window is reached every run.

#include "durable/client/client_core.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/testing/fake_database.h"
#include "durable/testing/fake_store.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// A gate that one thread waits at until another opens it.
class Gate {
 public:
  void Arrive() {
    std::unique_lock<std::mutex> lock(mu_);
    arrived_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  bool WaitArrived(absl::Duration limit) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, absl::ToChronoNanoseconds(limit),
                        [this] { return arrived_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool arrived_ = false;
  bool open_ = false;
};

Inserter Producer() {
  Inserter inserter;
  inserter.node_id = "producer";
  inserter.slot_count = 16;
  return inserter;
}

std::unique_ptr<ClientCore> CoreOverFake() {
  ClientCore::Options options;
  options.slot_count = 16;
  auto db = std::make_shared<durable_testing::FakeDatabase>();
  absl::StatusOr<std::unique_ptr<ClientCore>> core = ClientCore::CreateOver(
      std::move(options), std::make_unique<durable_testing::FakeStore>(db));
  EXPECT_TRUE(core.ok()) << core.status();
  return core.ok() ? *std::move(core) : nullptr;
}

TEST(ClientCoreTest, AnInsertsCallbackDoesNotHoldTheConnectionFromTheNext) {
  std::unique_ptr<ClientCore> core = CoreOverFake();
  ASSERT_NE(core, nullptr);
  const Inserter inserter = Producer();
  Gate gate;
  std::thread first([&] {
    const ScheduleRequest request = RequestAfter("first", absl::Hours(1), "p");
    absl::StatusOr<InsertResult> inserted =
        core->Insert({&request, 1}, inserter, [&](const InsertResult&) {
          gate.Arrive();  // Committed; held here until the second is done.
          return std::vector<WheelEntry>();
        });
    EXPECT_TRUE(inserted.ok()) << inserted.status();
  });
  ASSERT_TRUE(gate.WaitArrived(absl::Seconds(30)));

  // The second insert runs its statement while the first's callback is
  // held: it returns on its own (bounded wait), not when the gate opens.
  std::mutex mu;
  std::condition_variable cv;
  bool second_done = false;
  absl::Status second_status = absl::UnknownError("not run");
  std::thread second([&] {
    const ScheduleRequest request = RequestAfter("second", absl::Hours(1), "p");
    absl::StatusOr<InsertResult> inserted =
        core->Insert({&request, 1}, inserter, nullptr);
    std::lock_guard<std::mutex> lock(mu);
    second_status = inserted.status();
    second_done = true;
    cv.notify_all();
  });
  bool returned;
  {
    std::unique_lock<std::mutex> lock(mu);
    returned = cv.wait_for(lock, std::chrono::seconds(10),
                           [&] { return second_done; });
  }
  EXPECT_TRUE(returned)
      << "the second insert waited for the first insert's callback";
  gate.Open();
  first.join();
  second.join();
  EXPECT_TRUE(second_status.ok()) << second_status;
  core->Close();
}

TEST(ClientCoreTest, CloseWaitsForAnInsertInFlightToFinishItsCallback) {
  std::unique_ptr<ClientCore> core = CoreOverFake();
  ASSERT_NE(core, nullptr);
  const Inserter inserter = Producer();
  Gate gate;
  std::thread insert([&] {
    const ScheduleRequest request = RequestAfter("only", absl::Hours(1), "p");
    absl::StatusOr<InsertResult> inserted =
        core->Insert({&request, 1}, inserter, [&](const InsertResult&) {
          gate.Arrive();  // Committed; held here while Close() is called.
          return std::vector<WheelEntry>();
        });
    EXPECT_TRUE(inserted.ok()) << inserted.status();
  });
  ASSERT_TRUE(gate.WaitArrived(absl::Seconds(30)));

  std::mutex mu;
  std::condition_variable cv;
  bool closed = false;
  std::thread closer([&] {
    core->Close();
    std::lock_guard<std::mutex> lock(mu);
    closed = true;
    cv.notify_all();
  });
  {
    // A Close() that did not wait would return at once; this one must
    // still be waiting after a while.
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_FALSE(cv.wait_for(lock, std::chrono::milliseconds(300), [&] {
      return closed;
    })) << "Close() returned while an insert's callback was running";
  }
  gate.Open();
  insert.join();
  {
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] {
      return closed;
    })) << "Close() did not return once the insert finished";
  }
  closer.join();
  const ScheduleRequest late = RequestAfter("late", absl::Hours(1), "p");
  EXPECT_TRUE(absl::IsFailedPrecondition(
      core->Insert({&late, 1}, inserter, nullptr).status()));
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
