// Copyright 2026 The timingwheel Authors.
//
// FakeStore's statements of the planned core (store_api.h,
// docs/durable-core-plan.md step 2): the read-only load, each held slot's
// next due time, and the fire by slot, within each kind's free places. As
// durable/sql/store_slot_fire.cc, which they mirror; row locks are not
// modelled (no row is passed over as locked). Each runs under the
// database's mutex.

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "durable/testing/fake_store.h"
#include "durable/testing/fake_store_internal.h"

namespace timingwheel {
namespace durable_testing {

using durable_internal::KindCapacity;
using durable_internal::kNoDueUs;
using durable_internal::SlotDue;
using durable_internal::SlotDues;
using durable_internal::SlotEpoch;
using durable_internal::SlotFire;
using Task = FakeDatabase::Task;

namespace {

// Waiting for its attempt: PENDING, or SCHEDULED under any epoch.
bool Waiting(const Task& task) {
  return task.state == TaskState::kPending ||
         task.state == TaskState::kScheduled;
}

// The slots of `owned` that `node` holds under the given epoch with a
// valid lease at `now_us`, slot -> epoch.
std::map<int, int64_t> HeldSlots(const std::vector<FakeDatabase::Lease>& leases,
                                 const std::string& node,
                                 absl::Span<const SlotEpoch> owned,
                                 int64_t now_us) {
  std::map<int, int64_t> held;
  for (const SlotEpoch& s : owned) {
    if (s.slot < 0 || s.slot >= static_cast<int>(leases.size())) continue;
    const FakeDatabase::Lease& lease = leases[s.slot];
    if (lease.owner == node && lease.epoch == s.epoch &&
        lease.until_us > now_us) {
      held.emplace(s.slot, s.epoch);
    }
  }
  return held;
}

// Each held slot's earliest waiting row's due time (kNoDueUs: none) and
// the priority of the row it gives next at `now_us`: its highest-priority
// due row, else its earliest.
std::vector<SlotDue> NextDue(const std::map<std::string, Task>& tasks,
                             const std::map<int, int64_t>& held,
                             int64_t now_us) {
  std::map<int, SlotDue> next;
  std::map<int, int> best_due;  // Slot -> highest priority due.
  for (const auto& [slot, epoch] : held) {
    next[slot] = SlotDue{slot, epoch, kNoDueUs, 0, 0};
  }
  for (const auto& [id, task] : tasks) {
    auto it = next.find(task.slot);
    if (it == next.end() || !Waiting(task)) continue;
    if (task.due_us < it->second.next_due_us) {
      it->second.next_due_us = task.due_us;
      it->second.next_priority = task.priority;
    }
    if (task.due_us <= now_us) {
      auto best = best_due.emplace(task.slot, task.priority).first;
      best->second = std::max(best->second, task.priority);
    }
  }
  std::vector<SlotDue> dues;
  for (auto& [slot, due] : next) {
    auto best = best_due.find(slot);
    if (best != best_due.end()) due.next_priority = best->second;
    dues.push_back(due);
  }
  return dues;
}

}  // namespace

absl::StatusOr<SlotDues> FakeStore::NextDueBySlot(
    const std::string& node, absl::Span<const SlotEpoch> owned) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("NextDueBySlot");
  const int64_t now_us = db_->NowLocked();
  SlotDues result;
  result.slots = NextDue(db_->tasks_,
                         HeldSlots(db_->leases_, node, owned, now_us), now_us);
  result.db_now_us = db_->NowLocked();
  return result;
}

absl::StatusOr<SlotFire> FakeStore::FireSlots(const std::string& node,
                                              absl::Span<const SlotEpoch> owned,
                                              const KindCapacity& free_by_kind,
                                              int64_t others_free,
                                              int64_t limit, int min_priority) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("FireSlots");
  const int64_t now_us = db_->NowLocked();
  const std::map<int, int64_t> held =
      HeldSlots(db_->leases_, node, owned, now_us);
  // The due waiting rows of the held slots, in the fire's order (higher
  // priority first, then due time, then id), at most
  // the slot's share of each kind (the limit over the held slots, rounded
  // up, or the whole limit while that reads at most kSlotFireExactRows) and of
  // its free places.
  std::vector<std::tuple<int, int64_t, std::string>> due;
  for (const auto& [id, task] : db_->tasks_) {
    if (held.count(task.slot) == 0 || !Waiting(task)) continue;
    if (task.due_us > now_us || task.priority < min_priority) continue;
    due.emplace_back(-task.priority, task.due_us, id);
  }
  std::sort(due.begin(), due.end());
  const int64_t slots = std::max<int64_t>(1, held.size());
  const int64_t capped = std::max<int64_t>(limit, 0);
  const int64_t share =
      std::max(capped / slots + (capped % slots > 0 ? 1 : 0),
               std::min(capped, durable_internal::kSlotFireExactRows / slots));
  // A task's group: its kind when named, else the kinds not named together
  // (nullopt), and the group's free places.
  const auto group_of = [&](const Task& task) {
    auto free = free_by_kind.find(task.kind);
    if (free != free_by_kind.end()) {
      return std::make_pair(std::optional<std::string>(task.kind),
                            free->second);
    }
    return std::make_pair(std::optional<std::string>(), others_free);
  };
  // Per slot and group.
  std::map<std::pair<int, std::optional<std::string>>, int64_t> per_slot;
  std::vector<std::tuple<int, int64_t, std::string>> candidates;
  for (const auto& row : due) {
    const Task& task = db_->tasks_.at(std::get<2>(row));
    const auto [group, free] = group_of(task);
    int64_t& n = per_slot[{task.slot, group}];
    if (n >= std::min(free, share)) continue;
    ++n;
    candidates.push_back(row);
  }
  due = std::move(candidates);
  std::map<std::optional<std::string>, int64_t> taken;  // Per group.
  SlotFire result;
  for (const auto& [minus_priority, due_us, id] : due) {
    if (static_cast<int64_t>(result.started.size()) >= limit) break;
    Task& task = db_->tasks_.at(id);
    const auto [group, free] = group_of(task);
    if (taken[group] >= free) continue;
    ++taken[group];
    task.state = TaskState::kRunning;
    task.epoch = held.at(task.slot);
    task.version = db_->next_version_++;
    result.started.push_back(StartedOf(id, task, now_us));
  }
  result.next_due = NextDue(db_->tasks_, held, now_us);
  result.checked_us = now_us;
  result.db_now_us = db_->NowLocked();
  return result;
}

}  // namespace durable_testing
}  // namespace timingwheel
