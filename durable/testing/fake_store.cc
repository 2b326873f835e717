// Copyright 2026 The timingwheel Authors.
//
// The statements of store_api.h over a FakeDatabase: each one runs under the
// database's mutex, so it is atomic as one SQL statement is.

#include "durable/testing/fake_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/testing/fake_store_internal.h"

namespace timingwheel {
namespace durable_testing {

using durable_internal::Claimed;
using durable_internal::CompleteResult;
using durable_internal::Completion;
using durable_internal::FireResult;
using durable_internal::Inserter;
using durable_internal::InsertResult;
using durable_internal::InsertRow;
using durable_internal::Outcome;
using durable_internal::ReplaceResult;
using durable_internal::ReplaceRow;
using durable_internal::ReplaceRule;
using durable_internal::SlotEpoch;
using durable_internal::Started;
using durable_internal::StartMark;
using durable_internal::WheelEntry;
using Task = FakeDatabase::Task;

namespace {

bool Finished(TaskState state) {
  return state == TaskState::kSuccess || state == TaskState::kFailed;
}

WheelEntry EntryOf(const std::string& id, const Task& task) {
  return WheelEntry{id,         task.slot, task.due_us,
                    task.epoch, task.kind, task.priority};
}

}  // namespace

FakeStore::FakeStore(std::shared_ptr<FakeDatabase> db) : db_(std::move(db)) {}

FakeStore::~FakeStore() {
  internal::MutexLock lock(db_->mu_);
  auto it = db_->listeners_.find(this);
  if (it != db_->listeners_.end()) {
    close(it->second->pipe[0]);
    close(it->second->pipe[1]);
    db_->listeners_.erase(it);
  }
  if (!locked_node_.empty()) db_->locked_nodes_.erase(locked_node_);
}

absl::StatusOr<bool> FakeStore::LockNode(const std::string& node) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("LockNode");
  if (locked_node_ == node) return true;
  if (!db_->locked_nodes_.insert(node).second) return false;
  locked_node_ = node;
  return true;
}

absl::StatusOr<durable_internal::NodeRelock> FakeStore::RelockNode(
    const std::string& node) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("RelockNode");
  if (locked_node_ == node) return durable_internal::NodeRelock::kHeld;
  if (!db_->locked_nodes_.insert(node).second) {
    return durable_internal::NodeRelock::kTakenByOther;
  }
  locked_node_ = node;
  return durable_internal::NodeRelock::kHeld;
}

absl::StatusOr<bool> FakeStore::TakeOverNode(const std::string& node,
                                             int64_t ttl_us) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("TakeOverNode");
  (void)node;
  (void)ttl_us;
  return false;
}

absl::Status FakeStore::Reconnect() {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Reconnect");
  return absl::OkStatus();
}

absl::Status FakeStore::EnsureSchema(int slot_count) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("EnsureSchema");
  if (db_->slot_count_ == 0) {
    db_->slot_count_ = slot_count;
    db_->leases_.assign(slot_count, FakeDatabase::Lease());
  } else if (db_->slot_count_ != slot_count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store has ", db_->slot_count_, " slots, not ", slot_count));
  }
  return absl::OkStatus();
}

absl::Status FakeStore::CheckSchema(int slot_count) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("CheckSchema");
  if (db_->slot_count_ == 0) {
    return absl::FailedPreconditionError(
        "no timingwheel store in this database yet, and this process may "
        "not create it: run `twctl migrate`");
  }
  if (db_->slot_count_ != slot_count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store has ", db_->slot_count_, " slots, not ", slot_count));
  }
  return absl::OkStatus();
}

absl::StatusOr<CancelOutcome> FakeStore::CancelTask(const std::string& id) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("CancelTask");
  auto it = db_->tasks_.find(id);
  if (it == db_->tasks_.end()) return CancelOutcome::kNotFound;
  if (Finished(it->second.state)) return CancelOutcome::kFinished;
  const bool running = it->second.state == TaskState::kRunning;
  const int64_t version = it->second.version;
  db_->tasks_.erase(it);
  if (!running) return CancelOutcome::kCancelled;
  db_->StopLocked(id, version);
  return CancelOutcome::kStopRequested;
}

int64_t FakeStore::EpochOfLocked(const std::string& node, int slot,
                                 int64_t now_us) {
  if (node.empty() || slot < 0 ||
      slot >= static_cast<int>(db_->leases_.size())) {
    return 0;
  }
  const FakeDatabase::Lease& lease = db_->leases_[slot];
  return lease.owner == node && lease.until_us > now_us ? lease.epoch : 0;
}

