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
//
// With TIMINGWHEEL_FIRE_BY_SLOT=1 (the fire by slot: no row is claimed, the
// wheels hold one task per owned slot) "back in a wheel" is every slot
// taken by a new process (its load, one read per slot, follows at once),
// the rows stay PENDING, and the memory is per timer stored.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace {

using durable_test::FaultDb;
using durable_test::IsKilled;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::TaskMatch;

// Longer than the slowest statement here: taking over a slot reads its
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

bool FireBySlot() {
  const char* value = std::getenv("TIMINGWHEEL_FIRE_BY_SLOT");
  return value != nullptr && std::string(value) == "1";
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
    auto leases = db->store().SummarizeLeases();
    return leases.ok() && leases->distinct_owners == kProcesses;
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
  ASSERT_EQ(db->CountTasks(), total);

  // Every process crashes at once; three new ones start.
  for (auto& p : before) {
    ASSERT_TRUE(p->Signal(SIGKILL));
    ASSERT_TRUE(IsKilled(p->WaitExit(absl::Seconds(10))));
  }
  const bool by_slot = FireBySlot();
  // The fire by slot: a slot is back in a wheel once a new process took it
  // (a new epoch, a live lease).
  ASSERT_TRUE(db->Exec(
      "CREATE TABLE test_epochs AS SELECT slot, epoch FROM tw_slot_lease"));
  const absl::Time restart = absl::Now();
  std::vector<std::unique_ptr<SchedulerProcess>> after;
  ASSERT_NO_FATAL_FAILURE(start_all(after));
  // All there, all claimed into the new wheels (or already run).
  // Polled every half second: each poll scans the whole table.
  ASSERT_TRUE(WaitFor(
      [&] {
        absl::SleepFor(absl::Milliseconds(by_slot ? 50 : 500));
        if (by_slot) {
          return db->Query(
                     "SELECT count(*) FROM tw_slot_lease l JOIN "
                     "test_epochs e USING (slot) WHERE l.epoch = "
                     "e.epoch OR l.owner IS NULL OR l.lease_until_us "
                     "<= tw_now_us()") == 0;
        }
        return db->CountTasks(TaskMatch().NotClaimedUnder(2)) == 0;
      },
      absl::Seconds(240)))
      << db->CountTasks(TaskMatch().State(TaskState::kPending))
      << " timers not loaded after the restart";
  const absl::Duration load_time = absl::Now() - restart;
  int64_t rss_loaded = 0;
  for (auto& p : after) rss_loaded += p->RssBytes();
  const int64_t held =
      by_slot ? far : db->CountTasks(TaskMatch().State(TaskState::kScheduled));

  std::string alive;
  ASSERT_TRUE(WaitFor([&] {
    absl::SleepFor(absl::Milliseconds(100));  // Each poll scans the table.
    return db->CountTasks(TaskMatch().State(TaskState::kSuccess)) == kSoon;
  })) <<
      [&] {
        for (auto& p : after) {
          alive += absl::StrCat(p->Signal(0) ? " alive " : " gone ",
                                p->WaitExit(absl::ZeroDuration()));
        }
        return alive;
      }()
      << "the timers due during the test did not all run: "
      << db->CountTasks(TaskMatch().State(TaskState::kSuccess)) << " SUCCESS, "
      << db->CountTasks(
             TaskMatch().State(TaskState::kScheduled).IdPrefix("soon-"))
      << " still SCHEDULED, "
      << db->CountTasks(TaskMatch().State(TaskState::kRunning)) << " RUNNING, "
      << db->Query("SELECT count(*) FROM test_runs") << " runs; soon-* "
      << db->CountTasks(TaskMatch().IdPrefix("soon-")) << " rows, PENDING "
      << db->CountTasks(
             TaskMatch().State(TaskState::kPending).IdPrefix("soon-"))
      << ", FAILED " << db->CountTasks(TaskMatch().State(TaskState::kFailed))
      << ", due in " <<
      [&] {
        auto soon = db->store().SummarizeTasks(TaskMatch().IdPrefix("soon-"));
        return soon.ok() ? (soon->min_due_us - soon->now_us) / 1000 : -1;
      }()
      << " ms; slots free or expired " <<
      [&] {
        auto n = db->store().CountSlots(
            durable_testing::LeaseMatch().FreeOrExpired());
        return n.ok() ? *n : -1;
      }()
      << ", soon-* rows SCHEDULED under their slot's epoch "
      << db->CountTasks(TaskMatch()
                            .State(TaskState::kScheduled)
                            .AtLeaseEpoch()
                            .IdPrefix("soon-"))
      << ", PENDING rows "
      << db->CountTasks(TaskMatch().State(TaskState::kPending))
      << ", live nodes " <<
      [&] {
        auto n = db->store().CountNodes();
        return n.ok() ? *n : -1;
      }()
      << ", slots per owner " << [&] {
           auto slots = db->store().SlotsPerOwner();
           if (!slots.ok()) return slots.status().ToString();
           return absl::StrJoin(*slots, " ", absl::PairFormatter("="));
         }();
  EXPECT_EQ(db->CountTasks(), total);
  EXPECT_EQ(db->CountTasks(TaskMatch().State(by_slot ? TaskState::kPending
                                                     : TaskState::kScheduled)),
            far);
  auto all = db->store().SummarizeTasks();
  EXPECT_GE(all.ok() ? (all->max_due_us - all->min_due_us) / 3600000000 : -1,
            71)
      << all.status();
  std::map<std::string, int> runs = db->RunsById();
  ASSERT_EQ(runs.size(), static_cast<size_t>(kSoon));
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id << " ran " << n;
  EXPECT_EQ(db->RunsBeforeDue(), 0) << "a timer ran before it was due";
  const int64_t max_late_us = db->LatenessUs(1.0);
  int64_t loaded = 0;
  for (auto& p : after) {
    EXPECT_TRUE(p->Terminate());
    loaded += p->Metric("loaded");
  }
  std::printf(
      "%d timers over 3 days%s: inserted at %.0f/s; after a restart of all %d "
      "processes, all %s in %.1f s (%lld loads' rows); the "
      "%d due during the test ran once, none early, at most %.0f ms late; "
      "resident memory %.0f bytes per timer held (%lld held, RSS %.1f -> "
      "%.1f MiB)\n",
      total, by_slot ? " (fire by slot)" : "",
      far / absl::ToDoubleSeconds(insert_time), kProcesses,
      by_slot ? "slots taken and read" : "claimed into wheels",
      absl::ToDoubleSeconds(load_time), static_cast<long long>(loaded), kSoon,
      max_late_us / 1000.0,
      held > 0 ? static_cast<double>(rss_loaded - rss_empty) / held : 0.0,
      static_cast<long long>(held), rss_empty / 1048576.0,
      rss_loaded / 1048576.0);
}

}  // namespace
}  // namespace timingwheel
