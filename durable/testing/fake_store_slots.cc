// Copyright 2026 The timingwheel Authors.
//
// FakeStore's lease and attempt statements (store_api.h): heartbeats,
// leases and takeover by epoch, the horizon load, the fire, outcomes and
// cleanup. Each runs under the database's mutex.

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "durable/testing/fake_store.h"
#include "durable/testing/fake_store_internal.h"

namespace timingwheel {
namespace durable_testing {

using durable_internal::Claimed;
using durable_internal::CompleteResult;
using durable_internal::Completion;
using durable_internal::FireResult;
using durable_internal::LiveAttempt;
using durable_internal::Outcome;
using durable_internal::SlotEpoch;
using durable_internal::StartMark;
using durable_internal::WheelEntry;
using Task = FakeDatabase::Task;

namespace {

bool InSlots(absl::Span<const SlotEpoch> owned, int slot, int64_t* epoch) {
  for (const SlotEpoch& s : owned) {
    if (s.slot == slot) {
      *epoch = s.epoch;
      return true;
    }
  }
  return false;
}

WheelEntry EntryOf(const std::string& id, const Task& task) {
  return WheelEntry{id,         task.slot, task.due_us,
                    task.epoch, task.kind, task.priority};
}

}  // namespace

bool FakeStore::InOwnedLocked(const std::string& node,
                              absl::Span<const SlotEpoch> owned,
                              const Task& task, bool need_valid,
                              int64_t now_us) {
  int64_t epoch = 0;
  if (!InSlots(owned, task.slot, &epoch)) return false;
  if (task.slot < 0 || task.slot >= static_cast<int>(db_->leases_.size())) {
    return false;
  }
  const FakeDatabase::Lease& lease = db_->leases_[task.slot];
  if (lease.owner != node || lease.epoch != epoch) return false;
  if (need_valid && lease.until_us <= now_us) return false;
  return true;
}

absl::StatusOr<durable_internal::Renewal> FakeStore::Renew(
    const std::string& node, absl::Span<const SlotEpoch> owned, int64_t ttl_us,
    int64_t horizon_us, bool leaving) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Renew");
  const int64_t now_us = db_->NowLocked();
  durable_internal::Renewal renewal;
  // As the statement: the other nodes are counted as they were before this
  // heartbeat.
  renewal.live_nodes = 1;
  for (const auto& [id, heartbeat_us] : db_->nodes_) {
    if (id != node && heartbeat_us > now_us - ttl_us) {
      ++renewal.live_nodes;
      renewal.next_lapse_in_us =
          std::min(renewal.next_lapse_in_us, heartbeat_us + ttl_us - now_us);
    }
  }
  // And the leases of owners no longer live, when the first lapses.
  for (const FakeDatabase::Lease& lease : db_->leases_) {
    if (lease.owner.empty() || lease.owner == node) continue;
    if (lease.until_us <= now_us) continue;
    auto owner = db_->nodes_.find(lease.owner);
    if (owner != db_->nodes_.end() && owner->second > now_us - ttl_us) {
      continue;
    }
    renewal.next_lapse_in_us =
        std::min(renewal.next_lapse_in_us, lease.until_us - now_us);
  }
  if (leaving) {
    db_->nodes_.erase(node);
  } else {
    db_->nodes_[node] = now_us;
  }
  for (const SlotEpoch& s : owned) {
    if (s.slot < 0 || s.slot >= static_cast<int>(db_->leases_.size())) continue;
    FakeDatabase::Lease& lease = db_->leases_[s.slot];
    if (lease.owner != node || lease.epoch != s.epoch) continue;
    if (lease.until_us <= now_us) continue;  // Expired: lost.
    lease.until_us = now_us + ttl_us;
    lease.horizon_us = horizon_us;
    renewal.renewed.push_back(s.slot);
  }
  return renewal;
}

absl::StatusOr<std::vector<SlotEpoch>> FakeStore::Acquire(
    const std::string& node, int count, int64_t ttl_us, int max_attempts,
    int64_t horizon_us, absl::Span<const LiveAttempt> live) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Acquire");
  const int64_t now_us = db_->NowLocked();
  // The highest epoch each slot's claimed rows carry: a new epoch is above
  // it, as the statement's.
  std::vector<int64_t> claimed_epoch(db_->leases_.size(), 0);
  for (const auto& [id, task] : db_->tasks_) {
    if (task.slot >= 0 && task.slot < static_cast<int>(claimed_epoch.size()) &&
        (task.state == TaskState::kScheduled ||
         task.state == TaskState::kRunning)) {
      claimed_epoch[task.slot] = std::max(claimed_epoch[task.slot], task.epoch);
    }
  }
  std::vector<SlotEpoch> taken;
  for (int slot = 0; slot < static_cast<int>(db_->leases_.size()) &&
                     static_cast<int>(taken.size()) < count;
       ++slot) {
    FakeDatabase::Lease& lease = db_->leases_[slot];
    if (!lease.owner.empty() && lease.until_us > now_us) continue;
    lease.epoch = std::max(lease.epoch, claimed_epoch[slot]) + 1;
    lease.owner = node;
    lease.until_us = now_us + ttl_us;
    lease.horizon_us = horizon_us;
    taken.push_back(SlotEpoch{slot, lease.epoch});
  }
  // Re-stamp the RUNNING rows: the former owner's completions match
  // nothing. SCHEDULED rows keep their epoch until the new owner's load.
  // The taker's own live attempts keep running under the new epoch.
  for (auto& entry : db_->tasks_) {
    const std::string& id = entry.first;
    auto& task = entry.second;
    if (task.state != TaskState::kRunning) continue;
    int64_t epoch = 0;
    if (!InSlots(taken, task.slot, &epoch)) continue;
    const int64_t version = task.version;
    const bool spared =
        std::any_of(live.begin(), live.end(), [&](const LiveAttempt& a) {
          return a.id == id && a.version == version;
        });
    if (spared) {
      task.epoch = epoch;
      continue;
    }
    if (task.attempt >= max_attempts) {
      task.state = TaskState::kFailed;
      task.finished_us = now_us;
    } else {
      task.state = TaskState::kPending;
    }
    task.epoch = epoch;
    task.version = db_->next_version_++;
  }
  return taken;
}

