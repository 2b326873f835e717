// Copyright 2026 The timingwheel Authors.
//
// A randomized fault test of the durable tier, in the spirit of Jepsen: three
// scheduler processes (tests/durable/scheduler_process), each connected to
// the real PostgreSQL through its own PgProxy, run a few hundred tasks (due
// at once, spread over the run, some failing every attempt) while a producer
// in this process schedules and cancels more through a proxy of its own, and
// a seeded schedule of faults strikes: kill -9 (and a restart under the same
// or a new node id), SIGSTOP past the lease TTL, a reply lost after its
// statement committed (a load, a fire, an outcome, a start mark, an insert,
// a cancel), every connection of a proxy cut, new connections refused for a
// while, and a restart of the server. Then the faults stop, every task
// settles (bounded), and the checker (chaos_checker.h) proves on the table's
// own log and the handlers' log that no task was lost, none ran early by the
// database's clock, none ran twice unless the earlier run was fenced (its
// process killed, stopped or cut off past its lease), attempts count started
// attempts, and a cancelled task never ran after Cancel() returned true.
//
// TIMINGWHEEL_CHAOS_SEED (default 1) and TIMINGWHEEL_CHAOS_SECONDS (default
// 20; 15 under AddressSanitizer, 12 under ThreadSanitizer) choose the run; the
// seed and every fault with its time are printed, so a failing seed replays
// (the same faults at the same moments; the processes' own interleavings
// differ).

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/store.h"
#include "durable/testing/pg_proxy.h"
#include "durable/testing/postgres_fixture.h"
#include "durable/testing/store_inspector.h"
#include "gtest/gtest.h"
#include "libpq-fe.h"
#include "tests/durable/chaos_checker.h"
#include "tests/durable/fault_util.h"
#include "tests/durable/test_util.h"

// ThreadSanitizer slows every process several times, AddressSanitizer about
// twice: shorter runs, a longer lease under TSan.
#if defined(__SANITIZE_THREAD__)
#define TW_CHAOS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TW_CHAOS_TSAN 1
#endif
#endif
#ifndef TW_CHAOS_TSAN
#define TW_CHAOS_TSAN 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TW_CHAOS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TW_CHAOS_ASAN 1
#endif
#endif
#ifndef TW_CHAOS_ASAN
#define TW_CHAOS_ASAN 0
#endif
#define TW_CHAOS_SLOW (TW_CHAOS_TSAN || TW_CHAOS_ASAN)

