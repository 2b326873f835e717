// Copyright 2026 The timingwheel Authors.
//
// ThreadPoolExecutor (//timer:thread_pool_executor): callbacks run concurrently
// on its N workers, AwaitIdle() sees queued and running callbacks, Shutdown()
// runs what was queued and drops what comes after, and the misuse it cannot
// survive (destroying it from a worker) dies with a message.

#include "timer/thread_pool_executor.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/test_sync.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using ::timingwheel::testing::Counter;
using ::timingwheel::testing::kTestWaitTimeout;
using ::timingwheel::testing::Latch;

const absl::Duration kWait = absl::FromChrono(kTestWaitTimeout);

TEST(ThreadPoolExecutorTest, RunsCallbacksConcurrentlyOnEachWorker) {
  constexpr int kThreads = 3;
  ThreadPoolExecutor pool(kThreads);
  Counter arrived;
  Latch all_arrived;
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> on_worker{0};
  for (int i = 0; i < kThreads; ++i) {
    pool.Execute([&] {
      if (pool.IsWorkerThread()) on_worker.fetch_add(1);
      {
        std::lock_guard<std::mutex> lock(mu);
        ids.insert(std::this_thread::get_id());
      }
      arrived.Add();
      // Each waits for the others: only N concurrent workers get past.
      if (arrived.AwaitAtLeast(kThreads)) all_arrived.Open();
    });
  }
  ASSERT_TRUE(all_arrived.Wait());
  ASSERT_TRUE(pool.AwaitIdle(kWait));
  EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(on_worker.load(), kThreads);
  EXPECT_FALSE(pool.IsWorkerThread());
}

TEST(ThreadPoolExecutorTest, AwaitIdleWaitsForRunningAndQueuedCallbacks) {
  ThreadPoolExecutor pool(1);
  EXPECT_TRUE(pool.AwaitIdle(absl::ZeroDuration()));  // Nothing handed in.
  Latch release;
  Latch started;
  std::atomic<int> ran{0};
  pool.Execute([&] {
    started.Open();
    ASSERT_TRUE(release.Wait());
    ran.fetch_add(1);
  });
  pool.Execute([&] { ran.fetch_add(1); });  // Queued behind the first.
  ASSERT_TRUE(started.Wait());
  EXPECT_FALSE(pool.AwaitIdle(absl::Milliseconds(1)));
  release.Open();
  EXPECT_TRUE(pool.AwaitIdle(kWait));
  EXPECT_EQ(ran.load(), 2);
}

// A callable that records whether it ran or was destroyed unrun.
struct Probe {
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>();
  void operator()() { runs->fetch_add(1); }
};

TEST(ThreadPoolExecutorTest, ShutdownRunsWhatWasQueuedAndDropsWhatComesAfter) {
  ThreadPoolExecutor pool(2);
  Latch release;
  Counter started;
  std::atomic<int> ran{0};
  for (int i = 0; i < 2; ++i) {
    pool.Execute([&] {
      started.Add();
      ASSERT_TRUE(release.Wait());
      ran.fetch_add(1);
    });
  }
  for (int i = 0; i < 10; ++i) pool.Execute([&] { ran.fetch_add(1); });
  ASSERT_TRUE(started.AwaitAtLeast(2));  // Both workers busy, 10 queued.
  std::thread shutdown([&] { pool.Shutdown(); });
  release.Open();
  shutdown.join();
  EXPECT_EQ(ran.load(), 12);  // Everything queued before Shutdown() ran.

  Probe late;
  std::weak_ptr<std::atomic<int>> alive = late.runs;
  pool.Execute(late);
  late.runs.reset();
  EXPECT_TRUE(alive.expired());  // Destroyed by Execute(), unrun.
  pool.Shutdown();               // Idempotent.
}

TEST(ThreadPoolExecutorTest, ATimerOnThePoolRunsEachTaskOnceOnAWorker) {
  ThreadPoolExecutor pool(4);
  Counter runs;
  std::atomic<int> off_worker{0};
  TimerOptions options;
  options.executor = &pool;
  auto timer = Timer::Create(options).value();
  for (int i = 0; i < 200; ++i) {
    timer
        ->Schedule(absl::ZeroDuration(),
                   [&] {
                     if (!pool.IsWorkerThread()) off_worker.fetch_add(1);
                     runs.Add();
                   })
        .value();
  }
  ASSERT_TRUE(runs.AwaitAtLeast(200));
  timer.reset();  // Before the pool it uses.
  ASSERT_TRUE(pool.AwaitIdle(kWait));
  EXPECT_EQ(runs.value(), 200);  // Once each.
  EXPECT_EQ(off_worker.load(), 0);
}

TEST(ThreadPoolExecutorTest, ShutdownFromACallbackLetsTheDestructorJoin) {
  auto pool = std::make_unique<ThreadPoolExecutor>(2);
  Latch shut;
  pool->Execute([&] {
    pool->Shutdown();  // Cannot join its own thread: returns at once.
    shut.Open();
  });
  ASSERT_TRUE(shut.Wait());
  Probe late;
  std::weak_ptr<std::atomic<int>> alive = late.runs;
  pool->Execute(late);
  late.runs.reset();
  EXPECT_TRUE(alive.expired());
  pool.reset();  // Joins both workers.
}

TEST(ThreadPoolExecutorDeathTest, DestroyedFromAWorkerDiesWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto* pool = new ThreadPoolExecutor(1);
        Latch never;
        pool->Execute([pool] { delete pool; });
        never.Wait();
      },
      "ThreadPoolExecutor: destroyed from one of its own callbacks");
}

TEST(ThreadPoolExecutorDeathTest, NoThreadsDiesWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(ThreadPoolExecutor(0),
               "ThreadPoolExecutor: needs at least one thread");
}

}  // namespace
}  // namespace timingwheel
