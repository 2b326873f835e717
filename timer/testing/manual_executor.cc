// Copyright 2026 The timingwheel Authors.

#include "timer/testing/manual_executor.h"

#include <utility>

namespace timingwheel {
namespace testing {

void ManualExecutor::Execute(Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(callback));
}

size_t ManualExecutor::RunAll() {
  size_t ran = 0;
  for (;;) {
    Callback callback;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (queue_.empty()) return ran;
      callback = std::move(queue_.front());
      queue_.pop_front();
    }
    std::move(callback)();
    ++ran;
  }
}

size_t ManualExecutor::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

}  // namespace testing
}  // namespace timingwheel
