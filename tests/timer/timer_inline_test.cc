// Copyright 2026 The timingwheel Authors.
//
// The default executor's inline path: with the reaper and the real clock,
// the reaper runs a due batch itself (no hand-off to another thread), and
// the standby thread ("tw-executor") takes over only when a callback is
// still running at the next due instant. The real clock is needed (the
// watchdog is a CLOCK_MONOTONIC timerfd); every wait is bounded and nothing
// asserts a timing: only which thread ran what, and that a task ran while
// another was still blocked.

#include <dirent.h>
#include <pthread.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/timer/bounded.h"
#include "tests/timer/fn_task.h"
#include "tests/timer/test_sync.h"
#include "timer/testing/manual_clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace {

using testing::Counter;
using testing::Latch;
using testing::ManualClock;
using testing::RunWithin;

std::string CurrentThreadName() {
  char name[32] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

// A thread-safe record of the threads that ran callbacks.
class ThreadLog {
 public:
  void Record(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.push_back(what + "@" + CurrentThreadName());
  }
  std::vector<std::string> entries() {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> entries_;
};

// The thread of this process named `name` (0 if none) and its voluntary
// context switches: how often it blocked.
struct ThreadInfo {
  int tid = 0;
  char state = '?';
  long switches = -1;
};

ThreadInfo FindThread(const std::string& name) {
  ThreadInfo info;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return info;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string base = std::string("/proc/self/task/") + entry->d_name;
    std::string comm;
    std::getline(std::ifstream(base + "/comm"), comm);
    if (comm != name) continue;
    info.tid = std::atoi(entry->d_name);
    std::ifstream status(base + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("State:", 0) == 0 && line.size() > 7) {
        info.state = line[line.find_first_not_of(" \t", 6)];
      }
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
        info.switches = std::atol(line.c_str() + 24);
      }
    }
  }
  closedir(dir);
  return info;
}

// Waits (bounded) until the standby thread sleeps in poll().
ThreadInfo AwaitStandbyAsleep() {
  for (int i = 0; i < 15000; ++i) {
    ThreadInfo info = FindThread("tw-executor");
    if (info.tid != 0 && info.state == 'S' && info.switches > 0) return info;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return ThreadInfo();
}

using ::timingwheel::testing::FnTask;

TEST(TimerInlineTest, TheReaperRunsADueBatchItselfWithNoHandOff) {
  auto timer = Timer::Create().value();
  const ThreadInfo before = AwaitStandbyAsleep();
  ASSERT_NE(before.tid, 0) << "no sleeping tw-executor thread";
  ThreadLog log;
  Counter ran;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(timer
                    ->Schedule(absl::Milliseconds(1 + 100 * i),
                               [&] {
                                 log.Record("task");
                                 ran.Increment();
                               })
                    .ok());
  }
  ASSERT_TRUE(ran.AwaitAtLeast(3));
  EXPECT_EQ(log.entries(), std::vector<std::string>(3, "task@tw-reaper"));
  // The standby thread never woke: nothing was handed to it.
  EXPECT_EQ(FindThread("tw-executor").switches, before.switches);
}

TEST(TimerInlineTest, ALargeDueBatchGoesToTheStandbyThread) {
  // More tasks due at once than the reaper runs itself (64): under heavy
  // expiry the flush and the callbacks stay on two threads.
  auto timer = Timer::Create().value();
  ThreadLog log;
  Counter ran;
  constexpr int kTasks = 200;
  // Far enough ahead that all of them are added before any is due.
  const TimePoint at = timer->Now() + absl::Milliseconds(500);
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_TRUE(timer
                    ->ScheduleAt(at,
                                 [&] {
                                   log.Record("task");
                                   ran.Increment();
                                 })
                    .ok());
  }
  ASSERT_TRUE(ran.AwaitAtLeast(kTasks));
  EXPECT_EQ(log.entries(),
            std::vector<std::string>(kTasks, "task@tw-executor"));
}

