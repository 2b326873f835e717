// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's local wheel mirror: the claimed tasks in the
// in-process Timer, the ones a full wheel refused, and the slots dropped.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/fault_point.h"
#include "durable/fire_batch.h"
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

void DurableScheduler::AddToWheel(const WheelEntry& entry, int64_t db_now_us,
                                  int64_t local_after_nanos) {
  const int64_t local_due = durable_internal::LocalDueNanos(
      entry.due_us, db_now_us, local_after_nanos);
  internal::MutexLock lock(mu_);
  (void)AddToWheelLocked(entry, local_due);
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
  const auto added = wheel_->Add(
      entry, static_cast<int16_t>(kinds_->IndexOf(entry.kind)), local_due);
  if (added == durable_internal::WheelMirror::Added::kFull) {
    // The wheel is full (timer_options.max_pending): the mirror keeps the
    // claimed row, with its due time on our clock, until there is room.
    load_waits_for_room_ = true;
    return false;
  }
  return true;  // In the wheel, or shutting down.
}

void DurableScheduler::RetryOverflow() {
  internal::MutexLock lock(mu_);
  if (wheel_->overflow_size() == 0) return;
  std::vector<durable_internal::WheelMirror::Overflowed> kept =
      wheel_->TakeOverflow();
  for (size_t i = 0; i < kept.size(); ++i) {
    if (!AddToWheelLocked(kept[i].first, kept[i].second)) {
      // Still full (kept[i] is back in the overflow): keep the rest after
      // it, as they were.
      wheel_->KeepInOverflow({std::make_move_iterator(kept.begin() + i + 1),
                              std::make_move_iterator(kept.end())});
      break;
    }
  }
}

void DurableScheduler::FireFromWheel(void* self,
                                     durable_internal::MirrorTask* task) {
  static_cast<DurableScheduler*>(self)->OnWheelFire(task);
}

void DurableScheduler::OnWheelFire(durable_internal::MirrorTask* task) {
  bool first;
  {
    internal::MutexLock lock(mu_);
    // A task cancelled or replaced after it came due: not ours to fire.
    // Else forgotten by the mirror: the timer holds it until Run ends.
    if (!wheel_->TakeFired(task)) return;
    first = fire_queue_.empty();
    durable_internal::FireQueue::Waiting waiting;
    waiting.entry = task->Entry();
    waiting.kind = task->kind();
    fire_queue_.Push(std::move(waiting));
    // Room in a full wheel: take what waited for it (the overflow, then a
    // load for the rows a load left PENDING).
    if (load_waits_for_room_) {
      load_waits_for_room_ = false;
      load_requested_ = true;
      first = true;
    }
  }
  // One wake-up per batch: the maintenance thread takes what accumulated
  // meanwhile in one statement.
  if (first) Wake();
}

void DurableScheduler::DropSlots(const std::vector<int>& slots) {
  if (slots.empty()) return;
  absl::flat_hash_set<int> gone(slots.begin(), slots.end());
  internal::MutexLock lock(mu_);
  for (int slot : slots) owned_.erase(slot);
  wheel_->DropSlots(gone);
  fire_queue_.RemoveIf([&](const durable_internal::FireQueue::Waiting& w) {
    return gone.contains(w.entry.slot);
  });
}

}  // namespace timingwheel