void FakeStore::PlaceLocked(const Inserter& inserter, const std::string& id,
                            int64_t now_us, InsertResult* result,
                            std::set<int>* wake) {
  const Task& task = db_->tasks_.at(id);
  const int64_t epoch = EpochOfLocked(inserter.node_id, task.slot, now_us);
  if (epoch != 0) {
    if (task.due_us < now_us + inserter.horizon_us) {
      WheelEntry entry = EntryOf(id, task);
      entry.epoch = epoch;
      result->mine.push_back(std::move(entry));
    }
    return;
  }
  if (task.slot < 0 || task.slot >= static_cast<int>(db_->leases_.size())) {
    return;
  }
  const FakeDatabase::Lease& lease = db_->leases_[task.slot];
  if (!lease.owner.empty() && task.due_us < now_us + lease.horizon_us) {
    wake->insert(task.slot);
  }
}

absl::StatusOr<InsertResult> FakeStore::Insert(
    const Inserter& inserter, absl::Span<const InsertRow> rows) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Insert");
  return InsertLocked(inserter, rows);
}

absl::StatusOr<InsertResult> FakeStore::InsertLocked(
    const Inserter& inserter, absl::Span<const InsertRow> rows) {
  if (inserter.slot_count != 0 && inserter.slot_count != db_->slot_count_) {
    return absl::FailedPreconditionError("slot count differs from the store's");
  }
  for (const InsertRow& row : rows) {
    if (!row.kind.empty() && db_->kinds_.count(row.kind) == 0) {
      return absl::NotFoundError(
          absl::StrCat("no scheduler handles kind \"", row.kind, "\""));
    }
  }
  const int64_t now_us = db_->NowLocked();
  InsertResult result;
  result.db_now_us = now_us;
  std::vector<std::string> inserted;
  // Checked first, so that a conflict inserts nothing.
  absl::flat_hash_set<std::string> seen;
  for (const InsertRow& row : rows) {
    auto it = db_->tasks_.find(row.id);
    if (it == db_->tasks_.end()) {
      if (!seen.insert(row.id).second) {
        return absl::AlreadyExistsError("task id given twice");
      }
      continue;
    }
    const Task& task = it->second;
    if (task.payload != row.payload ||
        (!row.relative && task.due_us != row.due_or_delay_us)) {
      return absl::AlreadyExistsError("task id exists with another payload");
    }
  }
  for (const InsertRow& row : rows) {
    auto it = db_->tasks_.find(row.id);
    if (it != db_->tasks_.end()) {
      if (it->second.state == TaskState::kPending) {
        WheelEntry entry = EntryOf(row.id, it->second);
        entry.epoch = 0;
        result.identical.push_back(std::move(entry));
      }
      continue;
    }
    Task task;
    task.payload = row.payload;
    task.slot = row.slot;
    task.due_us =
        row.relative ? now_us + row.due_or_delay_us : row.due_or_delay_us;
    task.version = db_->next_version_++;
    task.kind = row.kind;
    task.priority = row.priority;
    db_->tasks_.emplace(row.id, std::move(task));
    inserted.push_back(row.id);
  }
  std::set<int> wake;
  for (const std::string& id : inserted) {
    PlaceLocked(inserter, id, now_us, &result, &wake);
  }
  db_->NotifyLocked(wake);
  return result;
}

absl::StatusOr<ReplaceResult> FakeStore::Replace(
    const Inserter& inserter, absl::Span<const ReplaceRow> rows) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Replace");
  for (const ReplaceRow& r : rows) {
    if (!r.row.kind.empty() && db_->kinds_.count(r.row.kind) == 0) {
      return absl::NotFoundError(
          absl::StrCat("no scheduler handles kind \"", r.row.kind, "\""));
    }
  }
  const int64_t now_us = db_->NowLocked();
  ReplaceResult result;
  result.inserted.db_now_us = now_us;
  std::set<int> wake;
  for (const ReplaceRow& r : rows) {
    const int64_t due_us =
        r.row.relative ? now_us + r.row.due_or_delay_us : r.row.due_or_delay_us;
    durable_internal::ReplaceAnswer answer;
    answer.id = r.row.id;
    auto it = db_->tasks_.find(r.row.id);
    bool write = false;
    if (it == db_->tasks_.end()) {
      write = r.rule != ReplaceRule::kRescheduleOnly;
    } else {
      const Task& task = it->second;
      answer.prior_state = static_cast<int>(task.state);
      if (task.state == TaskState::kRunning) {
        write = false;
      } else if (r.rule == ReplaceRule::kRescheduleOnly) {
        write = !Finished(task.state);
      } else if (r.rule == ReplaceRule::kKeepEarlier && !Finished(task.state)) {
        write = due_us < task.due_us;
      } else if (r.rule == ReplaceRule::kKeepLater && !Finished(task.state)) {
        write = due_us > task.due_us;
      } else {
        write = true;
      }
    }
    if (write) {
      Task& task = db_->tasks_[r.row.id];
      // A payload starts the task afresh, as the store does.
      if (it == db_->tasks_.end() || Finished(task.state) || r.has_payload) {
        task.attempt = 0;
        task.last_error.clear();
      }
      task.finished_us = 0;
      if (r.has_payload) task.payload = r.row.payload;
      if (r.has_payload && r.rule != ReplaceRule::kRescheduleOnly) {
        task.kind = r.row.kind;
        task.priority = r.row.priority;
      }
      task.slot = r.row.slot;
      task.due_us = due_us;
      task.state = TaskState::kPending;
      task.version = db_->next_version_++;
      PlaceLocked(inserter, r.row.id, now_us, &result.inserted, &wake);
    }
    answer.written = write;
    result.answers.push_back(std::move(answer));
  }
  db_->NotifyLocked(wake);
  return result;
}

