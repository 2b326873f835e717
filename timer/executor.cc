// Copyright 2026 The timingwheel Authors.

#include "timer/executor.h"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace timingwheel {

ThreadExecutor::ThreadExecutor() : thread_([this] { Loop(); }) {}

ThreadExecutor::~ThreadExecutor() {
  if (IsCurrentThread()) {
    // The thread would go on running this object's loop after it is freed.
    std::fprintf(stderr,
                 "timingwheel: a ThreadExecutor was destroyed from its own "
                 "thread (from one of its callbacks); it cannot join "
                 "itself. Destroy it from another thread.\n");
    std::fflush(stderr);
    std::abort();
  }
  Shutdown();
}

void ThreadExecutor::Execute(Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(callback));
  }
  cv_.notify_one();
}

void ThreadExecutor::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (IsCurrentThread() || !thread_.joinable()) return;
  thread_.join();
}

bool ThreadExecutor::IsCurrentThread() const {
  return std::this_thread::get_id() == thread_.get_id();
}

void ThreadExecutor::Loop() {
  pthread_setname_np(pthread_self(), "tw-executor");
  std::vector<Callback> batch;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping_ and drained.
    batch.swap(queue_);
    lock.unlock();
    for (Callback& callback : batch) std::move(callback)();
    batch.clear();
    lock.lock();
  }
}

}  // namespace timingwheel
