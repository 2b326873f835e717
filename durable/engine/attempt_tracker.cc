// Copyright 2026 The timingwheel Authors.

#include "durable/engine/attempt_tracker.h"

#include <iterator>
#include <utility>

namespace timingwheel {
namespace durable_internal {

void AttemptTracker::Fired(const std::string& id, int64_t version, int slot) {
  ++running_per_slot_[slot];
  running_[id] = version;  // The newest attempt of the id.
}

void AttemptTracker::Ended(const std::string& id, int64_t version, int slot) {
  // A newer attempt of the same id (fired after a takeover re-stamped the
  // row, while this one waited on the executor) keeps its entry.
  auto it = running_.find(id);
  if (it != running_.end() && it->second == version) running_.erase(it);
  if (!running_.contains(id)) stops_pending_.erase(id);
  auto count = running_per_slot_.find(slot);
  if (count != running_per_slot_.end() && --count->second <= 0) {
    running_per_slot_.erase(count);
  }
}

bool AttemptTracker::SlotIdle(int slot) const {
  return !running_per_slot_.contains(slot);
}

absl::flat_hash_set<int> AttemptTracker::BusySlots() const {
  absl::flat_hash_set<int> busy;
  for (const auto& [slot, running] : running_per_slot_) busy.insert(slot);
  return busy;
}

std::vector<std::string> AttemptTracker::RunningIds() const {
  std::vector<std::string> ids;
  ids.reserve(running_.size());
  for (const auto& [id, version] : running_) ids.push_back(id);
  return ids;
}

std::vector<LiveAttempt> AttemptTracker::RunningAttempts() const {
  std::vector<LiveAttempt> attempts;
  attempts.reserve(running_.size());
  for (const auto& [id, version] : running_) attempts.push_back({id, version});
  return attempts;
}

bool AttemptTracker::HandlerStarted(StartMark mark, StopFlag stop_flag) {
  stop_flags_[mark.id] = {std::move(stop_flag), mark.version};
  const bool first = marks_.empty();
  marks_.push_back(std::move(mark));
  return first;
}

void AttemptTracker::HandlerReturned(const std::string& id,
                                     const StopFlag& stop_flag) {
  auto flag = stop_flags_.find(id);
  if (flag != stop_flags_.end() && flag->second.flag == stop_flag) {
    stop_flags_.erase(flag);
  }
}

bool AttemptTracker::RaiseStop(const std::string& id, int64_t version) {
  auto handler = stop_flags_.find(id);
  if (handler != stop_flags_.end() &&
      (version == 0 || handler->second.version == version)) {
    handler->second.flag->store(true, std::memory_order_release);
    return true;
  }
  auto fired = running_.find(id);
  if (fired == running_.end() || (version != 0 && fired->second != version)) {
    return false;
  }
  stops_pending_[id] = fired->second;  // Fired; its handler has not started.
  return true;
}

bool AttemptTracker::TakePendingStop(const std::string& id, int64_t version) {
  auto pending = stops_pending_.find(id);
  if (pending == stops_pending_.end() || pending->second != version) {
    return false;
  }
  stops_pending_.erase(pending);
  return true;
}

std::vector<StartMark> AttemptTracker::TakeMarks() {
  std::vector<StartMark> marks;
  marks.swap(marks_);
  return marks;
}

void AttemptTracker::PutBackMarks(std::vector<StartMark> marks) {
  marks_.insert(marks_.begin(), std::make_move_iterator(marks.begin()),
                std::make_move_iterator(marks.end()));
}

}  // namespace durable_internal
}  // namespace timingwheel
