// Copyright 2026 The timingwheel Authors.
//
// Helpers for the //durable tests: bounded waits on conditions the database
// or another thread makes true, and a handler that records its calls.

#ifndef TIMINGWHEEL_TESTS_DURABLE_TEST_UTIL_H_
#define TIMINGWHEEL_TESTS_DURABLE_TEST_UTIL_H_

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"

namespace timingwheel {
namespace durable_test {

// WaitFor()
//
// Re-checks `condition` every 5 ms until it holds (true) or `timeout` of
// real time passes (false). For conditions made true by a real database
// and the real clock; tests assert on the result.
inline bool WaitFor(const std::function<bool()>& condition,
                    absl::Duration timeout = absl::Seconds(20)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// FourThreads: an Executor of four threads, callbacks dealt out in turn.
class FourThreads final : public Executor {
 public:
  void Execute(Callback callback) override {
    threads_[next_.fetch_add(1) % 4].Execute(std::move(callback));
  }

 private:
  std::atomic<int> next_{0};
  ThreadExecutor threads_[4];
};

// Gate: handlers wait at it until the test opens it (bounded: a broken
// scheduler fails the test instead of hanging it).
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(20), [this] { return open_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Recorder
//
// A handler that records every attempt (with the wall time it started) and
// answers with `result` (OK unless set). Thread-safe.
// Kills a child process (stopped or not) and reaps it if the test ends
// early. Only ever a positive pid: kill() of 0 or -1 would signal the
// process group or every process. Set `pid` to 0 once reaped.
struct Reaper {
  pid_t pid;
  ~Reaper() {
    if (pid <= 0) return;
    kill(pid, SIGCONT);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

class Recorder {
 public:
  struct Call {
    DurableTask task;
    absl::Time at;
  };

  DurableHandler Handler() {
    return [this](const DurableTask& task) {
      std::function<absl::Status(const DurableTask&)> result;
      {
        std::lock_guard<std::mutex> lock(mu_);
        calls_.push_back({task, absl::Now()});
        result = result_;
      }
      return result ? result(task) : absl::OkStatus();
    };
  }

  void SetResult(std::function<absl::Status(const DurableTask&)> result) {
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(result);
  }

  std::vector<Call> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.size();
  }

  // Calls per task id.
  std::map<std::string, int> CountById() {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, int> counts;
    for (const Call& c : calls_) ++counts[c.task.id];
    return counts;
  }

 private:
  std::mutex mu_;
  std::vector<Call> calls_;
  std::function<absl::Status(const DurableTask&)> result_;
};

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_TEST_UTIL_H_
