// Copyright 2026 The timingwheel Authors.

#include "durable/engine/fire_queue.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace timingwheel {
namespace durable_internal {

KindTable::KindTable(DurableHandler default_handler,
                     absl::Span<const TaskKind> kinds) {
  handlers_.push_back(std::move(default_handler));
  limits_.push_back(0);
  by_name_[""] = 0;
  for (const TaskKind& kind : kinds) {
    by_name_[kind.name] = static_cast<int>(handlers_.size());
    handlers_.push_back(kind.handler);
    limits_.push_back(kind.max_in_flight);
  }
  handlers_.push_back(nullptr);  // unknown()
  limits_.push_back(0);
  if (!handlers_[0]) by_name_.erase("");
}

int KindTable::IndexOf(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? unknown() : it->second;
}

std::vector<std::string> KindTable::names() const {
  std::vector<std::string> out;
  for (const auto& [name, index] : by_name_) {
    if (!name.empty()) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

FireQueue::FireQueue(int max_in_flight, const KindTable& kinds)
    : max_in_flight_(max_in_flight),
      taken_(kinds.size(), 0),
      waiting_per_kind_(kinds.size(), 0) {
  for (int i = 0; i < kinds.size(); ++i) limits_.push_back(kinds.limit(i));
}

void FireQueue::Count(const Waiting& w, int delta) {
  waiting_per_kind_[w.kind] += delta;
  if (w.entry.priority != 0) prioritized_ += delta;
  auto id = ids_.try_emplace(w.entry.id, 0).first;
  id->second += delta;
  if (id->second <= 0) ids_.erase(id);
}

void FireQueue::Push(Waiting waiting) {
  waiting.entry.kind.clear();
  Count(waiting, 1);
  waiting_.push_back(std::move(waiting));
}

void FireQueue::PutBack(std::vector<Waiting> batch) {
  for (const Waiting& w : batch) {
    Release(w.kind);
    Count(w, 1);
  }
  waiting_.insert(waiting_.begin(), std::make_move_iterator(batch.begin()),
                  std::make_move_iterator(batch.end()));
}

void FireQueue::RemoveIf(const std::function<bool(const Waiting&)>& drop) {
  auto kept =
      std::remove_if(waiting_.begin(), waiting_.end(), [&](const Waiting& w) {
        if (!drop(w)) return false;
        Count(w, -1);
        return true;
      });
  waiting_.erase(kept, waiting_.end());
}

void FireQueue::RemoveId(const std::string& id) {
  if (!ids_.contains(id)) return;
  RemoveIf([&](const Waiting& w) { return w.entry.id == id; });
}

int64_t FireQueue::KindRoom(int kind) const {
  if (limits_[kind] <= 0) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(0, limits_[kind] - taken_[kind]);
}

bool FireQueue::Ready(int64_t in_flight) const {
  if (waiting_.empty()) return false;
  const int64_t room = max_in_flight_ - in_flight;
  if (room <= 0) return false;
  int64_t can_go = 0;
  for (size_t k = 0; k < waiting_per_kind_.size(); ++k) {
    can_go += std::min(waiting_per_kind_[k], KindRoom(static_cast<int>(k)));
  }
  // Fires what fits now: a free place never waits for a bigger batch (the
  // batch is what is already waiting).
  return can_go > 0;
}

std::vector<FireQueue::Waiting> FireQueue::Take(int64_t in_flight, size_t max) {
  std::vector<Waiting> batch;
  int64_t room =
      std::min<int64_t>(max_in_flight_ - in_flight, static_cast<int64_t>(max));
  if (room <= 0 || waiting_.empty()) return batch;
  if (prioritized_ > 0) {
    std::stable_sort(waiting_.begin(), waiting_.end(),
                     [](const Waiting& a, const Waiting& b) {
                       return a.entry.priority > b.entry.priority;
                     });
  }
  std::vector<int64_t> kind_room(taken_.size());
  for (size_t k = 0; k < kind_room.size(); ++k) {
    kind_room[k] = KindRoom(static_cast<int>(k));
  }
  size_t out = 0;
  for (size_t i = 0; i < waiting_.size(); ++i) {
    Waiting& w = waiting_[i];
    if (room > 0 && kind_room[w.kind] > 0) {
      --room;
      --kind_room[w.kind];
      ++taken_[w.kind];
      Count(w, -1);
      batch.push_back(std::move(w));
    } else {
      if (out != i) waiting_[out] = std::move(w);
      ++out;
    }
  }
  waiting_.resize(out);
  return batch;
}

void FireQueue::Release(int kind) {
  if (taken_[kind] > 0) --taken_[kind];
}

}  // namespace durable_internal
}  // namespace timingwheel
