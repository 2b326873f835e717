// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's attempts: firing the due tasks in batches, running
// each attempt's handler on the executor, and ending each attempt (its
// outcome queued for scheduler_outcomes.cc, or written by the handler's
// thread once the maintenance thread has ended).

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
using durable_internal::SaysNothingOfTheRows;
using durable_internal::SlotEpoch;
using durable_internal::Started;
using durable_internal::StatementKind;
using durable_internal::SteadyClock;
using durable_internal::Store;
using durable_internal::tls_handler_of;
using durable_internal::WheelEntry;

}  // namespace

bool DurableScheduler::FireReady() const {
  if (options_.fire_by_slot) return SlotsReady();
  // A free place and a waiting task whose kind has room (FireQueue::Ready()).
  return fire_queue_.Ready(metrics_.in_flight);
}

void DurableScheduler::FireWaiting() {
  std::vector<durable_internal::FireQueue::Waiting> taken;
  std::vector<WheelEntry> batch;
  {
    internal::MutexLock lock(mu_);
    if (!FireReady()) return;
    taken = fire_queue_.Take(metrics_.in_flight, kMaxBatch);
    // One process runs a task once at a time: a row taken from this process
    // while it stalled, and given back, waits for the attempt still running
    // here to end (its outcome is refused; the row keeps the newer claim).
    auto beside = std::stable_partition(
        taken.begin(), taken.end(),
        [this](const durable_internal::FireQueue::Waiting& w)
            ABSL_NO_THREAD_SAFETY_ANALYSIS {
              return !attempts_.Running(w.entry.id);
            });
    for (auto it = beside; it != taken.end(); ++it) {
      fire_queue_.Release(it->kind);
      behind_own_attempt_[it->entry.id] = std::move(*it);
      ++metrics_.held_behind_own_attempt;
    }
    taken.erase(beside, taken.end());
    if (taken.empty()) return;
    metrics_.in_flight += static_cast<int64_t>(taken.size());  // Reserved.
  }
  batch.reserve(taken.size());
  for (const durable_internal::FireQueue::Waiting& w : taken) {
    batch.push_back(w.entry);
  }
  durable_internal::FaultPoint("fire.before");
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::FireResult> result =
      store_->StartRunning(options_.node_id, batch);
  const int64_t local_after = clock_->NowNanos();
  histograms_->ObserveStatement(StatementKind::kStartRunning, timed);
  if (!result.ok()) {
    NoteDbError(result.status());
    internal::MutexLock lock(mu_);
    metrics_.in_flight -= static_cast<int64_t>(batch.size());
    fire_queue_.PutBack(std::move(taken));
    return;
  }
  db_minus_local_nanos_ = result->db_now_us * 1000 - local_after;
  {
    internal::MutexLock lock(mu_);
    const int64_t started = static_cast<int64_t>(result->started.size());
    const int64_t not_due = static_cast<int64_t>(result->not_due.size());
    metrics_.in_flight -= static_cast<int64_t>(batch.size()) - started;
    metrics_.attempts += started;
    metrics_.not_due += not_due;
    metrics_.dropped += static_cast<int64_t>(batch.size()) - started - not_due;
    // The reservations move to the attempts started, by the kind their rows
    // name (released as each attempt ends).
    for (const durable_internal::FireQueue::Waiting& w : taken) {
      fire_queue_.Release(w.kind);
    }
    for (const Started& s : result->started) {
      fire_queue_.Reserve(kinds_->IndexOf(s.task.kind));
      attempts_.Fired(s.task.id, s.version, s.slot);
    }
  }
  for (const WheelEntry& e : result->not_due) {
    AddToWheel(e, result->db_now_us, local_after);
  }
  if (!result->started.empty()) durable_internal::FaultPoint("fire.started");
  ExecuteAttempts(std::move(result->started));
}

void DurableScheduler::ExecuteAttempts(std::vector<Started> attempts) {
  for (Started& s : attempts) {
    executor_->Execute([link = link_, s = std::move(s)]() mutable {
      RunAttemptVia(std::move(link), std::move(s));
    });
  }
}

