// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's local wheel mirror: the claimed tasks in the
// in-process Timer, a bounded wheel's earliest rows (the later ones given
// back to the store), and the slots dropped.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fault_point.h"
#include "durable/engine/fire_batch.h"
#include "durable/scheduler_metrics.h"
#include "durable/scheduler_shared.h"

namespace timingwheel {
namespace {

using durable_internal::CheckDuration;
using durable_internal::Completion;
using durable_internal::kMaxBatch;
using durable_internal::kMaxLoad;
using durable_internal::kReconnectBackoff;
using durable_internal::RealNanos;
using durable_internal::SlotEpoch;
using durable_internal::Started;
using durable_internal::StatementKind;
using durable_internal::SteadyClock;
using durable_internal::Store;
using durable_internal::tls_handler_of;
using durable_internal::WheelEntry;

}  // namespace

bool DurableScheduler::AddToWheel(const WheelEntry& entry, int64_t db_now_us,
                                  int64_t local_after_nanos) {
  const int64_t local_due = durable_internal::LocalDueNanos(
      entry.due_us, db_now_us, local_after_nanos);
  internal::MutexLock lock(mu_);
  return AddToWheelLocked(entry, local_due);
}

bool DurableScheduler::AddToWheelLocked(const WheelEntry& entry,
                                        int64_t local_due) {
  if (stopping_) return true;
  auto owned = owned_.find(entry.slot);
  if (owned == owned_.end() || owned->second != entry.epoch) {
    return true;  // The slot moved meanwhile: its new owner has the task.
  }
  // A waiting entry of the id is stale (a replacement may have changed its
  // kind): firing it would start the row outside its kind's limit.
  fire_queue_.RemoveId(entry.id);
  behind_own_attempt_.erase(entry.id);
  const int16_t kind = static_cast<int16_t>(kinds_->IndexOf(entry.kind));
  const auto added = wheel_->Add(entry, kind, local_due);
  if (added == durable_internal::WheelMirror::Added::kDueNow) {
    // Due already (a load's overdue rows): waiting at once, beside the
    // others of its load, so the fire picks the highest priority of them.
    if (QueueDueLocked(entry, kind)) Wake();
    return true;
  }
  // A full wheel (timer_options.max_pending) keeps the earliest rows: the
  // entry, or the later task it displaced, goes back to PENDING
  // (GiveBack()), and the first fire that makes room asks for a load.
  if (wheel_->given_back_size() > 0) load_waits_for_room_ = true;
  return added != durable_internal::WheelMirror::Added::kGivenBack;
}

bool DurableScheduler::LoadBounds(int64_t* limit, int64_t* horizon_us) {
  const int64_t max_pending = options_.timer_options.max_pending;
  if (max_pending <= 0) return true;
  const int64_t room = max_pending - static_cast<int64_t>(wheel_->size());
  if (room > 0) {
    // Claim no more than the wheel can hold; the rest stay PENDING until
    // fires make room.
    if (room < *limit) {
      *limit = room;
      load_waits_for_room_ = true;
    }
    return true;
  }
  // Full: only rows due before the latest one held can take its place
  // (AddToWheelLocked()); claim those, on the store's clock as the last
  // load read it.
  load_waits_for_room_ = true;
  const int64_t latest_us = wheel_->LatestDueUs();
  if (latest_us == 0 || load_db_now_us_ == 0) return false;
  const int64_t db_now_us =
      load_db_now_us_ + (RealNanos() - load_real_nanos_) / 1000;
  *horizon_us = std::min(*horizon_us, latest_us - db_now_us);
  *limit = std::min(*limit, max_pending);
  return *horizon_us > 0;
}

void DurableScheduler::GiveBack() {
  std::vector<WheelEntry> back;
  {
    internal::MutexLock lock(mu_);
    if (wheel_->given_back_size() == 0) return;
    back = wheel_->TakeGivenBack();
  }
  absl::StatusOr<int64_t> unclaimed = store_->Unclaim(back);
  if (!unclaimed.ok()) NoteDbError(unclaimed.status());
  internal::MutexLock lock(mu_);
  if (!unclaimed.ok()) {
    wheel_->KeepGivenBack(std::move(back));
    return;
  }
  metrics_.requeued += *unclaimed;
  // PENDING again: loaded when a fire makes room.
  load_waits_for_room_ = true;
}

void DurableScheduler::FireFromWheel(void* self,
                                     durable_internal::MirrorTask* task) {
  static_cast<DurableScheduler*>(self)->OnWheelFire(task);
}

void DurableScheduler::OnWheelFire(durable_internal::MirrorTask* task) {
  bool wake;
  {
    internal::MutexLock lock(mu_);
    // A task cancelled or replaced after it came due: not ours to fire.
    // Else forgotten by the mirror: the timer holds it until Run ends.
    if (!wheel_->TakeFired(task)) return;
    wake = QueueDueLocked(task->Entry(), task->kind());
  }
  if (wake) Wake();
}

bool DurableScheduler::QueueDueLocked(const WheelEntry& entry, int16_t kind) {
  // One wake-up per batch: the maintenance thread takes what accumulated
  // meanwhile in one statement.
  bool wake = fire_queue_.empty();
  durable_internal::FireQueue::Waiting waiting;
  waiting.entry = entry;
  waiting.kind = kind;
  fire_queue_.Push(std::move(waiting));
  // Room in a bounded wheel, or a load cut short by it (or by a slot's
  // share of it): a load at once for the rows left or given back PENDING;
  // else those due already would wait for the next half-horizon round
  // (CapacityTest.RowsLeftOverByASlotsShareOfALoadOfDueRowsFollowAtOnce).
  if (load_waits_for_room_) {
    load_waits_for_room_ = false;
    load_requested_ = true;
    wake = true;
  }
  return wake;
}

void DurableScheduler::DropSlots(const std::vector<int>& slots) {
  if (slots.empty()) return;
  absl::flat_hash_set<int> gone(slots.begin(), slots.end());
  internal::MutexLock lock(mu_);
  for (int slot : slots) {
    owned_.erase(slot);
    auto arm = slot_arms_.find(slot);
    if (arm != slot_arms_.end()) {
      arm->second.task.Cancel();
      slot_arms_.erase(arm);
    }
    due_slots_.erase(slot);
    parked_slots_.erase(slot);
    retry_slots_.erase(slot);
  }
  // Attempts fired in those slots and not started: abandoned (their rows
  // stay RUNNING under the epoch the next owner fences and requeues).
  for (auto it = started_behind_own_.begin();
       it != started_behind_own_.end();) {
    if (gone.contains(it->second.slot)) {
      AbandonStartedLocked(it->second, /*tracked=*/false);
      started_behind_own_.erase(it++);
    } else {
      ++it;
    }
  }
  auto kept =
      std::remove_if(ready_started_.begin(), ready_started_.end(),
                     [&](const Started& s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                       if (!gone.contains(s.slot)) return false;
                       AbandonStartedLocked(s, /*tracked=*/true);
                       return true;
                     });
  ready_started_.erase(kept, ready_started_.end());
  wheel_->DropSlots(gone);
  fire_queue_.RemoveIf([&](const durable_internal::FireQueue::Waiting& w) {
    return gone.contains(w.entry.slot);
  });
  absl::erase_if(behind_own_attempt_, [&](const auto& held) {
    return gone.contains(held.second.entry.slot);
  });
}

}  // namespace timingwheel
