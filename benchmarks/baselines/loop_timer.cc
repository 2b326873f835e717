// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/loop_timer.h"

#include <pthread.h>

#include <utility>

namespace timingwheel {
namespace bench {

LoopTimer::LoopTimer(std::string thread_name, Clock* clock)
    : clock_(clock != nullptr ? clock : Clock::Real()),
      thread_name_(std::move(thread_name)) {}

LoopTimer::~LoopTimer() {
  // Subclasses call Stop() in their own destructors, before their state
  // goes; this is the last resort.
  Stop();
}

void LoopTimer::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void LoopTimer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LoopTimer::RunDue() {
  std::vector<Callback> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CollectDueLocked(clock_->NowNanos(), due);
  }
  for (Callback& callback : due) callback();
}

void LoopTimer::Loop() {
  pthread_setname_np(pthread_self(), thread_name_.c_str());
  std::vector<Callback> due;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    CollectDueLocked(clock_->NowNanos(), due);
    if (!due.empty()) {
      lock.unlock();
      for (Callback& callback : due) callback();
      due.clear();
      lock.lock();
      continue;
    }
    sleeping_until_ = NextWakeLocked();
    sleeping_ = true;
    clock_->WaitUntil(cv_, lock, sleeping_until_);
    sleeping_ = false;
    wakeups_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace bench
}  // namespace timingwheel
