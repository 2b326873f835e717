// Copyright 2026 The timingwheel Authors.
//
// InsertCombiner: calls that arrive while a statement runs share the next
// one, and each call gets the answer it would have had alone. The running
// statement is held open by a gate, so every test reaches the window where
// calls queue behind it.

#include "durable/client/insert_combiner.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace durable_internal {
namespace {

InsertRow Row(const std::string& id) {
  InsertRow row;
  row.id = id;
  row.payload = "p";
  return row;
}

Inserter Owner(const std::string& node) {
  Inserter inserter;
  inserter.node_id = node;
  inserter.slot_count = 16;
  return inserter;
}

// A stand-in for the store: records each statement's ids; every row whose
// id starts with "mine" is returned in `mine`, with "same" in `identical`;
// a statement holding an id starting with "bad" fails with `failure`. The
// first statement waits for `Open()`.
class FakeRun {
 public:
  absl::StatusOr<InsertResult> operator()(const Inserter& inserter,
                                          absl::Span<const InsertRow> rows) {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<std::string> ids;
    for (const InsertRow& row : rows) ids.push_back(row.id);
    statements_.push_back(ids);
    nodes_.push_back(inserter.node_id);
    if (statements_.size() == 1) {
      cv_.wait(lock, [this] { return open_; });
    }
    InsertResult result;
    result.db_now_us = 42;
    for (const InsertRow& row : rows) {
      if (absl::StartsWith(row.id, "bad")) return failure_;
      WheelEntry e;
      e.id = row.id;
      if (absl::StartsWith(row.id, "mine")) result.mine.push_back(e);
      if (absl::StartsWith(row.id, "same")) result.identical.push_back(e);
    }
    return result;
  }

  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

  void set_failure(absl::Status status) { failure_ = status; }

  std::vector<std::vector<std::string>> statements() {
    std::lock_guard<std::mutex> lock(mu_);
    return statements_;
  }
  std::vector<std::string> nodes() {
    std::lock_guard<std::mutex> lock(mu_);
    return nodes_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  absl::Status failure_ = absl::AlreadyExistsError("exists");
  std::vector<std::vector<std::string>> statements_;
  std::vector<std::string> nodes_;
};

// Runs calls on threads: the first holds the statement open; the others
// are started once it runs and queue behind it.
class InsertCombinerTest : public ::testing::Test {
 protected:
  struct Answer {
    absl::StatusOr<InsertResult> result = absl::UnknownError("not run");
  };

  // Starts `calls` (node, ids) on threads, the first alone until its
  // statement is running, then waits until the others all queue, opens the
  // gate and joins them.
  std::vector<Answer> RunCalls(
      InsertCombiner& combiner,
      const std::vector<std::pair<std::string, std::vector<std::string>>>&
          calls) {
    std::vector<Answer> answers(calls.size());
    std::vector<std::vector<InsertRow>> rows(calls.size());
    std::vector<Inserter> inserters;
    for (size_t i = 0; i < calls.size(); ++i) {
      inserters.push_back(Owner(calls[i].first));
      for (const std::string& id : calls[i].second) rows[i].push_back(Row(id));
    }
    auto run = [this](const Inserter& inserter,
                      absl::Span<const InsertRow> batch) {
      return fake_(inserter, batch);
    };
    std::vector<std::thread> threads;
    auto start = [&](size_t i) {
      threads.emplace_back([&, i] {
        answers[i].result = combiner.Insert(inserters[i], rows[i], run);
      });
    };
    start(0);
    EXPECT_TRUE(WaitFor([&] { return fake_.statements().size() == 1; }));
    for (size_t i = 1; i < calls.size(); ++i) {
      start(i);  // Queued in this order: each after the one before.
      EXPECT_TRUE(WaitFor([&] { return combiner.waiting() == i; }));
    }
    fake_.Open();
    for (std::thread& t : threads) t.join();
    return answers;
  }

  // Polls `done` (the combiner's queue, not a timer) for at most 10 s.
  static bool WaitFor(const std::function<bool()>& done) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (!done()) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(1));
    }
    return true;
  }

  static std::vector<std::string> Ids(const std::vector<WheelEntry>& entries) {
    std::vector<std::string> ids;
    for (const WheelEntry& e : entries) ids.push_back(e.id);
    return ids;
  }

  FakeRun fake_;
};

