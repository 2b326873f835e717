// Copyright 2026 The timingwheel Authors.

#include "timer/thread_pool_executor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace timingwheel {
namespace {

[[noreturn]] void Die(const char* message) {
  std::fprintf(stderr, "timingwheel: ThreadPoolExecutor: %s\n", message);
  std::fflush(stderr);
  std::abort();
}

}  // namespace

ThreadPoolExecutor::ThreadPoolExecutor(int threads) {
  if (threads < 1) Die("needs at least one thread");
  // The workers wait on mu_ before they read worker_ids_: hold it until
  // every id is recorded.
  std::lock_guard<std::mutex> lock(mu_);
  std::lock_guard<std::mutex> join(join_mu_);
  threads_.reserve(threads);
  worker_ids_.reserve(threads);
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { Loop(); });
    worker_ids_.push_back(threads_.back().get_id());
  }
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  if (IsWorkerThread()) {
    Die("destroyed from one of its own callbacks; a worker cannot join "
        "itself. Destroy it from another thread (Shutdown() from a callback "
        "is allowed).");
  }
  Shutdown();
}

bool ThreadPoolExecutor::IsWorkerThread() const {
  const std::thread::id self = std::this_thread::get_id();
  return std::find(worker_ids_.begin(), worker_ids_.end(), self) !=
         worker_ids_.end();
}

void ThreadPoolExecutor::Execute(Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queue_.push_back(std::move(callback));
      ++unfinished_;
      work_cv_.notify_one();
      return;
    }
  }
  // Dropped, with no lock held: destroying a timer's batch cancels its
  // tasks, which takes the timer's lock.
  Callback dropped = std::move(callback);
}

void ThreadPoolExecutor::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  if (IsWorkerThread()) return;  // The destructor joins.
  std::lock_guard<std::mutex> join(join_mu_);
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

bool ThreadPoolExecutor::AwaitIdle(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                           [this] { return unfinished_ == 0; });
}

void ThreadPoolExecutor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // Stopping, and everything queued ran.
    Callback callback = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::move(callback)();
    callback = nullptr;  // Destroyed before it counts as finished.
    lock.lock();
    if (--unfinished_ == 0) idle_cv_.notify_all();
  }
}

}  // namespace timingwheel
