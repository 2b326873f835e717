// Copyright 2026 The timingwheel Authors.

#include "timer/internal/standby_executor.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace timingwheel {
namespace internal {
namespace {

int CheckFd(int fd, const char* what) {
  if (fd < 0) {
    std::fprintf(stderr, "timingwheel: %s failed (errno %d)\n", what, errno);
    std::fflush(stderr);
    std::abort();
  }
  return fd;
}

void SetTimer(int fd, int64_t monotonic_nanos) {
  itimerspec spec{};
  if (monotonic_nanos > 0) {
    spec.it_value.tv_sec = static_cast<time_t>(monotonic_nanos / 1000000000);
    spec.it_value.tv_nsec = static_cast<long>(monotonic_nanos % 1000000000);
  } else if (monotonic_nanos == 0) {
    spec.it_value.tv_nsec = 1;  // Zero would disarm: expire at once.
  }
  // Negative: all zero, disarmed.
  timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, nullptr);
}

}  // namespace

StandbyExecutor::StandbyExecutor(absl::AnyInvocable<void()> on_watchdog)
    : on_watchdog_(std::move(on_watchdog)),
      event_fd_(CheckFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), "eventfd")),
      timer_fd_(
          CheckFd(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC),
                  "timerfd_create")),
      thread_([this] { Loop(); }) {}

StandbyExecutor::~StandbyExecutor() {
  if (IsCurrentThread()) {
    std::fprintf(stderr,
                 "timingwheel: the timer's executor was destroyed from its "
                 "own thread; it cannot join itself.\n");
    std::fflush(stderr);
    std::abort();
  }
  Shutdown();
  close(event_fd_);
  close(timer_fd_);
}

void StandbyExecutor::Execute(Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;  // Dropped: destroyed on return.
    queue_.push_back(std::move(callback));
    if (queue_.size() > 1) return;  // Already signalled.
  }
  Notify();
}

void StandbyExecutor::Notify() {
  const uint64_t one = 1;
  // Fails only when the counter would overflow: then it is readable anyway.
  ssize_t written = write(event_fd_, &one, sizeof(one));
  (void)written;
}

// Under mu_, which the thread takes before calling on_watchdog_: the kernel
// orders the arming before the expiry, but only the lock shows ThreadSanitizer
// that whatever the arming thread wrote happens before on_watchdog_ reads it.
void StandbyExecutor::ArmAt(int64_t monotonic_nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  SetTimer(timer_fd_, monotonic_nanos < 0 ? 0 : monotonic_nanos);
}

void StandbyExecutor::Disarm() {
  std::lock_guard<std::mutex> lock(mu_);
  SetTimer(timer_fd_, -1);
}

void StandbyExecutor::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  Notify();
  if (IsCurrentThread() || !thread_.joinable()) return;
  thread_.join();
}

bool StandbyExecutor::IsCurrentThread() const {
  return std::this_thread::get_id() == thread_.get_id();
}

int64_t StandbyExecutor::wakeups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return wakeups_;
}

void StandbyExecutor::Loop() {
  pthread_setname_np(pthread_self(), "tw-executor");
  std::vector<Callback> batch;
  for (;;) {
    pollfd fds[2] = {{event_fd_, POLLIN, 0}, {timer_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;  // EINTR.
    bool stopping;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++wakeups_;
      stopping = stopping_;
    }
    uint64_t count;
    if ((fds[0].revents & POLLIN) != 0) {
      ssize_t got = read(event_fd_, &count, sizeof(count));
      (void)got;
    }
    // Read even when stopping, so that an expiry does not keep poll()
    // returning; EAGAIN when disarmed or re-armed since it expired.
    if ((fds[1].revents & POLLIN) != 0 &&
        read(timer_fd_, &count, sizeof(count)) == sizeof(count) && !stopping) {
      on_watchdog_();
    }
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (queue_.empty()) {
        if (stopping_) return;
        break;
      }
      batch.swap(queue_);
      lock.unlock();
      for (Callback& callback : batch) std::move(callback)();
      batch.clear();
      lock.lock();
    }
  }
}

}  // namespace internal
}  // namespace timingwheel