TEST_F(InsertCombinerTest, CallsArrivingDuringAStatementShareTheNextOne) {
  InsertCombiner combiner;
  std::vector<Answer> answers =
      RunCalls(combiner, {{"n", {"mine-a"}},
                          {"n", {"mine-b1", "other-b2"}},
                          {"n", {"same-c"}},
                          {"n", {"other-d", "mine-d"}}});
  // The first alone, the three that queued behind it in one statement.
  auto statements = fake_.statements();
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_EQ(statements[1],
            (std::vector<std::string>{"mine-b1", "other-b2", "same-c",
                                      "other-d", "mine-d"}));
  // Each call sees only its own rows.
  for (const Answer& a : answers)
    ASSERT_TRUE(a.result.ok()) << a.result.status();
  EXPECT_EQ(Ids(answers[0].result->mine), (std::vector<std::string>{"mine-a"}));
  EXPECT_EQ(Ids(answers[1].result->mine),
            (std::vector<std::string>{"mine-b1"}));
  EXPECT_TRUE(answers[1].result->identical.empty());
  EXPECT_TRUE(answers[2].result->mine.empty());
  EXPECT_EQ(Ids(answers[2].result->identical),
            (std::vector<std::string>{"same-c"}));
  EXPECT_EQ(Ids(answers[3].result->mine), (std::vector<std::string>{"mine-d"}));
  for (const Answer& a : answers) EXPECT_EQ(a.result->db_now_us, 42);
}

TEST_F(InsertCombinerTest, AFailedSharedStatementRunsEachCallAlone) {
  InsertCombiner combiner;
  std::vector<Answer> answers = RunCalls(
      combiner,
      {{"n", {"mine-a"}}, {"n", {"mine-b"}}, {"n", {"bad-c"}}, {"n", {"d"}}});
  auto statements = fake_.statements();
  // First alone; the shared one fails; then b, c and d alone, in order.
  ASSERT_EQ(statements.size(), 5u);
  EXPECT_EQ(statements[1].size(), 3u);
  EXPECT_EQ(statements[2], (std::vector<std::string>{"mine-b"}));
  EXPECT_EQ(statements[3], (std::vector<std::string>{"bad-c"}));
  EXPECT_EQ(statements[4], (std::vector<std::string>{"d"}));
  EXPECT_TRUE(answers[0].result.ok());
  ASSERT_TRUE(answers[1].result.ok());
  EXPECT_EQ(Ids(answers[1].result->mine), (std::vector<std::string>{"mine-b"}));
  EXPECT_TRUE(absl::IsAlreadyExists(answers[2].result.status()))
      << answers[2].result.status();
  EXPECT_TRUE(answers[3].result.ok());
}

TEST_F(InsertCombinerTest, UnavailableReachesEveryCallOfTheGroupOnce) {
  fake_.set_failure(absl::UnavailableError("connection lost"));
  InsertCombiner combiner;
  std::vector<Answer> answers =
      RunCalls(combiner, {{"n", {"a"}}, {"n", {"bad-b"}}, {"n", {"c"}}});
  // Not repeated call by call: the shared statement may have committed.
  EXPECT_EQ(fake_.statements().size(), 2u);
  EXPECT_TRUE(answers[0].result.ok());
  EXPECT_TRUE(absl::IsUnavailable(answers[1].result.status()));
  EXPECT_TRUE(absl::IsUnavailable(answers[2].result.status()));
}

TEST_F(InsertCombinerTest, CallsOfAnotherInserterWaitForTheirOwnStatement) {
  InsertCombiner combiner;
  std::vector<Answer> answers = RunCalls(
      combiner, {{"n", {"a"}}, {"n", {"b"}}, {"other", {"c"}}, {"n", {"d"}}});
  auto statements = fake_.statements();
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[1], (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(statements[2], (std::vector<std::string>{"c"}));
  EXPECT_EQ(fake_.nodes()[2], "other");
  for (const Answer& a : answers) EXPECT_TRUE(a.result.ok());
}

TEST_F(InsertCombinerTest, AStatementCarriesAtMostMaxRows) {
  InsertCombiner combiner(/*max_rows=*/3);
  std::vector<Answer> answers =
      RunCalls(combiner, {{"n", {"a"}},
                          {"n", {"b1", "b2"}},
                          {"n", {"c1", "c2"}},
                          {"n", {"d"}},
                          {"n", {"e1", "e2", "e3", "e4"}}});
  auto statements = fake_.statements();
  // b (2 rows) and d (1) fill one statement; c, then the oversized e alone.
  ASSERT_EQ(statements.size(), 4u);
  EXPECT_EQ(statements[1], (std::vector<std::string>{"b1", "b2", "d"}));
  EXPECT_EQ(statements[2], (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(statements[3].size(), 4u);
  for (const Answer& a : answers) EXPECT_TRUE(a.result.ok());
}

}  // namespace
}  // namespace durable_internal
}  // namespace timingwheel
