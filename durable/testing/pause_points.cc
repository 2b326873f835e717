// Copyright 2026 The timingwheel Authors.

#include "durable/testing/pause_points.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "durable/engine/fault_point.h"

namespace timingwheel {
namespace durable_testing {
namespace pause_internal {

// PauseState: one PausePoint's state, shared with the thread it holds (which
// may still be waking up when the PausePoint is destroyed). Guarded by the
// registry's mutex.
struct PauseState {
  std::string point;
  bool reached = false;  // A thread took this pause.
  bool resumed = false;  // The held thread (or the next one) may go on.
  int64_t hits = 0;
};

}  // namespace pause_internal

namespace {

using pause_internal::PauseState;

// Registry: the live PausePoints of the process. Never destroyed, so that a
// hook call racing with exit finds it.
struct Registry {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::shared_ptr<PauseState>> live;  // Guarded by mu.
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

void Hook(const char* point) {
  Registry& registry = GetRegistry();
  std::unique_lock<std::mutex> lock(registry.mu);
  std::shared_ptr<PauseState> held;
  for (const std::shared_ptr<PauseState>& state : registry.live) {
    if (state->point != point) continue;
    ++state->hits;
    if (held == nullptr && !state->reached) {
      state->reached = true;
      held = state;
    }
  }
  if (held == nullptr) return;
  registry.cv.notify_all();
  registry.cv.wait(lock, [&] { return held->resumed; });
}

}  // namespace

PausePoint::PausePoint(std::string point)
    : state_(std::make_shared<PauseState>()) {
  state_->point = std::move(point);
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  if (registry.live.empty()) {
    durable_internal::FaultHook expected = nullptr;
    if (!durable_internal::FaultHookSlot().compare_exchange_strong(
            expected, &Hook, std::memory_order_acq_rel) &&
        expected != &Hook) {
      std::fprintf(stderr,
                   "PausePoint: another fault hook is installed "
                   "(fault_points and pause_points in one process)\n");
      std::abort();
    }
  }
  registry.live.push_back(state_);
}

PausePoint::~PausePoint() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  state_->resumed = true;
  registry.live.erase(
      std::find(registry.live.begin(), registry.live.end(), state_));
  if (registry.live.empty()) {
    durable_internal::FaultHook expected = &Hook;
    durable_internal::FaultHookSlot().compare_exchange_strong(
        expected, nullptr, std::memory_order_acq_rel);
  }
  registry.cv.notify_all();
}

bool PausePoint::WaitReached(absl::Duration timeout) {
  Registry& registry = GetRegistry();
  std::unique_lock<std::mutex> lock(registry.mu);
  return registry.cv.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                              [this] { return state_->reached; });
}

void PausePoint::Resume() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  state_->resumed = true;
  registry.cv.notify_all();
}

int64_t PausePoint::hits() const {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return state_->hits;
}

}  // namespace durable_testing
}  // namespace timingwheel
