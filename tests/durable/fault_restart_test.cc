// Copyright 2026 The timingwheel Authors.
//
// Many timers spread over three days, and a restart of every scheduler
// process (all three killed with SIGKILL, three new ones started): after the
// restart every timer is there and claimed into a wheel (the horizon here is
// the whole three days, so that every timer is held in memory), and the
// ones due during the test run once, none early. Prints the insert and load
// rates and the resident memory per timer held in a wheel.
//
// 100,000 timers by default (the suite; 30,000 under the sanitizers);
// $TIMINGWHEEL_FAULT_TIMERS sets another count (the durable-faults-long CI
// job runs 1,000,000 with -c opt). Exclusive: it loads the machine.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::IsKilled;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;

// Longer than the slowest statement here: taking over a slot re-stamps its
// rows and the first loads claim tens of thousands of rows, each statement
// taking up to ~1 s on a loaded 2-core machine; with a 1 s TTL the leases
// ran out while those ran, and the slots went round in circles.
constexpr int kDefaultTtlMs = 5000;
constexpr int kProcesses = 3;
constexpr int kSoon = 100;  // Due during the test.

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kDefaultTimers = 30000;  // Sanitizers: 3-10x slower.
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr int kDefaultTimers = 30000;
#else
constexpr int kDefaultTimers = 100000;
#endif
#else
constexpr int kDefaultTimers = 100000;
#endif

// $TIMINGWHEEL_FAULT_TTL_MS sets another lease TTL (the 10^6 run needs a
// longer one, for the same reason).
int TtlMs() {
  const char* value = std::getenv("TIMINGWHEEL_FAULT_TTL_MS");
  int n = value != nullptr ? std::atoi(value) : 0;
  return n >= 100 ? n : kDefaultTtlMs;
}

int TimerCount() {
  const char* value = std::getenv("TIMINGWHEEL_FAULT_TIMERS");
  int n = value != nullptr ? std::atoi(value) : 0;
  return n > kSoon ? n : kDefaultTimers;
}