TEST(TimerInlineTest, ABatchGoesToTheStandbyWhenTheNextIsDueBeforeItEnds) {
  // The reaper runs a batch itself only when nothing else comes due before
  // the batch would end (by the callbacks' recent run time): otherwise it
  // hands the batch to the standby and stays free to flush the next
  // instant on time.
  auto timer = Timer::Create().value();
  ThreadLog log;
  Counter ran;
  // A slow callback (nothing else due: the reaper runs it) makes the
  // estimate of a callback's run time about 50 ms (1/8 of 400 ms).
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               log.Record("slow");
                               absl::SleepFor(absl::Milliseconds(400));
                               ran.Increment();
                             })
                  .ok());
  ASSERT_TRUE(ran.AwaitAtLeast(1));
  // "a" is due 20 ms before "b": run on the reaper, it would (by the
  // estimate) still run when "b" is due.
  const TimePoint at = timer->Now() + absl::Milliseconds(200);
  for (const char* name : {"a", "b"}) {
    const TimePoint due =
        at + (name[0] == 'b' ? absl::Milliseconds(20) : absl::ZeroDuration());
    ASSERT_TRUE(timer
                    ->ScheduleAt(due,
                                 [&log, &ran, name] {
                                   log.Record(name);
                                   ran.Increment();
                                 })
                    .ok());
  }
  ASSERT_TRUE(ran.AwaitAtLeast(3));
  const std::vector<std::string> entries = log.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0], "slow@tw-reaper");
  EXPECT_EQ(entries[1], "a@tw-executor");
}

TEST(TimerInlineTest, WithoutTheReaperCallbacksStillRunOnTheExecutorThread) {
  ManualClock clock;
  TimerOptions options;
  options.clock = &clock;
  options.start_reaper = false;
  auto timer = Timer::Create(options).value();
  ThreadLog log;
  Latch ran;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(5),
                             [&] {
                               log.Record("task");
                               ran.Open();
                             })
                  .ok());
  clock.AdvanceBy(absl::Milliseconds(5));
  ASSERT_TRUE(timer->AdvanceClock(absl::ZeroDuration()));
  ASSERT_TRUE(ran.Wait());
  EXPECT_EQ(log.entries(), std::vector<std::string>{"task@tw-executor"});
}

// A callback that blocks past the next due instant does not delay it: the
// standby's watchdog fires and it runs the next task while the first is
// still blocked.
void ExpectBlockedCallbackDoesNotDelayNext(bool schedule_from_callback) {
  auto timer = Timer::Create().value();
  Timer* const raw = timer.get();
  ThreadLog log;
  Latch first_started, release, second_ran;
  bool second_ran_while_blocked = false;
  auto second = [&] {
    log.Record("second");
    second_ran_while_blocked = !release.IsOpen();
    second_ran.Open();
  };
  ASSERT_TRUE(
      timer
          ->Schedule(
              absl::Milliseconds(1),
              [&] {
                log.Record("first");
                if (schedule_from_callback) {
                  // Added while the reaper runs callbacks:
                  // the watchdog is re-armed for it.
                  ASSERT_TRUE(
                      raw->Schedule(absl::Milliseconds(20), second).ok());
                }
                first_started.Open();
                release.Wait();
              })
          .ok());
  if (!schedule_from_callback) {
    ASSERT_TRUE(timer->Schedule(absl::Milliseconds(500), second).ok());
  }
  ASSERT_TRUE(first_started.Wait());
  const bool ran = second_ran.Wait();
  release.Open();
  ASSERT_TRUE(ran) << "the second task waited for the blocked first one";
  EXPECT_TRUE(second_ran_while_blocked);
  // Both threads still serve: a later task runs (on the reaper, or on the
  // standby if the reaper has not left the first callback yet).
  Latch third_ran;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               log.Record("third");
                               third_ran.Open();
                             })
                  .ok());
  ASSERT_TRUE(third_ran.Wait());
  RunWithin("~Timer()", [&] { timer.reset(); });
  const std::vector<std::string> entries = log.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0], "first@tw-reaper");
  EXPECT_EQ(entries[1], "second@tw-executor");
}