absl::Status FakeStore::Release(const std::string& node,
                                absl::Span<const SlotEpoch> slots) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Release");
  for (const SlotEpoch& s : slots) {
    if (s.slot < 0 || s.slot >= static_cast<int>(db_->leases_.size())) continue;
    FakeDatabase::Lease& lease = db_->leases_[s.slot];
    if (lease.owner != node || lease.epoch != s.epoch) continue;
    lease.owner.clear();
    lease.until_us = 0;
  }
  return absl::OkStatus();
}

absl::Status FakeStore::RemoveNode(const std::string& node) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("RemoveNode");
  db_->nodes_.erase(node);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> FakeStore::ForgetStaleNodes(int64_t stale_for_us,
                                                    int64_t limit) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("ForgetStaleNodes");
  const int64_t now_us = db_->NowLocked();
  std::vector<std::pair<int64_t, std::string>> stale;  // Oldest first.
  for (const auto& [node, heartbeat_us] : db_->nodes_) {
    if (heartbeat_us >= now_us - stale_for_us) continue;
    bool names_a_slot = false;
    for (const FakeDatabase::Lease& lease : db_->leases_) {
      names_a_slot = names_a_slot || lease.owner == node;
    }
    if (!names_a_slot) stale.emplace_back(heartbeat_us, node);
  }
  std::sort(stale.begin(), stale.end());
  int64_t deleted = 0;
  for (const auto& [heartbeat_us, node] : stale) {
    if (deleted >= limit) break;
    db_->nodes_.erase(node);
    ++deleted;
  }
  return deleted;
}

