// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's fire by slot (`DurableOptions::fire_by_slot`, the
// planned core of docs/durable-core-plan.md): one wheel task per owned
// slot, armed at the slot's next due time, read without writing a row
// (`StoreApi::NextDueBySlot()`); a due slot's rows are started in one
// statement fenced by its lease, within each kind's free places
// (`StoreApi::FireSlots()`), and the fire's next due times re-arm the
// slots.

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fault_point.h"
#include "durable/engine/fire_batch.h"
#include "durable/engine/slot_naming.h"
#include "durable/scheduler_metrics.h"
#include "durable/scheduler_shared.h"
#include "timer/time_point.h"

namespace timingwheel {
namespace {

using durable_internal::kLockedRowRetry;
using durable_internal::kMaxBatch;
using durable_internal::kNoDueUs;
using durable_internal::RealNanos;
using durable_internal::SlotDue;
using durable_internal::SlotEpoch;
using durable_internal::Started;
using durable_internal::StatementKind;
using durable_internal::SteadyClock;

}  // namespace

void DurableScheduler::ArmSlotLocked(int slot, int64_t epoch, int64_t due_us,
                                     int priority, int64_t db_now_us,
                                     int64_t local_after_nanos, bool exact) {
  if (stopping_) return;
  auto owned = owned_.find(slot);
  if (owned == owned_.end() || owned->second != epoch) return;  // Moved.
  SlotArm& arm = slot_arms_[slot];
  if (arm.epoch != epoch) {
    arm.task.Cancel();
    arm = SlotArm();
    arm.epoch = epoch;
    arm.due_us = kNoDueUs;
  }
  // A row added (not exact) may be the slot's best: its priority counts
  // until the next fire or load says which row the slot gives next.
  arm.priority = exact ? priority : std::max(arm.priority, priority);
  if (!exact && arm.due_us <= due_us) return;  // Armed earlier already.
  arm.task.Cancel();
  arm.task = TimerHandle();
  arm.due_us = due_us;
  if (due_us == kNoDueUs) {  // Nothing waits in the slot.
    slot_arms_.erase(slot);
    return;
  }
  if (due_us <= db_now_us) {
    due_slots_.insert(slot);
    Wake();
    return;
  }
  // Never early on the database's clock (LocalDueNanos()); a wheel that
  // refuses the task (shut down, or full) leaves the slot to the next load.
  const int64_t local_due =
      durable_internal::LocalDueNanos(due_us, db_now_us, local_after_nanos);
  absl::StatusOr<TimerHandle> task =
      timer_->ScheduleAt(TimePoint::FromNanos(local_due),
                         [this, slot, epoch] { OnSlotDue(slot, epoch); });
  if (task.ok()) arm.task = *std::move(task);
}

void DurableScheduler::OnSlotDue(int slot, int64_t epoch) {
  {
    internal::MutexLock lock(mu_);
    auto arm = slot_arms_.find(slot);
    if (arm == slot_arms_.end() || arm->second.epoch != epoch) return;
    const bool first = due_slots_.empty();
    due_slots_.insert(slot);
    if (!first) return;  // The maintenance thread was woken already.
  }
  Wake();
}

void DurableScheduler::AbandonStartedLocked(const Started& started,
                                            bool tracked) {
  // A held attempt was never tracked (its id's entry is the attempt still
  // running here, which must stay tracked: RequeueOrphans() and a retake
  // of the slot spare it by that entry).
  if (tracked) attempts_.Ended(started.task.id, started.version, started.slot);
  --metrics_.in_flight;
  fire_queue_.Release(kinds_->IndexOf(started.task.kind));
  ++metrics_.abandoned;
  requeue_requested_ = true;
  // A place, or a place of its kind, is free: due slots are asked again.
  UnparkSlotsLocked();
}

void DurableScheduler::AbandonHeldStarted() {
  internal::MutexLock lock(mu_);
  if (started_behind_own_.empty() && ready_started_.empty()) return;
  for (const auto& [id, started] : started_behind_own_) {
    AbandonStartedLocked(started, /*tracked=*/false);
  }
  for (const Started& started : ready_started_) {
    AbandonStartedLocked(started, /*tracked=*/true);
  }
  started_behind_own_.clear();
  ready_started_.clear();
}

bool DurableScheduler::SlotsReady() const {
  if (!ready_started_.empty()) return true;
  if (metrics_.in_flight + slot_fire_reserved_ >= options_.max_in_flight) {
    return false;
  }
  return !due_slots_.empty() ||
         (!retry_slots_.empty() && RealNanos() >= slot_retry_at_);
}

void DurableScheduler::UnparkSlotsLocked() {
  ++unparks_;
  due_slots_.insert(parked_slots_.begin(), parked_slots_.end());
  parked_slots_.clear();
  due_slots_.insert(retry_slots_.begin(), retry_slots_.end());
  retry_slots_.clear();
}

void DurableScheduler::LoadSlots() {
  load_retry_at_ = 0;
  std::vector<SlotEpoch> owned = leases_->owned();
  {
    internal::MutexLock lock(mu_);
    load_requested_ = false;
    if (!owned.empty()) slot_load_in_flight_ = true;
  }
  if (owned.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::SlotDues> dues =
      store_->NextDueBySlot(options_.node_id, owned);
  histograms_->ObserveStatement(StatementKind::kClaimDue, timed);
  const int64_t local_after = clock_->NowNanos();
  if (!dues.ok()) {
    NoteDbError(dues.status());
    internal::MutexLock lock(mu_);
    slot_load_in_flight_ = false;
    retries_armed_during_read_.clear();
    load_requested_ = true;
    return;
  }
  internal::MutexLock lock(mu_);
  ++metrics_.loads;
  for (const SlotDue& due : dues->slots) {
    ArmSlotLocked(due.slot, due.epoch, due.next_due_us, due.next_priority,
                  dues->db_now_us, local_after, /*exact=*/true);
  }
  // Retries an outcome writer wrote while this statement ran, after it read
  // their slots: their arms count again (the earlier due wins).
  for (const RetryArm& retry : retries_armed_during_read_) {
    ArmSlotLocked(retry.entry.slot, retry.entry.epoch, retry.entry.due_us,
                  retry.entry.priority, retry.db_now_us,
                  retry.local_after_nanos, /*exact=*/false);
  }
  retries_armed_during_read_.clear();
  slot_load_in_flight_ = false;
}

void DurableScheduler::FireDueSlots() {
  std::vector<Started> ready;
  std::vector<SlotEpoch> slots;
  durable_internal::KindCapacity free;
  int64_t others = 0;
  int64_t limit = 0;
  int floor = std::numeric_limits<int>::min();
  int64_t unparks_before = 0;
  {
    internal::MutexLock lock(mu_);
    ready.swap(ready_started_);
    // The rows held elsewhere may have been taken by that transaction
    // and freed a place meanwhile: every parked slot is asked again.
    if (!retry_slots_.empty() && RealNanos() >= slot_retry_at_) {
      UnparkSlotsLocked();
    }
    if (!stopping_ && SlotsReady()) {
      limit = std::min<int64_t>(options_.max_in_flight - metrics_.in_flight,
                                static_cast<int64_t>(kMaxBatch));
      // The due slots whose next rows have the highest priorities (then
      // the earliest), as many as NameDueSlots() says: a fire reads about
      // a row per slot it names and place it fills. Their rows below the
      // best of the slots not named wait (`floor`): a large fire takes up
      // to 16 rows from each slot named, which must not overtake it.
      std::vector<durable_internal::DueSlotArm> due;
      for (int slot : due_slots_) {
        if (!owned_.contains(slot)) continue;
        auto arm = slot_arms_.find(slot);
        const bool armed = arm != slot_arms_.end();
        due.push_back({slot, armed ? arm->second.priority : 0,
                       armed ? arm->second.due_us : 0});
      }
      for (int slot :
           durable_internal::NameDueSlots(std::move(due), limit, &floor)) {
        slots.push_back(SlotEpoch{slot, owned_.at(slot)});
      }
      for (const auto& [name, index] : kinds_->handled()) {
        free[name] = std::min(limit, fire_queue_.Room(index));
      }
      others = std::min(limit, fire_queue_.Room(kinds_->unknown()));
      // Reserved now: a handler that ends meanwhile must not free a place
      // this fire counted on. Kept apart from `in_flight` (handlers
      // running), which counts only the attempts the fire starts.
      slot_fire_reserved_ = limit;
      unparks_before = unparks_;
    }
  }
  ExecuteAttempts(std::move(ready));
  if (limit <= 0) return;
  durable_internal::FaultPoint("fire.before");
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::SlotFire> fire =
      store_->FireSlots(options_.node_id, slots, free, others, limit, floor);
  const int64_t local_after = clock_->NowNanos();
  histograms_->ObserveStatement(StatementKind::kStartRunning, timed);
  if (!fire.ok()) {
    NoteDbError(fire.status());
    internal::MutexLock lock(mu_);
    slot_fire_reserved_ = 0;
    retries_armed_during_read_.clear();
    return;
  }
  db_minus_local_nanos_ = fire->db_now_us * 1000 - local_after;
  std::vector<Started> run;
  {
    internal::MutexLock lock(mu_);
    const int64_t started = static_cast<int64_t>(fire->started.size());
    slot_fire_reserved_ = 0;
    metrics_.in_flight += started;
    metrics_.attempts += started;
    for (const SlotEpoch& s : slots) due_slots_.erase(s.slot);
    // The slots this fire started attempts in (held ones included); a
    // held attempt from an earlier fire starts nothing now.
    absl::flat_hash_set<int> started_in;
    for (const Started& s : fire->started) started_in.insert(s.slot);
    for (Started& s : fire->started) {
      fire_queue_.Reserve(kinds_->IndexOf(s.task.kind));
      // One process runs a task once at a time: a row taken from this
      // process while it stalled, requeued and fired again waits for the
      // attempt still running here (RUNNING under our epoch meanwhile).
      // The held attempt is tracked only once it is ready to start
      // (EndAttemptLocked()): until then the id's entry stays the attempt
      // still running here, so that nothing requeues its row or fires it
      // beside that attempt if the held one is abandoned.
      const bool behind = attempts_.Running(s.task.id);
      if (!behind) attempts_.Fired(s.task.id, s.version, s.slot);
      if (behind) {
        ++metrics_.held_behind_own_attempt;
        auto held = started_behind_own_.find(s.task.id);
        if (held != started_behind_own_.end()) {
          AbandonStartedLocked(held->second, /*tracked=*/false);  // Superseded.
          held->second = std::move(s);
        } else {
          started_behind_own_.emplace(s.task.id, std::move(s));
        }
      } else {
        run.push_back(std::move(s));
      }
    }
    for (const SlotDue& next : fire->next_due) {
      // Fired early by the process's clock (ahead of the database's), or
      // armed for a row moved later since: nothing was due.
      if (started == 0 && next.next_due_us != kNoDueUs &&
          next.next_due_us > fire->db_now_us) {
        ++metrics_.not_due;
      }
      ArmSlotLocked(next.slot, next.epoch, next.next_due_us, next.next_priority,
                    fire->db_now_us, local_after,
                    /*exact=*/true);
      // Still due and nothing started: its due rows are of kinds at their
      // limits (parked until an attempt ends: EndAttemptLocked()), or
      // another transaction held the rows picked (retried soon: the
      // holder's statement ends within its own), so that the next fires
      // name other due slots and a kind at its limit does not spin. One
      // whose next row is below the fire's floor stays due (left for a
      // higher priority elsewhere, named again by its exact arm), and so
      // does one whose next row came due during the statement, after its
      // due check (not asked for: nothing else would wake the slot).
      if (due_slots_.contains(next.slot) && !started_in.contains(next.slot) &&
          unparks_ == unparks_before && next.next_priority >= floor &&
          next.next_due_us <= fire->checked_us) {
        due_slots_.erase(next.slot);
        if (next.skipped > 0) {
          retry_slots_.insert(next.slot);
          slot_retry_at_ =
              RealNanos() + absl::ToInt64Nanoseconds(kLockedRowRetry);
        } else {
          parked_slots_.insert(next.slot);
        }
      }
    }
    // Retries an outcome writer wrote while this statement ran, after it
    // read their slots: their arms count again (the earlier due wins).
    for (const RetryArm& retry : retries_armed_during_read_) {
      ArmSlotLocked(retry.entry.slot, retry.entry.epoch, retry.entry.due_us,
                    retry.entry.priority, retry.db_now_us,
                    retry.local_after_nanos, /*exact=*/false);
    }
    retries_armed_during_read_.clear();
  }
  if (!run.empty()) durable_internal::FaultPoint("fire.started");
  ExecuteAttempts(std::move(run));
}

}  // namespace timingwheel
