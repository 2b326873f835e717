// Copyright 2026 The timingwheel Authors.

#include "durable/engine/wheel_mirror.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_internal {

void WheelMirror::Forget(MirrorSet::iterator it) {
  if (keep_earliest_) by_due_.erase({(*it)->due_us(), it->get()});
  in_timer_.erase(it);
}

WheelMirror::Added WheelMirror::Add(const WheelEntry& entry, int16_t kind,
                                    int64_t local_due_nanos) {
  auto previous = in_timer_.find(entry.id);
  if (previous != in_timer_.end()) {
    timer_->Cancel(**previous);  // A previous timer for the same id.
    Forget(previous);
  }
  // A row of the id waiting to be given back is in the wheel again.
  if (given_back_ids_.erase(entry.id) > 0) {
    given_back_.erase(std::remove_if(given_back_.begin(), given_back_.end(),
                                     [&](const WheelEntry& back) {
                                       return back.id == entry.id;
                                     }),
                      given_back_.end());
  }
  const int64_t now = clock_->NowNanos();
  if (local_due_nanos <= now) return Added::kDueNow;
  TaskPtr<MirrorTask> task = MakeTask<MirrorTask>(router_, entry, kind);
  const absl::Duration delay = absl::Nanoseconds(local_due_nanos - now);
  absl::Status added = timer_->Add(task, delay);
  if (absl::IsResourceExhausted(added)) {
    // Full: the latest task makes room for an earlier entry.
    auto latest = in_timer_.end();
    if (keep_earliest_) {
      if (!by_due_.empty())
        latest = in_timer_.find(by_due_.rbegin()->second->id());
    } else {
      for (auto it = in_timer_.begin(); it != in_timer_.end(); ++it) {
        if (latest == in_timer_.end() ||
            (*it)->due_us() > (*latest)->due_us()) {
          latest = it;
        }
      }
    }
    if (latest == in_timer_.end() || (*latest)->due_us() <= entry.due_us) {
      GiveBack(entry);
      return Added::kGivenBack;
    }
    GiveBack((*latest)->Entry());
    timer_->Cancel(**latest);
    Forget(latest);
    added = timer_->Add(task, delay);
    if (absl::IsResourceExhausted(added)) {
      // The displaced task had come due meanwhile (its place is taken).
      GiveBack(entry);
      return Added::kGivenBack;
    }
  }
  if (!added.ok()) return Added::kClosed;
  if (keep_earliest_) by_due_.insert({task->due_us(), task.get()});
  in_timer_.insert(std::move(task));
  return Added::kInTimer;
}

void WheelMirror::GiveBack(const WheelEntry& entry) {
  given_back_ids_.insert(entry.id);
  given_back_.push_back(entry);
}

bool WheelMirror::Cancel(absl::string_view id) {
  auto it = in_timer_.find(id);
  if (it == in_timer_.end()) return false;
  timer_->Cancel(**it);
  Forget(it);
  return true;
}

bool WheelMirror::TakeFired(const MirrorTask* task) {
  auto it = in_timer_.find(task->id());
  if (it == in_timer_.end() || it->get() != task) return false;
  Forget(it);
  return true;
}

void WheelMirror::DropSlots(const absl::flat_hash_set<int>& slots) {
  for (auto it = in_timer_.begin(); it != in_timer_.end();) {
    if (slots.contains((*it)->slot())) {
      timer_->Cancel(**it);
      Forget(it++);
    } else {
      ++it;
    }
  }
  given_back_.erase(std::remove_if(given_back_.begin(), given_back_.end(),
                                   [&](const WheelEntry& back) {
                                     return slots.contains(back.slot);
                                   }),
                    given_back_.end());
  given_back_ids_.clear();
  for (const WheelEntry& back : given_back_) given_back_ids_.insert(back.id);
}

int64_t WheelMirror::LatestDueUs() const {
  if (keep_earliest_) {
    return by_due_.empty() ? 0 : by_due_.rbegin()->first;
  }
  int64_t latest = 0;
  for (const TaskPtr<MirrorTask>& task : in_timer_) {
    latest = std::max(latest, task->due_us());
  }
  return latest;
}

std::vector<WheelEntry> WheelMirror::TakeGivenBack() {
  std::vector<WheelEntry> taken;
  taken.swap(given_back_);
  given_back_ids_.clear();
  return taken;
}

void WheelMirror::KeepGivenBack(std::vector<WheelEntry> entries) {
  for (WheelEntry& entry : entries) GiveBack(entry);
}

void WheelMirror::Clear() {
  in_timer_.clear();
  by_due_.clear();
  given_back_.clear();
  given_back_ids_.clear();
}

}  // namespace durable_internal
}  // namespace timingwheel