namespace timingwheel {
namespace {

using durable_test::ChaosFault;
using durable_test::ChaosHistory;
using durable_test::ChaosIntent;
using durable_test::FaultDb;
using durable_test::SchedulerProcess;
using durable_test::WaitFor;
using durable_testing::PgProxy;
using durable_testing::TaskMatch;

constexpr int kNodes = 3;
constexpr int kMaxAttempts = 3;
constexpr int kTtlMs = TW_CHAOS_TSAN ? 3000 : TW_CHAOS_ASAN ? 2000 : 1500;
constexpr char kFailPrefix[] = "fail-";

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoll(v, nullptr, 10) : fallback;
}

int64_t NowUs() { return absl::ToUnixMicros(absl::Now()); }

class ChaosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = EnvInt("TIMINGWHEEL_CHAOS_SEED", 1);
    seconds_ = EnvInt("TIMINGWHEEL_CHAOS_SECONDS", TW_CHAOS_TSAN   ? 12
                                                   : TW_CHAOS_ASAN ? 15
                                                                   : 20);
    rng_.seed(static_cast<uint64_t>(seed_));
    start_us_ = NowUs();
    std::printf(
        "chaos: seed=%lld seconds=%lld ttl_ms=%d (replay: "
        "--test_env=TIMINGWHEEL_CHAOS_SEED=%lld "
        "--test_env=TIMINGWHEEL_CHAOS_SECONDS=%lld)\n",
        static_cast<long long>(seed_), static_cast<long long>(seconds_), kTtlMs,
        static_cast<long long>(seed_), static_cast<long long>(seconds_));
    std::string error;
    db_ = FaultDb::Create(&error);
    ASSERT_NE(db_, nullptr) << error;
    ASSERT_TRUE(db_->Exec("ALTER TABLE test_runs ADD COLUMN call text UNIQUE"));
    for (int i = 0; i <= kNodes; ++i) {  // The last one is the producer's.
      auto proxy = PgProxy::Start(db_->conninfo());
      ASSERT_TRUE(proxy.ok()) << proxy.status();
      proxies_.push_back(*std::move(proxy));
    }
    nodes_.resize(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      procs_.push_back(std::make_unique<SchedulerProcess>());
      ASSERT_TRUE(StartNode(i, absl::StrCat("node-", i), false));
    }
    ASSERT_TRUE(WaitFor([&] {
      auto owned =
          db_->store().CountSlots(durable_testing::LeaseMatch().Owned());
      return owned.ok() && *owned == 64;
    })) << "the schedulers never took the 64 slots";
    ASSERT_TRUE(db_->WatchLeases());
    const std::string watch = durable_test::InstallChaosWatch(db_->conninfo());
    ASSERT_EQ(watch, "");
  }

  void TearDown() override {
    for (auto& p : procs_) p->KillAndReap();
  }

  void Log(const std::string& kind, const std::string& target,
           const std::string& detail = "") {
    const int64_t now = NowUs();
    std::lock_guard<std::mutex> lock(mu_);
    history_.faults.push_back({now, kind, target});
    std::printf("chaos: +%.3fs %s %s%s%s\n", (now - start_us_) / 1e6,
                kind.c_str(), target.c_str(), detail.empty() ? "" : " ",
                detail.c_str());
    std::fflush(stdout);
  }

  // Starts node slot `i` as `node` through its proxy; waits (bounded) until
  // it heartbeats. False if it could not start (e.g. the id still held).
  bool StartNode(int i, const std::string& node, bool restart) {
    nodes_[i] = node;
    if (!procs_[i]->Start(
            proxies_[i]->conninfo(), node, kTtlMs,
            {"--runs_conninfo=" + db_->conninfo(), "--threads=4",
             "--work_ms=40", absl::StrCat("--fail_prefix=", kFailPrefix),
             absl::StrCat("--max_attempts=", kMaxAttempts), "--backoff_ms=300",
             "--horizon_ms=4000", "--max_in_flight=16"})) {
      return false;
    }
    // Up once it heartbeats (first start) or takes a slot (a restart: the
    // node row of a killed process with the same id stays).
    const std::string taken =
        absl::StrCat("SELECT count(*) FROM chaos_lease WHERE new_owner = '",
                     node, "' AND at_us > ", NowUs());
    const bool up = WaitFor(
        [&] {
          if (procs_[i]->WaitExit(absl::ZeroDuration()) != -1) return true;
          if (restart) return db_->Query(taken) > 0;
          auto registered = db_->store().HasNode(node);
          return registered.ok() && *registered;
        },
        absl::Seconds(30));
    return up && procs_[i]->pid() > 0;
  }

  // Schedules `id` due in `delay` through the producer's proxy; retried
  // (an identical retry is OK) up to 20 times.
  void Schedule(const std::string& id, absl::Duration delay) {
    ScheduleRequest request;
    request.id = id;
    request.payload = "p";
    request.delay = delay;
    bool ok = false;
    for (int i = 0; i < 20 && !ok; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (PQstatus(producer_) != CONNECTION_OK) PQreset(producer_);
      ok = ScheduleInTransaction(producer_, {request}, 64).ok();
    }
    std::lock_guard<std::mutex> lock(mu_);
    ChaosIntent& intent = history_.intents[id];
    intent.meant_to_fail = id.rfind(kFailPrefix, 0) == 0;
    intent.scheduled = ok;
    if (ok) scheduled_.push_back(id);
  }

  void Cancel(const std::string& id) {
    if (cancel_store_broken_ && !cancel_store_->Reconnect().ok()) return;
    absl::StatusOr<bool> cancelled = cancel_store_->Cancel(id);
    const int64_t now = NowUs();
    cancel_store_broken_ = !cancelled.ok();
    std::lock_guard<std::mutex> lock(mu_);
    ChaosIntent& intent = history_.intents[id];
    if (intent.cancel != ChaosIntent::Cancel::kNone) return;
    intent.cancel = !cancelled.ok() ? ChaosIntent::Cancel::kUnknown
                    : *cancelled    ? ChaosIntent::Cancel::kTrue
                                    : ChaosIntent::Cancel::kFalse;
    intent.cancel_returned_us = now;
  }

  // Schedules and cancels until `stop_`, on its own random stream.
  void Produce() {
    std::mt19937_64 rng(static_cast<uint64_t>(seed_) * 7919 + 1);
    for (int n = 0; !stop_.load(); ++n) {
      const bool fail = rng() % 8 == 0;
      const int64_t delay_ms = static_cast<int64_t>(rng() % 3000);
      Schedule(absl::StrCat(fail ? kFailPrefix : "prod-", n),
               absl::Milliseconds(delay_ms));
      if (rng() % 3 == 0) {
        std::string victim;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (!scheduled_.empty()) {
            victim = scheduled_[rng() % scheduled_.size()];
          }
        }
        if (!victim.empty()) Cancel(victim);
      }
      std::this_thread::sleep_for(
          std::chrono::milliseconds(TW_CHAOS_SLOW ? 150 : 60));
    }
  }

  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo));
  }
  void SleepMs(int64_t ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  // One fault, chosen and timed by the seed.
  // The first faults walk every kind once (in a seeded order), so that a
  // short run covers them all; then the kinds are drawn by weight.
  void InjectOne() {
    static constexpr int kKindStarts[] = {0, 18, 34, 66, 80, 90};
    if (first_kinds_.empty() && faults_ == 0) {
      first_kinds_.assign(std::begin(kKindStarts), std::end(kKindStarts));
      std::shuffle(first_kinds_.begin(), first_kinds_.end(), rng_);
    }
    int kind = static_cast<int>(Uniform(0, 100));
    if (faults_ < static_cast<int>(first_kinds_.size())) {
      kind = first_kinds_[faults_];
    }
    ++faults_;
    const int i = static_cast<int>(Uniform(0, kNodes));
    const std::string node = nodes_[i];
    if (kind < 18) {
      procs_[i]->Signal(SIGKILL);
      procs_[i]->WaitExit(absl::Seconds(10));
      Log("kill", node);
      SleepMs(Uniform(0, kTtlMs));
      std::string next = Uniform(0, 2) == 0
                             ? node
                             : absl::StrCat("node-", i, "-", ++generation_);
      if (!StartNode(i, next, true)) {
        procs_[i]->KillAndReap();
        next = absl::StrCat("node-", i, "-", ++generation_);
        ASSERT_TRUE(StartNode(i, next, true)) << "could not restart " << next;
      }
      Log("start", next);
    } else if (kind < 34) {
      procs_[i]->Signal(SIGSTOP);
      Log("stop", node);
      SleepMs(Uniform(kTtlMs * 6 / 5, kTtlMs * 5 / 2));
      procs_[i]->Signal(SIGCONT);
      Log("cont", node);
    } else if (kind < 66) {
      static const char* const kStatements[] = {
          "SET state = 1",
          "SET state = 2",
          "outcome",
          "SET attempt = m.attempt",
          "INSERT INTO tw_timer",
          "DELETE FROM tw_timer WHERE task_id = $1"};
      const int s = static_cast<int>(Uniform(0, 6));
      // Inserts and cancels come from the producer.
      const int p = s >= 4 ? kNodes : i;
      const std::string target = p == kNodes ? "producer" : node;
      proxies_[p]->DropReplyTo(kStatements[s]);
      const bool dropped = proxies_[p]->WaitDropped(absl::Seconds(2));
      Log(dropped ? "drop" : "drop-armed", target,
          absl::StrCat("'", kStatements[s], "'"));
    } else if (kind < 80) {
      proxies_[i]->CutAll();
      Log("cut", node);
    } else if (kind < 90) {
      proxies_[i]->SetRefuseNew(true);
      Log("refuse", node);
      SleepMs(Uniform(kTtlMs / 5, kTtlMs * 3 / 2));
      proxies_[i]->SetRefuseNew(false);
      Log("accept", node);
    } else if (restarts_left_ > 0 && std::getenv("TIMINGWHEEL_PG_CTL")) {
      --restarts_left_;
      Log("server-restart", "server");
      absl::Status status = durable_testing::ServerControl("restart");
      Log("server-up", "server", status.ToString());
    }
  }

  int64_t seed_ = 1;
  int64_t seconds_ = 20;
  int64_t start_us_ = 0;
  int generation_ = 0;
  int faults_ = 0;
  std::vector<int> first_kinds_;
  int restarts_left_ = 1;
  std::mt19937_64 rng_;
  std::unique_ptr<FaultDb> db_;
  std::vector<std::unique_ptr<PgProxy>> proxies_;
  std::vector<std::unique_ptr<SchedulerProcess>> procs_;
  std::vector<std::string> nodes_;
  PGconn* producer_ = nullptr;
  std::unique_ptr<durable_internal::Store> cancel_store_;
  bool cancel_store_broken_ = false;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  ChaosHistory history_;                // Under mu_ while the producer runs.
  std::vector<std::string> scheduled_;  // Under mu_.
};