void DurableScheduler::EndAttemptLocked(const std::string& id, int64_t version,
                                        int slot) {
  attempts_.Ended(id, version, slot);
  // A place, or a place of its kind, is free: due slots are asked again.
  UnparkSlotsLocked();
  // The fire by slot holds a row fired again beside its own attempt still
  // running here (FireDueSlots()): it starts once that attempt has ended.
  auto started = started_behind_own_.find(id);
  if (started != started_behind_own_.end() &&
      started->second.version != version) {
    // Tracked from now on (held, it was not: see FireDueSlots()).
    attempts_.Fired(id, started->second.version, started->second.slot);
    ready_started_.push_back(std::move(started->second));
    started_behind_own_.erase(started);
    Wake();
    return;
  }
  if (attempts_.Running(id)) return;
  auto held = behind_own_attempt_.find(id);
  if (held == behind_own_attempt_.end()) return;
  fire_queue_.Push(std::move(held->second));
  behind_own_attempt_.erase(held);
  Wake();
}

void DurableScheduler::RunAttemptVia(std::shared_ptr<AttemptLink> link,
                                     Started started) {
  DurableScheduler* self = link->Enter();
  // The scheduler is gone: the row stays RUNNING with this attempt
  // uncounted, and the slot's next owner runs it under the same number.
  if (self == nullptr) return;
  // Raised by CancelTask() of this task, or at the deadline; registered by
  // BeginAttempt() under the lock it takes anyway.
  started.task.stop_flag = std::make_shared<std::atomic<bool>>(false);
  const bool run = self->BeginAttempt(started);
  TimerHandle stop_timer;
  const absl::Duration timeout = self->options_.attempt_timeout;
  if (run && timeout > absl::ZeroDuration()) {
    // Raised by the scheduler's own wheel at the deadline.
    started.task.deadline = absl::Now() + timeout;
    stop_timer = self->timer_
                     ->Schedule(timeout,
                                [flag = started.task.stop_flag] {
                                  flag->store(true, std::memory_order_release);
                                })
                     .value_or(TimerHandle());
  }
  link->Leave();
  if (!run) return;
  const int kind = link->kinds->IndexOf(started.task.kind);
  const DurableHandler& handler = link->kinds->handler(kind);
  Completion completion;
  std::chrono::duration<double> handler_took{0};
  if (handler) {
    tls_handler_of = self;
    const SteadyClock::time_point handler_began = SteadyClock::now();
    absl::Status result = durable_internal::RunHandler(handler, started.task);
    handler_took = SteadyClock::now() - handler_began;
    tls_handler_of = nullptr;
    stop_timer.Cancel();
    if (!result.ok() && absl::Now() > started.task.deadline) {
      result = absl::DeadlineExceededError(
          absl::StrCat("attempt timed out after ",
                       absl::FormatDuration(timeout), ": ", result.ToString()));
    }
    durable_internal::FaultPoint("handler.returned");
    completion = durable_internal::MakeCompletion(started, result, link->retry);
  } else {
    // No handler of its kind here (another scheduler registered it): not
    // lost, not failed; due again later, when an owner may have one.
    stop_timer.Cancel();
    completion = durable_internal::UnknownKindCompletion(
        started, link->node_id, link->unknown_kind_delay);
  }
  self = link->Enter();
  if (self == nullptr) return;  // Gone meanwhile (see Shutdown()).
  {
    internal::MutexLock lock(self->mu_);
    self->attempts_.HandlerReturned(started.task.id, started.task.stop_flag);
  }
  if (handler) {
    self->histograms_->ObserveHandler(
        kind, static_cast<int>(completion.outcome), handler_took.count());
  }
  self->FinishAttempt(std::move(completion), started.slot, started.epoch, kind);
  link->Leave();
}

