// Copyright 2026 The timingwheel Authors.
//
// The polling baseline must be correct for //benchmarks:durable_perf to
// mean anything: against a real PostgreSQL ($TIMINGWHEEL_PG, as
// `bash .ci/test` provides), every task runs once, never before its due
// time, and a batch claimed by a poller that stops responding is run by
// another after the lock expires, while the stalled poller's completion
// then matches nothing. Waits are bounded.

#include "benchmarks/baselines/polling_scheduler.h"

#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmarks/pg_bench_util.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace bench {
namespace {

std::string Admin() {
  const char* pg = std::getenv("TIMINGWHEEL_PG");
  return pg != nullptr ? pg : "";
}

struct Runs {
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> by_id;  // id -> nodes.
  int early = 0;
  void Add(const PolledTask& t, const std::string& node) {
    absl::Time now = absl::Now();
    std::lock_guard<std::mutex> lock(mu);
    by_id[t.id].push_back(node);
    if (now < t.due) ++early;
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu);
    return by_id.size();
  }
};

bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

int64_t QueryInt(const std::string& conninfo, const std::string& sql) {
  absl::StatusOr<PGconn*> conn = PgConnect(conninfo);
  if (!conn.ok()) return -1;
  absl::StatusOr<int64_t> v = PgQueryInt(*conn, sql);
  PQfinish(*conn);
  return v.ok() ? *v : -1;
}

TEST(PollingSchedulerTest, RunsEachTaskOnceAndNeverEarly) {
  ASSERT_FALSE(Admin().empty()) << "run through bash .ci/test (TIMINGWHEEL_PG)";
  auto db = BenchDatabase::Create(Admin(), "poll_test");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE(PollingScheduler::CreateSchema((*db)->conninfo()).ok());
  Runs runs;
  PollingOptions o;
  o.conninfo = (*db)->conninfo();
  o.node_id = "a";
  o.interval = absl::Milliseconds(50);
  o.batch = 64;  // Smaller than the burst: the claim repeats at once.
  o.handler = [&](const PolledTask& t) { runs.Add(t, "a"); };
  auto poller = PollingScheduler::Create(o);
  ASSERT_TRUE(poller.ok()) << poller.status();

  const absl::Time base = absl::Now() + absl::Milliseconds(300);
  std::vector<PollingScheduler::Request> batch;
  for (int i = 0; i < 200; ++i) {
    batch.push_back({absl::StrCat("b-", i), base + absl::Milliseconds(i * 2),
                     std::string(32, 'p')});
  }
  ASSERT_TRUE((*poller)->ScheduleBatch(batch).ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE((*poller)->Schedule(absl::StrCat("s-", i), base, "x").ok());
  }
  ASSERT_TRUE(
      WaitUntil([&] { return runs.Count() == 205; }, absl::Seconds(30)));
  ASSERT_TRUE(WaitUntil(
      [&] {
        return QueryInt((*db)->conninfo(),
                        "SELECT count(*) FROM poll_timer WHERE state = 2") ==
               205;
      },
      absl::Seconds(30)));
  (*poller)->Stop();
  std::lock_guard<std::mutex> lock(runs.mu);
  EXPECT_EQ(runs.early, 0);
  for (const auto& [id, nodes] : runs.by_id) EXPECT_EQ(nodes.size(), 1u) << id;
  EXPECT_GE((*poller)->Metrics().polls, 4);  // 205 rows in batches of 64.
}

TEST(PollingSchedulerTest, ExpiredLockIsRunByAnotherPoller) {
  ASSERT_FALSE(Admin().empty()) << "run through bash .ci/test (TIMINGWHEEL_PG)";
  auto db = BenchDatabase::Create(Admin(), "poll_test");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE(PollingScheduler::CreateSchema((*db)->conninfo()).ok());
  Runs runs;
  std::mutex gate_mu;
  std::condition_variable gate_cv;
  bool released = false;
  PollingOptions o;
  o.conninfo = (*db)->conninfo();
  o.interval = absl::Milliseconds(50);
  o.lock_ttl = absl::Milliseconds(500);
  o.node_id = "stalled";
  o.handler = [&](const PolledTask& t) {
    runs.Add(t, "stalled");
    std::unique_lock<std::mutex> lock(gate_mu);
    gate_cv.wait(lock, [&] { return released; });
  };
  auto stalled = PollingScheduler::Create(o);
  ASSERT_TRUE(stalled.ok());
  std::vector<PollingScheduler::Request> batch;
  for (int i = 0; i < 20; ++i) {
    batch.push_back({absl::StrCat("t-", i), absl::Now(), "x"});
  }
  ASSERT_TRUE((*stalled)->ScheduleBatch(batch).ok());
  // The stalled poller claims all 20 and blocks in the first handler.
  ASSERT_TRUE(WaitUntil(
      [&] {
        return QueryInt((*db)->conninfo(),
                        "SELECT count(*) FROM poll_timer WHERE state = 1 AND "
                        "owner = 'stalled'") == 20;
      },
      absl::Seconds(30)));
  o.node_id = "rescuer";
  o.handler = [&](const PolledTask& t) { runs.Add(t, "rescuer"); };
  auto rescuer = PollingScheduler::Create(o);
  ASSERT_TRUE(rescuer.ok());
  ASSERT_TRUE(WaitUntil(
      [&] {
        return QueryInt((*db)->conninfo(),
                        "SELECT count(*) FROM poll_timer WHERE state = 2 AND "
                        "owner = 'rescuer'") == 20;
      },
      absl::Seconds(30)));
  {
    std::lock_guard<std::mutex> lock(gate_mu);
    released = true;
  }
  gate_cv.notify_all();
  (*stalled)->Stop();  // Its completion statement must match nothing.
  (*rescuer)->Stop();
  EXPECT_EQ(QueryInt((*db)->conninfo(),
                     "SELECT count(*) FROM poll_timer WHERE state = 2 AND "
                     "owner = 'rescuer'"),
            20);
  std::lock_guard<std::mutex> lock(runs.mu);
  for (const auto& [id, nodes] : runs.by_id) {
    int rescued = 0;
    for (const std::string& n : nodes) rescued += n == "rescuer";
    EXPECT_EQ(rescued, 1) << id;
  }
}

}  // namespace
}  // namespace bench
}  // namespace timingwheel
