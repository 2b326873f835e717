// Copyright 2026 The timingwheel Authors.
//
// The reaper's inline batches and the standby executor meeting pooled tasks
// freed on those threads, Shutdown() and timer destruction. The inline path
// needs the real clock; every wait is bounded and nothing asserts a timing:
// only counts (each task runs or is returned exactly once) and that nothing
// hangs or touches freed memory (run under ASan, TSan and valgrind).

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "tests/timer/fn_task.h"
#include "tests/timer/test_sync.h"
#include "timer/embedded_timer.h"
#include "timer/internal/task_pool.h"
#include "timer/scoped_timer_handle.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using testing::Counter;
using testing::Latch;
using testing::RunWithin;

using ::timingwheel::testing::FnTask;

// Shutdown() from another thread while the reaper blocks in an inline
// callback: it waits for that callback, and every task either runs (the
// ones already in the batch) or is returned (the pending ones), once.
TEST(TimerInlineStandbyTest, ShutdownWhileTheReaperRunsAnInlineBatch) {
  auto timer = Timer::Create().value();
  Latch started, release;
  Counter runs;
  constexpr int kTasks = 64;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               started.Open();
                               release.Wait();
                               runs.Increment();
                             })
                  .ok());
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_TRUE(timer
                    ->Schedule(absl::Milliseconds(1) + absl::Nanoseconds(i + 1),
                               [&] { runs.Increment(); })
                    .ok());
  }
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_TRUE(
        timer->Schedule(absl::Hours(1), [&] { runs.Increment(); }).ok());
  }
  ASSERT_TRUE(started.Wait());
  size_t returned = 0;
  std::thread stopper([&] { returned = timer->Shutdown().size(); });
  release.Open();
  RunWithin("Shutdown() join", [&] { stopper.join(); });
  // Shutdown() waited for every batch, inline or handed off.
  EXPECT_EQ(runs.value() + static_cast<int64_t>(returned), 2 * kTasks + 1);
  EXPECT_GE(returned, static_cast<size_t>(kTasks));
  RunWithin("~Timer()", [&] { timer.reset(); });
}

// Inline callbacks that cancel, reschedule and destroy handles of other
// tasks (pooled blocks freed on the reaper thread), then one that shuts the
// timer down; the destructor on the main thread finishes the job.
TEST(TimerInlineStandbyTest, InlineCallbacksDropHandlesThenShutDown) {
  auto timer = Timer::Create().value();
  Timer* const raw = timer.get();
  Counter never;
  Latch done;
  std::vector<ScopedTimerHandle> handles;
  for (int i = 0; i < 100; ++i) {
    handles.emplace_back(
        timer->Schedule(absl::Hours(1), [&] { never.Increment(); }).value());
  }
  std::atomic<int> rounds{0};
  std::function<void()> step = [&] {
    // Drops some handles (cancelling their tasks on this thread).
    if (!handles.empty()) handles.resize(handles.size() / 2);
    if (rounds.fetch_add(1) < 6) {
      ASSERT_TRUE(raw->Schedule(absl::Microseconds(200), step).ok());
    } else {
      raw->Shutdown();
      done.Open();
    }
  };
  ASSERT_TRUE(timer->Schedule(absl::Microseconds(200), step).ok());
  ASSERT_TRUE(done.Wait());
  RunWithin("~Timer()", [&] { timer.reset(); });
  handles.clear();  // After the timer: handles find it gone.
  EXPECT_EQ(never.value(), 0);
}

// A producer thread schedules tasks and exits (its pool cache given back)
// while they are still pending; they run afterwards, their blocks freed on
// the reaper or standby thread.
TEST(TimerInlineStandbyTest, ProducerExitsWhileItsTasksArePending) {
  TimerOptions options;
  options.expected_pending = 1000;
  auto timer = Timer::Create(options).value();
  Counter runs;
  constexpr int kPerThread = 500;
  for (int round = 0; round < 3; ++round) {
    std::thread producer([&] {
      for (int i = 0; i < kPerThread; ++i) {
        ASSERT_TRUE(
            timer
                ->Schedule(absl::Milliseconds(2) + absl::Microseconds(i % 7),
                           [&runs, i] {
                             if (i >= 0) runs.Increment();
                           })
                .ok());
      }
    });
    producer.join();
  }
  ASSERT_TRUE(runs.AwaitAtLeast(3 * kPerThread));
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(runs.value(), 3 * kPerThread);
}

