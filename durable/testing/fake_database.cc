// Copyright 2026 The timingwheel Authors.

#include "durable/testing/fake_database.h"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_testing {

FakeDatabase::FakeDatabase()
    : now_us_([] { return absl::ToUnixMicros(absl::Now()); }) {}

FakeDatabase::~FakeDatabase() {
  internal::MutexLock lock(mu_);
  for (auto& [store, listener] : listeners_) {
    close(listener->pipe[0]);
    close(listener->pipe[1]);
  }
}

void FakeDatabase::SetClock(std::function<int64_t()> now_us) {
  internal::MutexLock lock(mu_);
  now_us_ = std::move(now_us);
}

void FakeDatabase::FailNext(const std::string& method, absl::Status status) {
  internal::MutexLock lock(mu_);
  failures_[method] = std::move(status);
}

int64_t FakeDatabase::TaskCount() {
  internal::MutexLock lock(mu_);
  return static_cast<int64_t>(tasks_.size());
}

int64_t FakeDatabase::TaskCount(TaskState state) {
  internal::MutexLock lock(mu_);
  int64_t n = 0;
  for (const auto& [id, task] : tasks_) n += task.state == state ? 1 : 0;
  return n;
}

int64_t FakeDatabase::WaitingTaskCount(bool not_yet_due) {
  internal::MutexLock lock(mu_);
  const int64_t now_us = NowLocked();
  int64_t n = 0;
  for (const auto& [id, task] : tasks_) {
    const bool waiting = task.state == TaskState::kPending ||
                         task.state == TaskState::kScheduled;
    n += waiting && (!not_yet_due || task.due_us > now_us) ? 1 : 0;
  }
  return n;
}

std::map<std::string, FakeDatabase::Task> FakeDatabase::Tasks() {
  internal::MutexLock lock(mu_);
  return tasks_;
}

std::map<std::string, int64_t> FakeDatabase::Nodes() {
  internal::MutexLock lock(mu_);
  return nodes_;
}

void FakeDatabase::SetNodeHeartbeat(const std::string& node,
                                    int64_t heartbeat_us) {
  internal::MutexLock lock(mu_);
  nodes_[node] = heartbeat_us;
}

int64_t FakeDatabase::NowLocked() { return now_us_(); }

absl::Status FakeDatabase::TakeFailure(const std::string& method) {
  auto it = failures_.find(method);
  if (it == failures_.end()) return absl::OkStatus();
  absl::Status status = std::move(it->second);
  failures_.erase(it);
  return status;
}

void FakeDatabase::Signal(Listener& listener) {
  const char byte = 1;
  // A full pipe already wakes the reader: a failed write loses nothing.
  (void)!write(listener.pipe[1], &byte, 1);
}

void FakeDatabase::NotifyLocked(const std::set<int>& slots) {
  if (slots.empty()) return;
  for (auto& [store, listener] : listeners_) {
    listener->slots.insert(listener->slots.end(), slots.begin(), slots.end());
    Signal(*listener);
  }
}

void FakeDatabase::StopLocked(const std::string& id, int64_t version) {
  for (auto& [store, listener] : listeners_) {
    listener->stops.push_back({id, version});
    Signal(*listener);
  }
}

bool FakeDatabase::Holds(const Lease& lease, const std::string& node,
                         int64_t epoch, int64_t now_us) {
  return lease.owner == node && lease.epoch == epoch && lease.until_us > now_us;
}

}  // namespace durable_testing
}  // namespace timingwheel