bool DurableScheduler::BeginAttempt(const Started& started) {
  durable_internal::FaultPoint("attempt.before_start");
  internal::MutexLock lock(mu_);
  auto owned = owned_.find(started.slot);
  const bool held = owned != owned_.end() && owned->second == started.epoch &&
                    !stopping_ && RealNanos() < renewer_->valid_until_nanos();
  // A CancelTask() heard between the fire and now: the handler never
  // starts (the row is gone; a newer row of the id is put back by the
  // requeue below).
  const bool stopped =
      attempts_.TakePendingStop(started.task.id, started.version);
  if (!held || stopped) {
    // The process stalled (or the slot moved, or we are shutting down)
    // between the fire and now: another owner may hold the slot and run
    // this attempt. The row stays RUNNING with the attempt uncounted; a
    // requeue (if the slot is still ours) or the next owner runs it.
    EndAttemptLocked(started.task.id, started.version, started.slot);
    --metrics_.in_flight;
    fire_queue_.Release(kinds_->IndexOf(started.task.kind));
    ++metrics_.abandoned;
    requeue_requested_ = true;
    Wake();
    return false;
  }
  // The attempt counts from now: recorded by the next statement the
  // maintenance thread writes (or by its outcome). Its lateness: the start
  // on the database's clock (as of the last fire) minus its due time.
  const int64_t late_us =
      (clock_->NowNanos() + db_minus_local_nanos_.load()) / 1000 -
      absl::ToUnixMicros(started.task.due);
  histograms_->fire_lateness.Observe(std::max<int64_t>(0, late_us) * 1e-6);
  if (attempts_.HandlerStarted(
          {started.task.id, started.version, started.task.attempt},
          started.task.stop_flag)) {
    outcomes_cv_.notify_all();  // The first outcome writer writes it.
  }
  return true;
}

void DurableScheduler::FinishAttempt(Completion completion, int slot,
                                     int64_t epoch, int kind) {
  {
    internal::MutexLock lock(mu_);
    if (kind == kinds_->unknown()) ++metrics_.unknown_kind;
    if (!maintenance_done_) {
      completed_.push_back(std::move(completion));
      --metrics_.in_flight;
      fire_queue_.Release(kind);
      // The outcome writers: the first writes what is queued, the others
      // help past a backlog. A writer re-checks the queue after each write,
      // so only these two sizes need a wake-up.
      if (completed_.size() == 1 ||
          completed_.size() == durable_internal::kOutcomeBacklog) {
        outcomes_cv_.notify_all();
      }
      if (FireReady()) Wake();  // A place is free.
      return;
    }
  }
  // The maintenance thread has ended (Shutdown() stopped waiting for this
  // handler, or was called from it): write the outcome here, then give the
  // slot up if no other handler of ours runs in it.
  internal::MutexLock late(late_mu_);
  const int64_t horizon_us = absl::ToInt64Microseconds(options_.horizon);
  absl::StatusOr<durable_internal::CompleteResult> result =
      store_->Complete({&completion, 1}, horizon_us, AttemptLogOf());
  bool refused = false;
  if (!result.ok() && !SaysNothingOfTheRows(result.status())) {
    // The database refuses the row: the attempt ends FAILED with why.
    refused = true;
    const Completion instead =
        durable_internal::RefusedOutcome(completion, result.status());
    result = store_->Complete({&instead, 1}, horizon_us, AttemptLogOf());
  }
  bool release;
  {
    internal::MutexLock lock(mu_);
    --metrics_.in_flight;
    fire_queue_.Release(kind);
    ++metrics_.late_outcomes;
    if (refused) ++metrics_.outcomes_refused;
    if (result.ok()) {
      metrics_.succeeded += result->succeeded;
      metrics_.failed += result->failed;
      metrics_.retried += result->retried;
      metrics_.dropped += 1 - result->written;
    } else {
      ++metrics_.db_errors;
      // The row stays RUNNING under our epoch, where no load of ours takes
      // it: put it back to PENDING at the next maintenance round.
      requeue_requested_ = true;
    }
    EndAttemptLocked(completion.id, completion.version, slot);
    release = attempts_.SlotIdle(slot);
  }
  if (release) {
    SlotEpoch held{slot, epoch};
    (void)store_->Release(options_.node_id, {&held, 1});
  }
}

}  // namespace timingwheel