absl::Status FakeStore::NotifyDue(absl::Span<const WheelEntry> entries) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("NotifyDue");
  const int64_t now_us = db_->NowLocked();
  std::set<int> wake;
  for (const WheelEntry& entry : entries) {
    if (entry.slot < 0 || entry.slot >= static_cast<int>(db_->leases_.size())) {
      continue;
    }
    const FakeDatabase::Lease& lease = db_->leases_[entry.slot];
    if (!lease.owner.empty() && entry.due_us < now_us + lease.horizon_us) {
      wake.insert(entry.slot);
    }
  }
  db_->NotifyLocked(wake);
  return absl::OkStatus();
}

absl::StatusOr<bool> FakeStore::Cancel(const std::string& id) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Cancel");
  auto it = db_->tasks_.find(id);
  if (it == db_->tasks_.end() || it->second.state == TaskState::kRunning ||
      Finished(it->second.state)) {
    return false;
  }
  db_->tasks_.erase(it);
  return true;
}

absl::StatusOr<TaskInfo> FakeStore::Get(const std::string& id) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Get");
  auto it = db_->tasks_.find(id);
  if (it == db_->tasks_.end()) return absl::NotFoundError("no such task");
  const Task& task = it->second;
  TaskInfo info;
  info.state = task.state;
  info.attempt = task.attempt;
  info.due = absl::FromUnixMicros(task.due_us);
  info.slot = task.slot;
  info.last_error = task.last_error;
  info.kind = task.kind;
  info.priority = task.priority;
  return info;
}

absl::StatusOr<int64_t> FakeStore::RegisterKinds(
    const std::string& /*node*/, absl::Span<const std::string> kinds,
    int64_t forget_after_us) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("RegisterKinds");
  const int64_t now_us = db_->NowLocked();
  for (const std::string& kind : kinds) db_->kinds_[kind] = now_us;
  int64_t forgotten = 0;
  if (forget_after_us >= 0) {
    for (auto it = db_->kinds_.begin(); it != db_->kinds_.end();) {
      const bool scheduled = std::any_of(
          db_->schedules_.begin(), db_->schedules_.end(),
          [&](const auto& s) { return s.second.definition.kind == it->first; });
      if (it->second < now_us - forget_after_us && !scheduled) {
        it = db_->kinds_.erase(it);
        ++forgotten;
      } else {
        ++it;
      }
    }
  }
  return forgotten;
}

absl::Status FakeStore::Listen() {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("Listen");
  if (db_->listeners_.count(this) != 0) return absl::OkStatus();
  auto listener = std::make_unique<FakeDatabase::Listener>();
  if (pipe2(listener->pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
    return absl::InternalError("pipe2 failed");
  }
  socket_ = listener->pipe[0];
  db_->listeners_[this] = std::move(listener);
  return absl::OkStatus();
}

absl::Status FakeStore::DrainNotifications(
    std::vector<int>* slots,
    std::vector<durable_internal::LiveAttempt>* stops) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("DrainNotifications");
  auto it = db_->listeners_.find(this);
  if (it == db_->listeners_.end()) return absl::OkStatus();
  FakeDatabase::Listener& listener = *it->second;
  char buffer[256];
  while (read(listener.pipe[0], buffer, sizeof(buffer)) > 0) {
  }
  slots->insert(slots->end(), listener.slots.begin(), listener.slots.end());
  listener.slots.clear();
  if (stops != nullptr) {
    stops->insert(stops->end(), listener.stops.begin(), listener.stops.end());
  }
  listener.stops.clear();
  return absl::OkStatus();
}

durable_internal::StoreFactory FakeStoreFactory(
    std::shared_ptr<FakeDatabase> db) {
  return [db]() -> absl::StatusOr<std::unique_ptr<durable_internal::StoreApi>> {
    return std::unique_ptr<durable_internal::StoreApi>(new FakeStore(db));
  };
}

}  // namespace durable_testing
}  // namespace timingwheel
