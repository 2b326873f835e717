// Copyright 2026 The timingwheel Authors.
//
// ScheduleOrReplace() racing a first insert of the same id, on a real
// PostgreSQL, forced on every run: the first call's statement is held by a
// gate after it wrote its row (uncommitted), the second call's statement
// starts then (so its snapshot does not see the row) and waits on that row
// in its insert's conflict arm; the gate then lets the first commit. Each
// mode's rule must hold on the final due time, and each caller must be told
// what happened to its request.

#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/testing/statement_gate.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::StatementGate;

class ReplaceRaceTest : public DurableFixture {
 protected:
  std::unique_ptr<DurableClient> Client() {
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 1;
    auto client = DurableClient::Create(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  struct Result {
    absl::StatusOr<ScheduleOutcome> first = absl::UnknownError("not run");
    absl::StatusOr<ScheduleOutcome> second = absl::UnknownError("not run");
    int64_t due_us = -1;
    std::string payload;
  };

  // Schedules "t" due `first_due` (payload "first") and, while that insert
  // is written but not committed, due `second_due` (payload "second"),
  // both with `mode`. Fails the test when the window was not hit.
  Result Race(ReplaceMode mode, absl::Time first_due, absl::Time second_due) {
    Result result;
    auto first_client = Client();
    auto second_client = Client();
    if (first_client == nullptr || second_client == nullptr) return result;
    auto gate =
        StatementGate::Install(db_->conninfo(), "tw_timer", "INSERT",
                               "prior AS (", StatementGate::When::kAfterWrite);
    EXPECT_TRUE(gate.ok()) << gate.status();
    if (!gate.ok()) return result;
    std::thread first([&] {
      result.first =
          first_client->ScheduleOrReplace(At(first_due, "first"), mode);
    });
    const bool held = (*gate)->WaitBlocked(absl::Seconds(20));
    std::thread second([&] {
      result.second =
          second_client->ScheduleOrReplace(At(second_due, "second"), mode);
    });
    // The second statement waits on the first's uncommitted row (a
    // transaction id), not on the gate (an advisory lock).
    const bool second_waits =
        held && WaitFor([&] {
          return Query(
                     "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                     "current_database() AND wait_event = 'transactionid' AND "
                     "position('prior AS (' IN query) > 0") == 1;
        });
    (*gate)->Release();
    first.join();
    second.join();
    EXPECT_TRUE(held) << "the first insert never reached the gate";
    EXPECT_TRUE(second_waits)
        << "the second call never waited on the first's row";
    auto task = Store().Task("t");
    EXPECT_TRUE(task.ok()) << task.status();
    if (task.ok()) {
      result.due_us = task->due_us;
      result.payload = task->payload;
    }
    return result;
  }

  static ScheduleRequest At(absl::Time due, const std::string& payload) {
    ScheduleRequest request;
    request.id = "t";
    request.due = due;
    request.payload = payload;
    return request;
  }
};

absl::Time InHours(int hours) {
  return absl::FromUnixMicros(absl::ToUnixMicros(absl::Now())) +
         absl::Hours(hours);
}

TEST_F(ReplaceRaceTest, KeepEarlierKeepsTheEarlierOfTwoFirstInserts) {
  const absl::Time one = InHours(1), two = InHours(2);
  Result r = Race(ReplaceMode::kKeepEarlier, one, two);
  ASSERT_TRUE(r.first.ok()) << r.first.status();
  ASSERT_TRUE(r.second.ok()) << r.second.status();
  EXPECT_EQ(*r.first, ScheduleOutcome::kScheduled);
  EXPECT_EQ(*r.second, ScheduleOutcome::kKept);
  EXPECT_EQ(r.due_us, absl::ToUnixMicros(one));
  EXPECT_EQ(r.payload, "first");
}

TEST_F(ReplaceRaceTest, KeepEarlierTakesAnEarlierSecondInsert) {
  const absl::Time one = InHours(1), two = InHours(2);
  Result r = Race(ReplaceMode::kKeepEarlier, two, one);
  ASSERT_TRUE(r.first.ok()) << r.first.status();
  ASSERT_TRUE(r.second.ok()) << r.second.status();
  EXPECT_EQ(*r.first, ScheduleOutcome::kScheduled);
  EXPECT_EQ(*r.second, ScheduleOutcome::kReplaced);
  EXPECT_EQ(r.due_us, absl::ToUnixMicros(one));
  EXPECT_EQ(r.payload, "second");
}

TEST_F(ReplaceRaceTest, KeepLaterKeepsTheLaterOfTwoFirstInserts) {
  const absl::Time one = InHours(1), two = InHours(2);
  Result r = Race(ReplaceMode::kKeepLater, two, one);
  ASSERT_TRUE(r.first.ok()) << r.first.status();
  ASSERT_TRUE(r.second.ok()) << r.second.status();
  EXPECT_EQ(*r.first, ScheduleOutcome::kScheduled);
  EXPECT_EQ(*r.second, ScheduleOutcome::kKept);
  EXPECT_EQ(r.due_us, absl::ToUnixMicros(two));
  EXPECT_EQ(r.payload, "first");
}

TEST_F(ReplaceRaceTest, KeepLaterTakesALaterSecondInsert) {
  const absl::Time one = InHours(1), two = InHours(2);
  Result r = Race(ReplaceMode::kKeepLater, one, two);
  ASSERT_TRUE(r.first.ok()) << r.first.status();
  ASSERT_TRUE(r.second.ok()) << r.second.status();
  EXPECT_EQ(*r.first, ScheduleOutcome::kScheduled);
  EXPECT_EQ(*r.second, ScheduleOutcome::kReplaced);
  EXPECT_EQ(r.due_us, absl::ToUnixMicros(two));
  EXPECT_EQ(r.payload, "second");
}

TEST_F(ReplaceRaceTest, ReplaceTakesTheSecondAndSaysSo) {
  const absl::Time one = InHours(1), two = InHours(2);
  Result r = Race(ReplaceMode::kReplace, two, one);
  ASSERT_TRUE(r.first.ok()) << r.first.status();
  ASSERT_TRUE(r.second.ok()) << r.second.status();
  EXPECT_EQ(*r.first, ScheduleOutcome::kScheduled);
  EXPECT_EQ(*r.second, ScheduleOutcome::kReplaced);
  EXPECT_EQ(r.due_us, absl::ToUnixMicros(one));
  EXPECT_EQ(r.payload, "second");
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