// Timers created and destroyed in a loop with expected_pending, each
// running its tasks and shutting down with some pending: the pool does not
// grow after the first rounds.
TEST(TimerInlineStandbyTest, TimersInALoopWithExpectedPendingDoNotGrow) {
  constexpr int kPending = 2000;
  int64_t bytes_after_warmup = 0;
  for (int round = 0; round < 12; ++round) {
    TimerOptions options;
    options.expected_pending = kPending;
    auto timer = Timer::Create(options).value();
    Counter runs;
    for (int i = 0; i < kPending / 2; ++i) {
      ASSERT_TRUE(
          timer->Schedule(absl::Microseconds(100), [&] { runs.Increment(); })
              .ok());
      ASSERT_TRUE(timer->Schedule(absl::Hours(1), [] {}).ok());
    }
    ASSERT_TRUE(runs.AwaitAtLeast(kPending / 2));
    RunWithin("~Timer()", [&] { timer.reset(); });
    if (round == 3) {
      bytes_after_warmup = internal::TaskPool::Stats().chunk_bytes;
    }
  }
  EXPECT_EQ(internal::TaskPool::Stats().chunk_bytes, bytes_after_warmup);
}

// A callback on the reaper cancels the task behind it in its batch, then
// throws; the cancelled task never runs, nothing leaks.
TEST(TimerInlineStandbyTest, InlineCallbackThrowsAfterCancellingNext) {
  Counter errors;
  TimerOptions options;
  options.on_callback_error = [&](std::exception_ptr) { errors.Increment(); };
  auto timer = Timer::Create(options).value();
  Timer* const raw = timer.get();
  Counter second_runs;
  TaskPtr<FnTask> second_task;
  auto first = MakeTask<FnTask>([&] {
    EXPECT_TRUE(raw->Cancel(*second_task));
    throw 7;
  });
  second_task = MakeTask<FnTask>([&] { second_runs.Increment(); });
  std::vector<TimerBatchEntry> entries;
  entries.push_back({first, absl::Milliseconds(2)});
  entries.push_back(
      {second_task, absl::Milliseconds(2) + absl::Nanoseconds(1)});
  ASSERT_TRUE(timer->AddBatch(entries).ok());
  ASSERT_TRUE(errors.AwaitAtLeast(1));
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(second_runs.value(), 0);
}

// Embedded timers run inline: the first destroys itself and the second
// (queued behind it in the batch, or pending); the third runs.
TEST(TimerInlineStandbyTest, InlineEmbeddedTimersDestroyedInTheirBatch) {
  auto timer = Timer::Create().value();
  Counter second_runs, third_runs;
  std::unique_ptr<CallbackTimer> first, second, third;
  first = std::make_unique<CallbackTimer>([&] {
    second.reset();
    first.reset();
  });
  second = std::make_unique<CallbackTimer>([&] { second_runs.Increment(); });
  third = std::make_unique<CallbackTimer>([&] { third_runs.Increment(); });
  // The first is scheduled first, so the others (later clock readings, a
  // longer delay) are due after it: in its batch (queued behind it) or
  // still pending when it runs, depending on when the reaper wakes.
  ASSERT_TRUE(first->Schedule(*timer, absl::Milliseconds(2)).ok());
  ASSERT_TRUE(second->Schedule(*timer, absl::Milliseconds(3)).ok());
  ASSERT_TRUE(third->Schedule(*timer, absl::Milliseconds(3)).ok());
  ASSERT_TRUE(third_runs.AwaitAtLeast(1));
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(first, nullptr);
  EXPECT_EQ(second, nullptr);
  EXPECT_EQ(second_runs.value(), 0);
  EXPECT_EQ(third_runs.value(), 1);
}