TEST_F(ChaosTest, RandomFaultsKeepTheGuarantees) {
  restarts_left_ = seconds_ > 30 ? 2 : 1;
  producer_ = PQconnectdb(proxies_[kNodes]->conninfo().c_str());
  ASSERT_EQ(PQstatus(producer_), CONNECTION_OK);
  auto store = durable_internal::Store::Connect(proxies_[kNodes]->conninfo());
  ASSERT_TRUE(store.ok()) << store.status();
  cancel_store_ = *std::move(store);

  // The initial tasks: some due at once, most spread over the run, some
  // failing every attempt.
  const int initial = TW_CHAOS_SLOW ? 80 : 200;
  for (int n = 0; n < initial; ++n) {
    const bool fail = n % 10 == 9;
    const int64_t delay_ms = n < initial / 5 ? 0 : Uniform(0, seconds_ * 800);
    Schedule(absl::StrCat(fail ? kFailPrefix : "task-", "i", n),
             absl::Milliseconds(delay_ms));
  }
  std::thread producer([&] { Produce(); });

  const absl::Time end = absl::Now() + absl::Seconds(seconds_);
  while (absl::Now() < end && !HasFatalFailure()) {
    SleepMs(Uniform(200, 1200));
    InjectOne();
  }
  stop_.store(true);
  producer.join();
  Log("faults-end", "all");

  // Settle: every row final (cancelled ones are gone).
  const bool settled = WaitFor(
      [&] {
        return db_->CountTasks(TaskMatch().StateBefore(TaskState::kSuccess)) ==
               0;
      },
      absl::Seconds(TW_CHAOS_SLOW ? 120 : 60));
  EXPECT_TRUE(settled) << db_->CountTasks(
                              TaskMatch().StateBefore(TaskState::kSuccess))
                       << " tasks never finished";
  Log("settled", "all", settled ? "" : "(timed out)");
  for (int i = 0; i < kNodes; ++i) {
    EXPECT_TRUE(procs_[i]->Terminate()) << nodes_[i] << " did not exit cleanly";
  }
  PQfinish(producer_);

  const std::string error =
      durable_test::LoadChaosHistory(db_->conninfo(), &history_);
  ASSERT_EQ(error, "");
  durable_test::ChaosLimits limits;
  limits.max_attempts = kMaxAttempts;
  const durable_test::ChaosReport report =
      durable_test::CheckChaos(history_, limits);
  std::printf("chaos: seed=%lld tasks=%zu faults=%zu %s\n",
              static_cast<long long>(seed_), history_.intents.size(),
              history_.faults.size(), report.Summary().c_str());
  for (const std::string& d : report.double_details) {
    std::printf("chaos: double %s\n", d.c_str());
  }
  for (const std::string& v : report.violations) {
    ADD_FAILURE() << "seed " << seed_ << ": " << v;
  }
}

}  // namespace
}  // namespace timingwheel