TEST(TimerInlineTest, ABlockedCallbackDoesNotDelayATaskItScheduled) {
  ExpectBlockedCallbackDoesNotDelayNext(/*schedule_from_callback=*/true);
}

TEST(TimerInlineTest, ABlockedCallbackDoesNotDelayATaskDueAfterIt) {
  ExpectBlockedCallbackDoesNotDelayNext(/*schedule_from_callback=*/false);
}

TEST(TimerInlineTest, ShutdownFromAnInlineCallbackDoesNotWaitForItself) {
  auto timer = Timer::Create().value();
  Timer* const raw = timer.get();
  ThreadLog log;
  Latch done;
  size_t returned = 0;
  ASSERT_TRUE(timer->Schedule(absl::Hours(1), [] {}).ok());
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               log.Record("shutdown");
                               returned = raw->Shutdown().size();
                               done.Open();
                             })
                  .ok());
  ASSERT_TRUE(done.Wait()) << "Shutdown() from the callback did not return";
  EXPECT_EQ(returned, 1u);  // The hour-long task, cancelled.
  EXPECT_FALSE(timer->Schedule(absl::Milliseconds(1), [] {}).ok());
  RunWithin("~Timer()", [&] { timer.reset(); });
  EXPECT_EQ(log.entries(), std::vector<std::string>{"shutdown@tw-reaper"});
}

TEST(TimerInlineTest, CancelTakesBackATaskQueuedBehindAnInlineCallback) {
  auto timer = Timer::Create().value();
  ThreadLog log;
  Latch first_started, release;
  Counter second_runs;
  auto first = MakeTask<FnTask>([&] {
    log.Record("first");
    first_started.Open();
    release.Wait();
  });
  auto second = MakeTask<FnTask>([&] {
    log.Record("second");
    second_runs.Increment();
  });
  // One lock, one clock reading: due in the same flush, so in one batch,
  // the second behind the first.
  std::vector<TimerBatchEntry> entries;
  entries.push_back({first, absl::Milliseconds(5)});
  entries.push_back({second, absl::Milliseconds(5) + absl::Nanoseconds(1)});
  ASSERT_TRUE(timer->AddBatch(entries).ok());
  ASSERT_TRUE(first_started.Wait());
  const bool cancelled = timer->Cancel(*second);
  release.Open();
  EXPECT_TRUE(cancelled);
  RunWithin("Shutdown()", [&] { timer->Shutdown(); });
  EXPECT_EQ(second_runs.value(), 0);
  EXPECT_EQ(log.entries(), std::vector<std::string>{"first@tw-reaper"});
  EXPECT_EQ(timer->Metrics().cancelled, 1);
}

TEST(TimerInlineTest, ExceptionsFromInlineCallbacksGoToTheHook) {
  Counter errors;
  TimerOptions options;
  options.on_callback_error = [&](std::exception_ptr) { errors.Increment(); };
  auto timer = Timer::Create(options).value();
  ThreadLog log;
  // Alone in the wheel, the throwing callback has no next due instant to
  // end before, so the reaper always runs it itself (a second callback due
  // 1 ms later could send it to the standby when the reaper is held up).
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               log.Record("throws");
                               throw std::runtime_error("boom");
                             })
                  .ok());
  ASSERT_TRUE(errors.AwaitAtLeast(1));
  EXPECT_EQ(log.entries(), std::vector<std::string>{"throws@tw-reaper"});
  // The timer went on running callbacks (on whichever thread: the reaper
  // may still be leaving the hook when this one is due).
  Latch after;
  ASSERT_TRUE(timer
                  ->Schedule(absl::Milliseconds(1),
                             [&] {
                               log.Record("after");
                               after.Open();
                             })
                  .ok());
  ASSERT_TRUE(after.Wait());
  EXPECT_EQ(log.entries().size(), 2u);
  EXPECT_EQ(errors.value(), 1);
}

}  // namespace
}  // namespace timingwheel
