// Copyright 2026 The timingwheel Authors.
//
// A scheduler's two outcome writers write start marks and completions of
// the same rows at once, on two connections. Against a real PostgreSQL,
// with a gate that holds one statement after it took its snapshot and
// before it read a row while the other commits:
//   * a start mark committed during a completion must not make the
//     completion miss its row (the outcome would be dropped and the task
//     run again after a requeue);
//   * a start mark held while the completion commits writes nothing (the
//     row stays finished).

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "durable/sql/store.h"
#include "durable/testing/statement_gate.h"
#include "gtest/gtest.h"
#include "tests/durable/two_stores_fixture.h"

namespace timingwheel {
namespace durable_internal {
namespace {

using durable_testing::StatementGate;

// Substrings of the completion's and the start mark's texts only.
constexpr char kCompletionSql[] = "snoozes_replaced";
constexpr char kMarkSql[] = "UPDATE tw_timer t SET attempt = m.attempt";
constexpr int64_t kTtlUs = 10'000'000;
constexpr int64_t kHorizonUs = 3'600'000'000;

// a_ writes completions, b_ start marks, as the two outcome writers do.
class StoreOutcomeWritersTest : public TwoStoresTest {
 protected:
  // `id` inserted due now, claimed and fired by node-a: RUNNING, its
  // attempt not yet marked started.
  void Fired(const std::string& id, Started* started) {
    ASSERT_NO_FATAL_FAILURE(InsertDue(id));
    auto slots = a_->Acquire("node-a", kSlots, kTtlUs, 3, kHorizonUs);
    ASSERT_TRUE(slots.ok()) << slots.status();
    auto claimed = a_->ClaimDue("node-a", *slots, kHorizonUs, 100, 3);
    ASSERT_TRUE(claimed.ok()) << claimed.status();
    auto fired = a_->StartRunning("node-a", claimed->tasks);
    ASSERT_TRUE(fired.ok()) << fired.status();
    ASSERT_EQ(fired->started.size(), 1u);
    *started = fired->started[0];
  }

  static Completion Succeeded(const Started& s) {
    Completion c;
    c.id = s.task.id;
    c.version = s.version;
    c.attempt = s.task.attempt;
    c.slot = s.slot;
    c.outcome = Outcome::kSuccess;
    c.started_us = s.started_us;
    return c;
  }

  static StartMark Mark(const Started& s) {
    return StartMark{s.task.id, s.version, s.task.attempt};
  }
};

TEST_F(StoreOutcomeWritersTest,
       AMarkCommittedDuringACompletionKeepsTheOutcome) {
  Started started;
  ASSERT_NO_FATAL_FAILURE(Fired("t", &started));
  auto gate = StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE",
                                     kCompletionSql);
  ASSERT_TRUE(gate.ok()) << gate.status();
  const Completion completion = Succeeded(started);
  absl::StatusOr<CompleteResult> completed;
  std::thread writer([&] {
    completed =
        a_->Complete({&completion, 1}, kHorizonUs, AttemptLog{"node-a", true});
  });
  const bool held = (*gate)->WaitBlocked(absl::Seconds(10));
  // The completion has its snapshot and has locked nothing: the mark
  // commits a newer version of the row it will update.
  absl::StatusOr<int64_t> marked = absl::UnknownError("not run");
  if (held) {
    const StartMark mark = Mark(started);
    marked = b_->MarkStarted({&mark, 1});
  }
  (*gate)->Release();
  writer.join();
  ASSERT_TRUE(held) << "the completion never reached the gate";
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 1);
  ASSERT_TRUE(completed.ok()) << completed.status();
  EXPECT_EQ(completed->written, 1)
      << "the completion missed a row a start mark wrote after its snapshot";
  auto row = Inspect().Task("t");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->state, TaskState::kSuccess);
  EXPECT_EQ(row->attempt, started.task.attempt);
}

TEST_F(StoreOutcomeWritersTest,
       AMarkHeldWhileTheCompletionCommitsWritesNothing) {
  Started started;
  ASSERT_NO_FATAL_FAILURE(Fired("t", &started));
  auto gate =
      StatementGate::Install(db_->conninfo(), "tw_timer", "UPDATE", kMarkSql);
  ASSERT_TRUE(gate.ok()) << gate.status();
  const StartMark mark = Mark(started);
  absl::StatusOr<int64_t> marked;
  std::thread writer([&] { marked = b_->MarkStarted({&mark, 1}); });
  const bool held = (*gate)->WaitBlocked(absl::Seconds(10));
  absl::StatusOr<CompleteResult> completed = absl::UnknownError("not run");
  if (held) {
    const Completion completion = Succeeded(started);
    completed =
        a_->Complete({&completion, 1}, kHorizonUs, AttemptLog{"node-a", true});
  }
  (*gate)->Release();
  writer.join();
  ASSERT_TRUE(held) << "the start mark never reached the gate";
  ASSERT_TRUE(completed.ok()) << completed.status();
  EXPECT_EQ(completed->written, 1);
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 0) << "a start mark wrote a finished row";
  auto row = Inspect().Task("t");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->state, TaskState::kSuccess);
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
