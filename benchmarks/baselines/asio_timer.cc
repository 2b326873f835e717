// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/asio_timer.h"

#include <pthread.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace timingwheel {
namespace bench {

struct AsioTimer::State {
  boost::asio::io_context io;
  std::optional<
      boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
      work{io.get_executor()};
  std::mutex mu;
  uint64_t next_id = 1;  // Guarded by mu.
  absl::flat_hash_map<TimerId, std::unique_ptr<boost::asio::steady_timer>>
      timers;  // Guarded by mu.
};

AsioTimer::AsioTimer() : state_(std::make_unique<State>()) {}

AsioTimer::~AsioTimer() { Stop(); }

void AsioTimer::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "bl-asio");
    while (state_->io.run_one() > 0) {
      wakeups_.fetch_add(1, std::memory_order_relaxed);
    }
  });
}

void AsioTimer::Stop() {
  if (!thread_.joinable()) return;
  state_->io.stop();
  thread_.join();
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->timers.clear();
}

TimerId AsioTimer::Schedule(absl::Duration delay, Callback callback) {
  auto timer = std::make_unique<boost::asio::steady_timer>(
      state_->io, std::chrono::nanoseconds(absl::ToInt64Nanoseconds(delay)));
  boost::asio::steady_timer* raw = timer.get();
  std::lock_guard<std::mutex> lock(state_->mu);
  const TimerId id = state_->next_id++;
  state_->timers.emplace(id, std::move(timer));
  raw->async_wait([state = state_.get(), id, callback = std::move(callback)](
                      const boost::system::error_code& error) mutable {
    if (error) return;
    std::unique_ptr<boost::asio::steady_timer> done;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      auto it = state->timers.find(id);
      if (it == state->timers.end()) return;  // Cancelled.
      done = std::move(it->second);
      state->timers.erase(it);
    }
    callback();
  });
  return id;
}

void AsioTimer::Post(absl::Duration delay, Callback callback) {
  auto timer = std::make_shared<boost::asio::steady_timer>(
      state_->io, std::chrono::nanoseconds(absl::ToInt64Nanoseconds(delay)));
  boost::asio::steady_timer& ref = *timer;
  ref.async_wait([timer = std::move(timer), callback = std::move(callback)](
                     const boost::system::error_code& error) mutable {
    if (!error) callback();
  });
}

bool AsioTimer::Cancel(TimerId id) {
  std::unique_ptr<boost::asio::steady_timer> timer;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->timers.find(id);
    if (it == state_->timers.end()) return false;
    timer = std::move(it->second);
    state_->timers.erase(it);
  }
  timer->cancel();
  return true;
}

}  // namespace bench
}  // namespace timingwheel