absl::StatusOr<int64_t> FakeStore::RequeueOrphans(
    const std::string& node, absl::Span<const SlotEpoch> owned,
    const std::vector<std::string>& running_ids, int max_attempts,
    bool include_scheduled) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("RequeueOrphans");
  const int64_t now_us = db_->NowLocked();
  const absl::flat_hash_set<std::string> running(running_ids.begin(),
                                                 running_ids.end());
  int64_t moved = 0;
  for (auto& [id, task] : db_->tasks_) {
    const bool orphan =
        (task.state == TaskState::kRunning && running.count(id) == 0) ||
        (include_scheduled && task.state == TaskState::kScheduled);
    if (!orphan || !InOwnedLocked(node, owned, task, false, now_us)) continue;
    if (task.epoch != db_->leases_[task.slot].epoch) continue;
    if (task.state == TaskState::kRunning && task.attempt >= max_attempts) {
      task.state = TaskState::kFailed;
      task.finished_us = now_us;
    } else {
      task.state = TaskState::kPending;
    }
    task.version = db_->next_version_++;
    ++moved;
  }
  return moved;
}

absl::StatusOr<int64_t> FakeStore::MarkStarted(
    absl::Span<const StartMark> marks) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("MarkStarted");
  int64_t changed = 0;
  for (const StartMark& m : marks) {
    auto it = db_->tasks_.find(m.id);
    if (it == db_->tasks_.end()) continue;
    Task& task = it->second;
    if (task.state != TaskState::kRunning || task.version != m.version ||
        task.attempt >= m.attempt) {
      continue;
    }
    task.attempt = m.attempt;
    ++changed;
  }
  return changed;
}

absl::StatusOr<Claimed> FakeStore::ClaimDue(const std::string& node,
                                            absl::Span<const SlotEpoch> owned,
                                            int64_t horizon_us, int64_t limit,
                                            int max_attempts) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("ClaimDue");
  const int64_t now_us = db_->NowLocked();
  std::vector<std::pair<int64_t, std::string>> due;
  for (const auto& [id, task] : db_->tasks_) {
    if (task.due_us >= now_us + horizon_us) continue;
    // PENDING, or left claimed by a former owner (another epoch).
    const bool left_by_former =
        (task.state == TaskState::kScheduled ||
         task.state == TaskState::kRunning) &&
        task.slot >= 0 && task.slot < static_cast<int>(db_->leases_.size()) &&
        task.epoch != db_->leases_[task.slot].epoch;
    if (task.state != TaskState::kPending && !left_by_former) continue;
    if (!InOwnedLocked(node, owned, task, true, now_us)) continue;
    due.emplace_back(task.due_us, id);
  }
  std::sort(due.begin(), due.end());
  Claimed claimed;
  if (static_cast<int64_t>(due.size()) > limit) {
    due.resize(limit);
    claimed.more = true;
  }
  for (const auto& [due_us, id] : due) {
    Task& task = db_->tasks_.at(id);
    task.epoch = db_->leases_[task.slot].epoch;
    task.version = db_->next_version_++;
    if (task.state == TaskState::kRunning && task.attempt >= max_attempts) {
      task.state = TaskState::kFailed;
      task.finished_us = now_us;
      continue;
    }
    task.state = TaskState::kScheduled;
    claimed.tasks.push_back(EntryOf(id, task));
  }
  claimed.db_now_us = db_->NowLocked();
  return claimed;
}

absl::StatusOr<int64_t> FakeStore::Unclaim(
    absl::Span<const WheelEntry> entries) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Unclaim");
  int64_t moved = 0;
  for (const WheelEntry& entry : entries) {
    auto it = db_->tasks_.find(entry.id);
    if (it == db_->tasks_.end()) continue;
    Task& task = it->second;
    if (task.state != TaskState::kScheduled || task.epoch != entry.epoch ||
        task.due_us != entry.due_us) {
      continue;
    }
    task.state = TaskState::kPending;
    task.version = db_->next_version_++;
    ++moved;
  }
  return moved;
}