// While the reaper blocks in an inline callback, the standby takes over;
// a callback it runs shuts the timer down; the blocked callback then
// returns and the timer is destroyed from the main thread.
TEST(TimerInlineStandbyTest, ShutdownFromTheStandbyWhileTheReaperBlocks) {
  auto timer = Timer::Create().value();
  Timer* const raw = timer.get();
  Latch blocked, release, shut;
  size_t returned = 0;
  ASSERT_TRUE(timer->Schedule(absl::Hours(1), [] {}).ok());
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               blocked.Open();
                               release.Wait();
                             })
                  .ok());
  ASSERT_TRUE(blocked.Wait());
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               returned = raw->Shutdown().size();
                               shut.Open();
                             })
                  .ok());
  ASSERT_TRUE(shut.Wait());
  release.Open();
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(returned, 1u);
}

// Producers schedule and cancel on the real clock while callbacks run
// inline and hand off; every task runs or is cancelled exactly once.
TEST(TimerInlineStandbyTest, ProducersCancelWhileBatchesRunInline) {
  auto timer = Timer::Create().value();
  Counter runs, cancels;
  constexpr int kThreads = 3;
  constexpr int kPerThread = 2000;
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto handle = timer
                          ->Schedule(absl::Microseconds((i * 37 + t) % 500),
                                     [&runs] { runs.Increment(); })
                          .value();
        if (i % 3 == 0 && handle.Cancel()) cancels.Increment();
      }
    });
  }
  for (std::thread& producer : producers) producer.join();
  ASSERT_TRUE(runs.AwaitAtLeast(kThreads * kPerThread - cancels.value()));
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(runs.value() + cancels.value(), kThreads * kPerThread);
}

// Shutdown() sweeps the pending tasks outside the lock while another
// thread destroys pending embedded timers (which waits for the sweep to let
// go of each): none is touched after it is freed (ASan, valgrind).
TEST(TimerInlineStandbyTest, SweepRacesDestroyingEmbeddedTimers) {
  for (int round = 0; round < 20; ++round) {
    auto timer = Timer::Create().value();
    constexpr int kTimers = 300;
    std::vector<std::unique_ptr<CallbackTimer>> embedded;
    for (int i = 0; i < kTimers; ++i) {
      embedded.push_back(std::make_unique<CallbackTimer>([] {}));
      // Spread over many buckets (and so many sweep lanes).
      ASSERT_TRUE(
          embedded.back()->Schedule(*timer, absl::Seconds(10 + i)).ok());
    }
    for (int i = 0; i < kTimers; ++i) {
      ASSERT_TRUE(timer->Schedule(absl::Seconds(10 + i), [] {}).ok());
    }
    Latch go;
    std::thread destroyer([&] {
      go.Wait();
      for (auto& one : embedded) one.reset();
    });
    go.Open();
    const size_t returned = timer->Shutdown().size();
    RunWithin("destroyer", [&] { destroyer.join(); });
    EXPECT_EQ(returned, static_cast<size_t>(kTimers));
    RunWithin("~Timer()", [&] { timer.reset(); });
  }
}

// An inline callback on the reaper shuts the timer down while the standby
// (which took over when it blocked) runs a callback of its own: neither
// waits for the other, and the destructor finishes the job.
TEST(TimerInlineStandbyTest, InlineShutdownWhileTheStandbyRunsACallback) {
  auto timer = Timer::Create().value();
  Timer* const raw = timer.get();
  Latch standby_running, shut, a_done;
  size_t returned = 0;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(timer->Schedule(absl::Hours(1) + absl::Seconds(i), [] {}).ok());
  }
  // The second task is scheduled by the first, while the reaper runs it:
  // only the standby can run it.
  std::function<void()> second = [&] {
    standby_running.Open();
    EXPECT_TRUE(shut.Wait());
  };
  ASSERT_TRUE(
      timer
          ->Schedule(absl::Milliseconds(1),
                     [&] {
                       EXPECT_TRUE(
                           raw->Schedule(absl::ZeroDuration(), second).ok());
                       EXPECT_TRUE(standby_running.Wait());
                       returned = raw->Shutdown().size();
                       shut.Open();
                       a_done.Open();
                     })
          .ok());
  ASSERT_TRUE(a_done.Wait());
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(returned, 50u);
}

}  // namespace
}  // namespace timingwheel
