// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/timingwheel_timer.h"

#include <pthread.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace bench {

TimingwheelTimer::TimingwheelTimer(Mode mode, absl::Duration poll,
                                   TimerOptions options)
    : mode_(mode), poll_(poll), options_(std::move(options)) {
  options_.start_reaper = mode_ == Mode::kReaper;
}

std::string TimingwheelTimer::name() const {
  if (mode_ == Mode::kReaper) return "timingwheel";
  return absl::StrCat("kafka-poll-", absl::FormatDuration(poll_));
}

void TimingwheelTimer::Start() {
  timer_ = Timer::Create(options_).value();
  if (mode_ == Mode::kPoll) {
    poller_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "bl-poller");
      // Kafka's ExpirationReaper: `timeoutTimer.advanceClock(200L)` forever.
      while (!stop_.load(std::memory_order_acquire)) {
        timer_->AdvanceClock(poll_);
      }
    });
  }
}

void TimingwheelTimer::Stop() {
  if (timer_ == nullptr) return;
  final_wakeups_ = wakeups();
  stop_.store(true, std::memory_order_release);
  timer_->Shutdown();  // Wakes the poller's AdvanceClock().
  if (poller_.joinable()) poller_.join();
  std::lock_guard<std::mutex> lock(ids_mu_);
  ids_ = NodePool<Node>();
  timer_.reset();
}

int64_t TimingwheelTimer::wakeups() const {
  if (timer_ == nullptr) return final_wakeups_ < 0 ? 0 : final_wakeups_;
  // Both modes count returns from the wheel's wait in AdvanceClock().
  return timer_->Metrics().reaper_wakeups;
}

TimerId TimingwheelTimer::Schedule(absl::Duration delay, Callback callback) {
  TimerId id;
  {
    std::lock_guard<std::mutex> lock(ids_mu_);
    id = ids_.IdOf(ids_.Allocate());
  }
  absl::StatusOr<TimerHandle> handle = timer_->Schedule(
      delay, [this, id, callback = std::move(callback)]() mutable {
        callback();
        ReleaseId(id);
      });
  std::lock_guard<std::mutex> lock(ids_mu_);
  const uint32_t index = ids_.Find(id);
  if (index == kNil) return id;  // Already ran.
  if (!handle.ok()) {
    ids_.Free(index);
    return id;
  }
  ids_[index].handle = *std::move(handle);
  return id;
}

void TimingwheelTimer::Post(absl::Duration delay, Callback callback) {
  (void)timer_->Schedule(delay, std::move(callback));
}

bool TimingwheelTimer::Cancel(TimerId id) {
  TimerHandle handle;
  {
    std::lock_guard<std::mutex> lock(ids_mu_);
    const uint32_t index = ids_.Find(id);
    if (index == kNil) return false;
    handle = std::move(ids_[index].handle);
    ids_.Free(index);
  }
  return handle.Cancel();
}

void TimingwheelTimer::ReleaseId(TimerId id) {
  TimerHandle handle;  // Dropped outside the lock.
  std::lock_guard<std::mutex> lock(ids_mu_);
  const uint32_t index = ids_.Find(id);
  if (index == kNil) return;
  handle = std::move(ids_[index].handle);
  ids_.Free(index);
}

}  // namespace bench
}  // namespace timingwheel
