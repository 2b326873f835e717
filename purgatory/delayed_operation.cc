// Copyright 2026 The timingwheel Authors.

#include "purgatory/delayed_operation.h"

namespace timingwheel {

bool DelayedOperation::ForceComplete() {
  int expected = kWaiting;
  if (!state_.compare_exchange_strong(expected, kCompleted,
                                      std::memory_order_acq_rel)) {
    return false;
  }
  if (Timer* timer = timer_.load(std::memory_order_acquire)) {
    timer->Cancel(*this);
  }
  if (internal::OperationOwner* owner =
          owner_.load(std::memory_order_acquire)) {
    owner->OnOperationCompleted(*this);
  }
  OnComplete();
  return true;
}

void DelayedOperation::Run() {
  if (ForceComplete()) {
    if (internal::OperationOwner* owner =
            owner_.load(std::memory_order_acquire)) {
      owner->OnOperationExpired();
    }
    OnExpiration();
  }
}

bool DelayedOperation::TryCompleteLocked() {
  std::lock_guard<std::mutex> lock(lock_);
  lock_holder_.store(std::this_thread::get_id(), std::memory_order_release);
  bool completed = false;
  try {
    completed = TryComplete();
  } catch (...) {
    lock_holder_.store(std::thread::id(), std::memory_order_release);
    throw;
  }
  lock_holder_.store(std::thread::id(), std::memory_order_release);
  return completed;
}

}  // namespace timingwheel
