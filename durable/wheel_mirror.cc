// Copyright 2026 The timingwheel Authors.

#include "durable/wheel_mirror.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_internal {

WheelMirror::Added WheelMirror::Add(const WheelEntry& entry, int16_t kind,
                                    int64_t local_due_nanos) {
  auto previous = in_timer_.find(entry.id);
  if (previous != in_timer_.end()) {
    timer_->Cancel(**previous);  // A previous timer for the same id.
    in_timer_.erase(previous);
  }
  // A row of the id waiting to be given back is in the wheel again.
  given_back_.erase(std::remove_if(given_back_.begin(), given_back_.end(),
                                   [&](const WheelEntry& back) {
                                     return back.id == entry.id;
                                   }),
                    given_back_.end());
  TaskPtr<MirrorTask> task = MakeTask<MirrorTask>(router_, entry, kind);
  const absl::Duration delay = absl::Nanoseconds(
      std::max<int64_t>(0, local_due_nanos - clock_->NowNanos()));
  absl::Status added = timer_->Add(task, delay);
  if (absl::IsResourceExhausted(added)) {
    // Full: the latest task makes room for an earlier entry.
    auto latest = in_timer_.end();
    for (auto it = in_timer_.begin(); it != in_timer_.end(); ++it) {
      if (latest == in_timer_.end() || (*it)->due_us() > (*latest)->due_us()) {
        latest = it;
      }
    }
    if (latest == in_timer_.end() || (*latest)->due_us() <= entry.due_us) {
      given_back_.push_back(entry);
      return Added::kGivenBack;
    }
    given_back_.push_back((*latest)->Entry());
    timer_->Cancel(**latest);
    in_timer_.erase(latest);
    added = timer_->Add(task, delay);
    if (absl::IsResourceExhausted(added)) {
      // The displaced task had come due meanwhile (its place is taken).
      given_back_.push_back(entry);
      return Added::kGivenBack;
    }
  }
  if (!added.ok()) return Added::kClosed;
  in_timer_.insert(std::move(task));
  return Added::kInTimer;
}

bool WheelMirror::Cancel(absl::string_view id) {
  auto it = in_timer_.find(id);
  if (it == in_timer_.end()) return false;
  timer_->Cancel(**it);
  in_timer_.erase(it);
  return true;
}

bool WheelMirror::TakeFired(const MirrorTask* task) {
  auto it = in_timer_.find(task->id());
  if (it == in_timer_.end() || it->get() != task) return false;
  in_timer_.erase(it);
  return true;
}

void WheelMirror::DropSlots(const absl::flat_hash_set<int>& slots) {
  for (auto it = in_timer_.begin(); it != in_timer_.end();) {
    if (slots.contains((*it)->slot())) {
      timer_->Cancel(**it);
      in_timer_.erase(it++);
    } else {
      ++it;
    }
  }
  given_back_.erase(std::remove_if(given_back_.begin(), given_back_.end(),
                                   [&](const WheelEntry& back) {
                                     return slots.contains(back.slot);
                                   }),
                    given_back_.end());
}

int64_t WheelMirror::LatestDueUs() const {
  int64_t latest = 0;
  for (const TaskPtr<MirrorTask>& task : in_timer_) {
    latest = std::max(latest, task->due_us());
  }
  return latest;
}

std::vector<WheelEntry> WheelMirror::TakeGivenBack() {
  std::vector<WheelEntry> taken;
  taken.swap(given_back_);
  return taken;
}

void WheelMirror::KeepGivenBack(std::vector<WheelEntry> entries) {
  given_back_.insert(given_back_.end(),
                     std::make_move_iterator(entries.begin()),
                     std::make_move_iterator(entries.end()));
}

void WheelMirror::Clear() {
  in_timer_.clear();
  given_back_.clear();
}

}  // namespace durable_internal
}  // namespace timingwheel