TEST(FaultRestartTest, EveryTimerSurvivesARestartOfEveryProcess) {
  const int total = TimerCount();
  const int ttl_ms = TtlMs();
  const int far = total - kSoon;
  std::string error;
  std::unique_ptr<FaultDb> db = FaultDb::Create(&error);
  ASSERT_NE(db, nullptr) << error;
  // The horizon covers the three days: every timer is held in a wheel.
  const std::vector<std::string> flags = {
      absl::StrCat("--horizon_ms=", (72 + 1) * 3600 * 1000LL),
      "--max_in_flight=64"};
  auto start_all = [&](std::vector<std::unique_ptr<SchedulerProcess>>& procs) {
    for (int i = 0; i < kProcesses; ++i) {
      procs.push_back(std::make_unique<SchedulerProcess>());
      ASSERT_TRUE(procs.back()->Start(db->conninfo(), absl::StrCat("node-", i),
                                      ttl_ms, flags));
      if (i == 0) {
        ASSERT_TRUE(WaitFor([&] { return db->SlotsOf("node-0") > 0; }));
      }
    }
  };
  std::vector<std::unique_ptr<SchedulerProcess>> before;
  ASSERT_NO_FATAL_FAILURE(start_all(before));
  ASSERT_TRUE(WaitFor([&] {
    return db->Query("SELECT count(DISTINCT owner) FROM tw_slot_lease") ==
           kProcesses;
  }));
  int64_t rss_empty = 0;
  for (auto& p : before) rss_empty += p->RssBytes();

  // Far timers over three days (from an hour on: none comes due during the
  // test), then the ones due 3 s to 6 s from now.
  const absl::Time insert_start = absl::Now();
  ASSERT_TRUE(
      db->ScheduleTasks("far-", far, absl::Hours(1), absl::Hours(72) / far));
  const absl::Duration insert_time = absl::Now() - insert_start;
  ASSERT_TRUE(db->ScheduleTasks("soon-", kSoon, absl::Seconds(3),
                                absl::Milliseconds(30)));
  ASSERT_EQ(db->Query("SELECT count(*) FROM tw_timer"), total);

  // Every process crashes at once; three new ones start.
  for (auto& p : before) {
    ASSERT_TRUE(p->Signal(SIGKILL));
    ASSERT_TRUE(IsKilled(p->WaitExit(absl::Seconds(10))));
  }
  const absl::Time restart = absl::Now();
  std::vector<std::unique_ptr<SchedulerProcess>> after;
  ASSERT_NO_FATAL_FAILURE(start_all(after));
  // All there, all claimed into the new wheels (or already run).
  // Polled every half second: each poll scans the whole table.
  ASSERT_TRUE(WaitFor(
      [&] {
        absl::SleepFor(absl::Milliseconds(500));
        return db->Query(
                   "SELECT count(*) FROM tw_timer WHERE state = 0 OR "
                   "epoch < 2") == 0;
      },
      absl::Seconds(240)))
      << db->Query("SELECT count(*) FROM tw_timer WHERE state = 0")
      << " timers not loaded after the restart";
  const absl::Duration load_time = absl::Now() - restart;
  int64_t rss_loaded = 0;
  for (auto& p : after) rss_loaded += p->RssBytes();
  const int64_t held =
      db->Query("SELECT count(*) FROM tw_timer WHERE state = 1");

  std::string alive;
  ASSERT_TRUE(WaitFor([&] {
    absl::SleepFor(absl::Milliseconds(100));  // Each poll scans the table.
    return db->Query("SELECT count(*) FROM tw_timer WHERE state = 3") == kSoon;
  })) <<
      [&] {
        for (auto& p : after) {
          alive += absl::StrCat(p->Signal(0) ? " alive " : " gone ",
                                p->WaitExit(absl::ZeroDuration()));
        }
        return alive;
      }()
      << "the timers due during the test did not all run: "
      << db->Query("SELECT count(*) FROM tw_timer WHERE state = 3")
      << " SUCCESS, "
      << db->Query(
             "SELECT count(*) FROM tw_timer WHERE state = 1 AND "
             "convert_from(task_id, 'UTF8') LIKE 'soon-%'")
      << " still SCHEDULED, "
      << db->Query("SELECT count(*) FROM tw_timer WHERE state = 2")
      << " RUNNING, " << db->Query("SELECT count(*) FROM test_runs")
      << " runs; soon-* "
      << db->Query(
             "SELECT count(*) FROM tw_timer WHERE "
             "convert_from(task_id, 'UTF8') LIKE 'soon-%'")
      << " rows, PENDING "
      << db->Query(
             "SELECT count(*) FROM tw_timer WHERE state = 0 AND "
             "convert_from(task_id, 'UTF8') LIKE 'soon-%'")
      << ", FAILED "
      << db->Query("SELECT count(*) FROM tw_timer WHERE state = 4")
      << ", due in "
      << db->Query(
             "SELECT (min(due_us) - tw_now_us()) / 1000 FROM tw_timer "
             "WHERE convert_from(task_id, 'UTF8') LIKE 'soon-%'")
      << " ms; slots free or expired "
      << db->Query(
             "SELECT count(*) FROM tw_slot_lease WHERE owner IS NULL "
             "OR lease_until_us <= tw_now_us()")
      << ", soon-* rows SCHEDULED under their slot's epoch "
      << db->Query(
             "SELECT count(*) FROM tw_timer t JOIN tw_slot_lease l "
             "USING (slot) WHERE t.state = 1 AND t.epoch = l.epoch AND "
             "convert_from(task_id, 'UTF8') LIKE 'soon-%'")
      << ", PENDING rows "
      << db->Query("SELECT count(*) FROM tw_timer WHERE state = 0")
      << ", live nodes " << db->Query("SELECT count(*) FROM tw_node")
      << ", slots per owner "
      << db->Query(
             "SELECT string_agg(n::text, '0')::bigint FROM (SELECT "
             "count(*) n FROM tw_slot_lease GROUP BY owner) x");
  EXPECT_EQ(db->Query("SELECT count(*) FROM tw_timer"), total);
  EXPECT_EQ(db->Query("SELECT count(*) FROM tw_timer WHERE state = 1"), far);
  EXPECT_GE(db->Query("SELECT (max(due_us) - min(due_us)) / 3600000000 FROM "
                      "tw_timer"),
            71);
  std::map<std::string, int> runs = db->RunsById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kSoon));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id << " ran " << n;
  EXPECT_EQ(db->Query("SELECT count(*) FROM test_runs r JOIN tw_timer t "
                      "USING (task_id) WHERE r.at_us < t.due_us"),
            0)
      << "a timer ran before it was due";
  const int64_t max_late_us = db->Query(
      "SELECT max(r.at_us - t.due_us) FROM test_runs r "
      "JOIN tw_timer t USING (task_id)");
  int64_t loaded = 0;
  for (auto& p : after) {
    EXPECT_TRUE(p->Terminate());
    loaded += p->Metric("loaded");
  }
  std::printf(
      "%d timers over 3 days: inserted at %.0f/s; after a restart of all %d "
      "processes, all claimed into wheels in %.1f s (%lld loads' rows); the "
      "%d due during the test ran once, none early, at most %.0f ms late; "
      "resident memory %.0f bytes per timer held (%lld held, RSS %.1f -> "
      "%.1f MiB)\n",
      total, far / absl::ToDoubleSeconds(insert_time), kProcesses,
      absl::ToDoubleSeconds(load_time), static_cast<long long>(loaded), kSoon,
      max_late_us / 1000.0,
      held > 0 ? static_cast<double>(rss_loaded - rss_empty) / held : 0.0,
      static_cast<long long>(held), rss_empty / 1048576.0,
      rss_loaded / 1048576.0);
}

}  // namespace
}  // namespace timingwheel