absl::StatusOr<FireResult> FakeStore::StartRunning(
    const std::string& node, absl::Span<const WheelEntry> entries) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("StartRunning");
  const int64_t now_us = db_->NowLocked();
  FireResult result;
  for (const WheelEntry& entry : entries) {
    auto it = db_->tasks_.find(entry.id);
    if (it == db_->tasks_.end()) continue;
    Task& task = it->second;
    if (task.state != TaskState::kScheduled) continue;
    if (task.due_us > now_us) {
      result.not_due.push_back(EntryOf(entry.id, task));
      continue;
    }
    const FakeDatabase::Lease& lease = db_->leases_[task.slot];
    if (!FakeDatabase::Holds(lease, node, task.epoch, now_us)) continue;
    task.state = TaskState::kRunning;
    task.version = db_->next_version_++;
    result.started.push_back(StartedOf(entry.id, task, now_us));
  }
  result.db_now_us = db_->NowLocked();
  return result;
}

absl::StatusOr<CompleteResult> FakeStore::Complete(
    absl::Span<const Completion> completions, int64_t horizon_us,
    const durable_internal::AttemptLog& /*log*/) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Complete");
  return CompleteLocked(completions, horizon_us);
}

CompleteResult FakeStore::CompleteLocked(
    absl::Span<const Completion> completions, int64_t horizon_us) {
  const int64_t now_us = db_->NowLocked();
  CompleteResult result;
  result.db_now_us = now_us;
  for (const Completion& c : completions) {
    auto it = db_->tasks_.find(c.id);
    if (it == db_->tasks_.end()) continue;
    Task& task = it->second;
    if (task.state != TaskState::kRunning || task.version != c.version) {
      continue;
    }
    ++result.written;
    const bool again =
        c.outcome == Outcome::kRetry || c.outcome == Outcome::kSnooze;
    if (c.outcome == Outcome::kSuccess) {
      task.state = TaskState::kSuccess;
      ++result.succeeded;
    } else if (c.outcome == Outcome::kFailed) {
      task.state = TaskState::kFailed;
      task.last_error = c.error;
      ++result.failed;
    } else {
      task.state = c.backoff_us < horizon_us ? TaskState::kScheduled
                                             : TaskState::kPending;
      task.due_us = now_us + c.backoff_us;
      if (c.outcome == Outcome::kRetry || !c.error.empty()) {
        task.last_error = c.error;
      }
      ++result.retried;
    }
    task.finished_us = again ? 0 : now_us;
    task.attempt = c.outcome == Outcome::kSnooze
                       ? std::min(task.attempt, c.attempt - 1)
                       : std::max(task.attempt, c.attempt);
    task.version = db_->next_version_++;
    if (task.state == TaskState::kScheduled) {
      result.retries.push_back(EntryOf(c.id, task));
    }
  }
  return result;
}

absl::StatusOr<int64_t> FakeStore::DeleteFinished(
    absl::Span<const SlotEpoch> owned, int64_t retain_us, int64_t limit) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("DeleteFinished");
  const int64_t now_us = db_->NowLocked();
  int64_t deleted = 0;
  for (auto it = db_->tasks_.begin();
       it != db_->tasks_.end() && deleted < limit;) {
    const Task& task = it->second;
    int64_t epoch = 0;
    const bool finished =
        task.state == TaskState::kSuccess || task.state == TaskState::kFailed;
    if (finished && task.finished_us < now_us - retain_us &&
        InSlots(owned, task.slot, &epoch)) {
      it = db_->tasks_.erase(it);
      ++deleted;
    } else {
      ++it;
    }
  }
  return deleted;
}

}  // namespace durable_testing
}  // namespace timingwheel
