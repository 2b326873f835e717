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
  TaskPtr<MirrorTask> task = MakeTask<MirrorTask>(router_, entry, kind);
  const int64_t delay = local_due_nanos - clock_->NowNanos();
  absl::Status added =
      timer_->Add(task, absl::Nanoseconds(std::max<int64_t>(0, delay)));
  if (!added.ok()) {
    if (absl::IsResourceExhausted(added)) {
      overflow_.emplace_back(entry, local_due_nanos);
      return Added::kFull;
    }
    return Added::kClosed;
  }
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
  overflow_.erase(std::remove_if(overflow_.begin(), overflow_.end(),
                                 [&](const Overflowed& kept) {
                                   return slots.contains(kept.first.slot);
                                 }),
                  overflow_.end());
}

std::vector<WheelMirror::Overflowed> WheelMirror::TakeOverflow() {
  std::vector<Overflowed> taken;
  taken.swap(overflow_);
  return taken;
}

void WheelMirror::KeepInOverflow(std::vector<Overflowed> entries) {
  overflow_.insert(overflow_.end(), std::make_move_iterator(entries.begin()),
                   std::make_move_iterator(entries.end()));
}

void WheelMirror::Clear() {
  in_timer_.clear();
  overflow_.clear();
}

}  // namespace durable_internal
}  // namespace timingwheel
