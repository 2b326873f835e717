// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's maintenance thread: leases, horizon loads, cleanup,
// notifications, reconnecting, and the loop that runs them.

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fault_point.h"
#include "durable/engine/fire_batch.h"
#include "durable/engine/periodic_duties.h"
#include "durable/scheduler_metrics.h"
#include "durable/scheduler_shared.h"

namespace timingwheel {
namespace {

using durable_internal::CheckDuration;
using durable_internal::Completion;
using durable_internal::kLockedRowRetry;
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

void DurableScheduler::Wake() {
  uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof(one));
}

void DurableScheduler::NoteDbError(const absl::Status& status) {
  // Statements wait a little before the next try, so a failing statement
  // never spins.
  backoff_until_ = RealNanos() + absl::ToInt64Nanoseconds(kReconnectBackoff);
  internal::MutexLock lock(mu_);
  ++metrics_.db_errors;
  if (absl::IsUnavailable(status)) store_broken_ = true;
}

void DurableScheduler::ApplyLostSlots() {
  std::vector<int> lost = leases_->DropLost(renewer_->TakeLost());
  if (lost.empty()) return;
  DropSlots(lost);
  internal::MutexLock lock(mu_);
  metrics_.slots_lost += static_cast<int64_t>(lost.size());
}

void DurableScheduler::LeaseRound() {
  // A slot taken now is valid until the renewals' validity at most: take
  // none while they are failing (less than a third of the TTL left).
  const bool may_acquire = renewer_->valid_until_nanos() - RealNanos() >
                           absl::ToInt64Nanoseconds(options_.lease_ttl) / 3;
  // Attempts still running here (fired in a slot this process lost when
  // its renewals timed out) are spared if it takes the slot back. Only
  // this thread fires, so none starts between this list and the statement.
  std::vector<durable_internal::LiveAttempt> live;
  {
    internal::MutexLock lock(mu_);
    live = attempts_.RunningAttempts();
  }
  const SteadyClock::time_point timed = SteadyClock::now();
  balance_again_ = false;
  absl::StatusOr<durable_internal::SlotLeases::Changes> changes =
      leases_->Balance(
          *store_, renewer_->live_nodes(), may_acquire, acquire_limit_,
          [this](int slot) {
            internal::MutexLock lock(mu_);
            return attempts_.SlotIdle(slot);
          },
          live);
  histograms_->ObserveStatement(StatementKind::kLeaseRound, timed);
  if (!changes.ok()) {
    if (absl::IsDeadlineExceeded(changes.status())) {
      // Too many rows to re-stamp within the timeout: fewer slots per
      // statement, and again soon.
      acquire_limit_ = std::max(1, acquire_limit_ / 2);
      balance_again_ = true;
      internal::MutexLock lock(mu_);
      ++metrics_.statement_timeouts;
    }
    NoteDbError(changes.status());
    return;
  }
  if (changes->wants_more) {
    balance_again_ = true;
    // Grow back only while a statement takes under a sixteenth of the TTL
    // (a quarter of the longest statement timeout).
    if (SteadyClock::now() - timed <
        absl::ToChronoNanoseconds(options_.lease_ttl / 16)) {
      acquire_limit_ = std::min(options_.slot_count, acquire_limit_ * 2);
    }
  }
  std::vector<int> dropped;
  for (const SlotEpoch& s : changes->released) dropped.push_back(s.slot);
  DropSlots(dropped);
  internal::MutexLock lock(mu_);
  for (const SlotEpoch& s : changes->acquired) owned_[s.slot] = s.epoch;
  metrics_.slots_acquired += static_cast<int64_t>(changes->acquired.size());
  if (!changes->acquired.empty()) load_requested_ = true;
}

void DurableScheduler::LoadHorizon() {
  std::vector<SlotEpoch> owned = leases_->owned();
  int64_t limit = load_limit_;
  int64_t horizon_us = absl::ToInt64Microseconds(options_.horizon);
  load_retry_at_ = 0;
  {
    internal::MutexLock lock(mu_);
    load_requested_ = false;
    if (!LoadBounds(&limit, &horizon_us)) return;  // scheduler_wheel.cc
  }
  if (owned.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::Claimed> claimed = store_->ClaimDue(
      options_.node_id, owned, horizon_us, limit, options_.retry.max_attempts);
  histograms_->ObserveStatement(StatementKind::kClaimDue, timed);
  const int64_t local_after = clock_->NowNanos();
  if (!claimed.ok()) {
    if (absl::IsDeadlineExceeded(claimed.status())) {
      // Too many rows for one statement within the timeout: fewer next.
      load_limit_ = std::max<int64_t>(100, load_limit_ / 2);
      internal::MutexLock lock(mu_);
      ++metrics_.statement_timeouts;
    }
    NoteDbError(claimed.status());
    internal::MutexLock lock(mu_);
    load_requested_ = true;
    return;
  }
  // Rows left over and a quick statement (under a quarter of the longest
  // statement timeout): claim more per load (each costs about its limit).
  if (claimed->more && limit == load_limit_ &&
      SteadyClock::now() - timed <
          absl::ToChronoNanoseconds(options_.lease_ttl / 16)) {
    load_limit_ = std::min<int64_t>(kMaxLoad, load_limit_ * 2);
  }
  load_db_now_us_ = claimed->db_now_us;
  load_real_nanos_ = RealNanos();
  if (!claimed->tasks.empty()) durable_internal::FaultPoint("load.claimed");
  bool all_held = true;
  for (const WheelEntry& e : claimed->tasks) {
    all_held = AddToWheel(e, claimed->db_now_us, local_after) && all_held;
  }
  internal::MutexLock lock(mu_);
  ++metrics_.loads;
  metrics_.loaded += static_cast<int64_t>(claimed->tasks.size());
  const bool full_load = static_cast<int64_t>(claimed->tasks.size()) >= limit;
  if ((claimed->more || full_load) && !load_waits_for_room_) {
    load_requested_ = true;  // Rows left over, or a full load: load again.
  } else if (full_load && all_held && load_waits_for_room_) {
    // A full wheel took every row claimed in place of later ones: earlier
    // rows may be left.
    load_requested_ = true;
  } else if (claimed->skipped > 0) {
    // Rows another transaction held: again once it has likely ended (a
    // former owner's fire in flight ends within its statement).
    load_retry_at_ = RealNanos() + absl::ToInt64Nanoseconds(kLockedRowRetry);
  }
}

void DurableScheduler::DeleteFinished() {
  std::vector<SlotEpoch> owned = leases_->owned();
  if (owned.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<int64_t> deleted = store_->DeleteFinished(
      owned, absl::ToInt64Microseconds(options_.retain_finished),
      static_cast<int64_t>(kMaxBatch));
  histograms_->ObserveStatement(StatementKind::kDeleteFinished, timed);
  if (!deleted.ok()) {
    NoteDbError(deleted.status());
    return;
  }
  {
    internal::MutexLock lock(mu_);
    metrics_.finished_deleted += *deleted;
  }
  const absl::Duration stale_for =
      std::max(options_.retain_finished, kMinStaleNodeAge);
  absl::StatusOr<int64_t> forgotten = store_->ForgetStaleNodes(
      absl::ToInt64Microseconds(stale_for), static_cast<int64_t>(kMaxBatch));
  if (!forgotten.ok()) NoteDbError(forgotten.status());
}

bool DurableScheduler::Reconnect() {
  if (!store_->Reconnect().ok()) return false;
  // The old session's node lock ended with it. Take it again before any
  // write: a replacement may have taken the id over while this process
  // was stopped (its leases had expired), and then this one must not work
  // beside it, nor take the id back.
  absl::StatusOr<durable_internal::NodeRelock> relock =
      store_->RelockNode(options_.node_id);
  if (!relock.ok()) return false;
  if (*relock == durable_internal::NodeRelock::kTakenByOther) {
    LoseNodeId();
    return false;
  }
  // Our former session still held it (the server had not seen it end): it
  // is ended now; the next try takes the lock.
  if (*relock == durable_internal::NodeRelock::kOwnSession) return false;
  // A fire statement whose reply was lost may have moved rows to RUNNING
  // that no handler of ours runs: put them back.
  std::vector<std::string> running;
  {
    internal::MutexLock lock(mu_);
    running = attempts_.RunningIds();
  }
  // Every statement in flight may have committed without its reply: a
  // load's or a retry's SCHEDULED rows would be in no wheel. Put all our
  // SCHEDULED rows back to PENDING (the load below claims them again) with
  // the RUNNING rows no handler of ours runs.
  durable_internal::FaultPoint("reconnect.before_requeue");
  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(
      options_.node_id, leases_->owned(), running, options_.retry.max_attempts,
      /*include_scheduled=*/true);
  if (!requeued.ok()) return false;
  // Kinds another scheduler may have forgotten while this one was away (an
  // outage past forget_kinds_after): confirmed at once, forgetting none.
  (void)store_->RegisterKinds(options_.node_id, registered_kinds_, -1);
  internal::MutexLock lock(mu_);
  store_broken_ = false;
  ++metrics_.reconnects;
  metrics_.requeued += *requeued;
  load_requested_ = true;
  return true;
}

void DurableScheduler::RequeueUnrecorded() {
  std::vector<std::string> running;
  {
    internal::MutexLock lock(mu_);
    if (!unrecorded_requeue_requested_) return;
    unrecorded_requeue_requested_ = false;
    running = attempts_.RunningIds();
  }
  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(
      options_.node_id, leases_->owned(), running, options_.retry.max_attempts,
      /*include_scheduled=*/true);
  internal::MutexLock lock(mu_);
  if (!requeued.ok()) {
    unrecorded_requeue_requested_ = true;
    lock.Unlock();
    NoteDbError(requeued.status());
    return;
  }
  metrics_.requeued += *requeued;
  load_requested_ = true;
}

void DurableScheduler::LoseNodeId() {
  renewer_->Halt();
  // The slots' epochs have moved on (the replacement took them): every
  // write of ours would be fenced; drop every slot and what the wheel and
  // the fire queue hold of them.
  std::vector<int> dropped = leases_->Forget();
  {
    internal::MutexLock lock(mu_);
    for (const auto& [slot, epoch] : owned_) dropped.push_back(slot);
  }
  std::sort(dropped.begin(), dropped.end());
  dropped.erase(std::unique(dropped.begin(), dropped.end()), dropped.end());
  DropSlots(dropped);
  internal::MutexLock lock(mu_);
  node_lost_ = true;
  metrics_.node_id_lost = 1;
  metrics_.slots_lost += static_cast<int64_t>(dropped.size());
}

void DurableScheduler::RequeueAbandoned() {
  std::vector<std::string> running;
  {
    internal::MutexLock lock(mu_);
    if (!requeue_requested_) return;
    requeue_requested_ = false;
    running = attempts_.RunningIds();
  }
  if (leases_->size() == 0) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(
      options_.node_id, leases_->owned(), running, options_.retry.max_attempts,
      /*include_scheduled=*/false);
  histograms_->ObserveStatement(StatementKind::kRequeueOrphans, timed);
  if (!requeued.ok()) NoteDbError(requeued.status());
  internal::MutexLock lock(mu_);
  if (!requeued.ok()) {
    requeue_requested_ = true;
  } else if (*requeued > 0) {
    metrics_.requeued += *requeued;
    load_requested_ = true;
  }
}

void DurableScheduler::ConsumeNotifications() {
  std::vector<int> slots;
  std::vector<durable_internal::LiveAttempt> stops;
  absl::Status status = store_->DrainNotifications(&slots, &stops);
  if (!status.ok()) {
    NoteDbError(status);
    return;
  }
  if (slots.empty() && stops.empty()) return;
  {
    internal::MutexLock lock(mu_);
    for (const durable_internal::LiveAttempt& stop : stops) {
      attempts_.RaiseStop(stop.id, stop.version);
      // The fire by slot: an attempt held behind its own (not tracked, so
      // RaiseStop() cannot keep its stop) never starts.
      auto held = started_behind_own_.find(stop.id);
      if (held != started_behind_own_.end() &&
          (stop.version == 0 || held->second.version == stop.version)) {
        AbandonStartedLocked(held->second, /*tracked=*/false);
        started_behind_own_.erase(held);
      }
    }
    for (int slot : slots) {
      if (slot == durable_internal::kAllSlots || owned_.contains(slot)) {
        load_requested_ = true;
      }
    }
  }
  if (!stops.empty()) durable_internal::FaultPoint("notify.stops_raised");
}

void DurableScheduler::FinishMaintenance(bool broken) {
  // No heartbeat may follow the node's removal below; the slots still
  // owned (handlers running) keep their leases until the TTL runs out.
  renewer_->Stop();
  // What the outcome writer has not written yet is written below, on the
  // maintenance connection.
  StopOutcomeWriters();
  internal::MutexLock late(late_mu_);
  absl::flat_hash_set<int> busy;
  {
    // From here on, outcomes are written by the handlers' own threads.
    internal::MutexLock lock(mu_);
    maintenance_done_ = true;
  }
  if (!broken) {
    // What was queued before the switch: every batch, while each is written
    // (one that fails stays RUNNING: the slot's next owner runs it again).
    for (;;) {
      size_t left;
      {
        internal::MutexLock lock(mu_);
        left = completed_.size();
      }
      if (left == 0) break;
      WriteCompletions(store_.get(), /*writer=*/-1);
      internal::MutexLock lock(mu_);
      if (completed_.size() >= left) break;
    }
    RequeueAbandoned();
  }
  {
    internal::MutexLock lock(mu_);
    busy = attempts_.BusySlots();
  }
  // Slots with handlers still running stay ours until those handlers
  // return (FinishAttempt() releases them) or the lease runs out.
  std::vector<SlotEpoch> idle;
  for (const SlotEpoch& s : leases_->owned()) {
    if (!busy.contains(s.slot)) idle.push_back(s);
  }
  if (!broken) {
    (void)store_->Release(options_.node_id, idle);
    (void)store_->RemoveNode(options_.node_id);
  }
  std::vector<int> released = leases_->Forget();
  std::vector<int> dropped;
  for (int slot : released) {
    if (!busy.contains(slot)) dropped.push_back(slot);
  }
  DropSlots(dropped);
  internal::MutexLock lock(mu_);
  for (int slot : busy) owned_.erase(slot);
}

void DurableScheduler::ReleaseIdleSlots() {
  absl::flat_hash_set<int> busy;
  {
    internal::MutexLock lock(mu_);
    // An outcome not yet written still needs its slot's epoch: wait.
    if (!completed_.empty() || outcome_writes_in_flight_ > 0) return;
    busy = attempts_.BusySlots();
  }
  std::vector<SlotEpoch> idle;
  for (const SlotEpoch& s : leases_->owned()) {
    if (!busy.contains(s.slot)) idle.push_back(s);
  }
  if (idle.empty()) return;
  absl::Status released = store_->Release(options_.node_id, idle);
  if (!released.ok()) {
    NoteDbError(released);
    return;
  }
  DropSlots(leases_->DropLost(idle));
}

void DurableScheduler::MaintenanceLoop() {
  const int64_t ttl = absl::ToInt64Nanoseconds(options_.lease_ttl);
  const int64_t half_horizon =
      std::max<int64_t>(1, absl::ToInt64Nanoseconds(options_.horizon) / 2);
  // Finished rows are deleted every minute, or every half retention when
  // that is shorter (at most every 100 ms).
  const int64_t cleanup_every = std::max<int64_t>(
      absl::ToInt64Nanoseconds(absl::Milliseconds(100)),
      std::min(absl::ToInt64Nanoseconds(absl::Minutes(1)),
               absl::ToInt64Nanoseconds(options_.retain_finished) / 2));
  // What a healthy round does, in this order; the load also runs when a
  // wake-up or a takeover asks for one (`load_now`, read each round).
  bool load_now = false;
  const int64_t start = RealNanos();
  constexpr int64_t kConfirmKindsEvery = int64_t{10} * 60 * 1000 * 1000 * 1000;
  // The balancing round also runs as soon as the live-node count changes,
  // or a renewal found a lapse passed (a slot may have come free).
  int64_t balanced_for_nodes = renewer_->live_nodes();
  int64_t balanced_for_lapses = renewer_->lapses();
  durable_internal::PeriodicDuties duties;
  // Each duty first tells the renewer that this thread is alive.
  auto alive = [this](std::function<void()> duty) {
    return [this, duty = std::move(duty)] {
      renewer_->NoteProgress();
      duty();
    };
  };
  duties.Add("lease round", ttl / 3, start + ttl / 3,
             alive([this, &balanced_for_nodes, &balanced_for_lapses] {
               balanced_for_nodes = renewer_->live_nodes();
               balanced_for_lapses = renewer_->lapses();
               LeaseRound();
             }),
             [this, &balanced_for_nodes, &balanced_for_lapses] {
               return balance_again_ ||
                      renewer_->live_nodes() != balanced_for_nodes ||
                      renewer_->lapses() != balanced_for_lapses;
             });
  duties.Add("requeue abandoned", 0, 0, alive([this] { RequeueAbandoned(); }));
  duties.Add("horizon load", half_horizon, start + half_horizon, alive([this] {
               if (options_.fire_by_slot) {
                 LoadSlots();
               } else {
                 LoadHorizon();
               }
             }),
             [this, &load_now] {
               return load_now ||
                      (load_retry_at_ != 0 && RealNanos() >= load_retry_at_);
             });
  // Recurring schedules (scheduler_schedules.cc): with each load, and when
  // a schedule's written-ahead occurrences run low (schedule_duty_at_).
  duties.Add("recurring schedules", half_horizon, start + half_horizon,
             alive([this] { RunScheduleDuty(); }), [this, &load_now] {
               return load_now || RealNanos() >= schedule_duty_at_;
             });
  duties.Add("fire", 0, 0, alive([this] {
               if (options_.fire_by_slot) {
                 FireDueSlots();
               } else {
                 FireWaiting();
               }
             }));
  duties.Add("delete finished", cleanup_every, start + cleanup_every,
             alive([this] { DeleteFinished(); }));
  // This scheduler's kinds, confirmed in the registry (Create() registered
  // them), well within forget_kinds_after (at least an hour).
  duties.Add("confirm kinds", kConfirmKindsEvery, start + kConfirmKindsEvery,
             alive([this] { ConfirmKinds(); }));
  int64_t next_reconnect = 0;
  int64_t shutdown_deadline = 0;
  bool shutdown_seen = false;

  for (;;) {
    renewer_->NoteProgress();
    ApplyLostSlots();
    int64_t now = RealNanos();
    bool stopping, broken;
    {
      internal::MutexLock lock(mu_);
      stopping = stopping_;
      broken = store_broken_;
      load_now = load_requested_;
    }
    // The grace (half the TTL unless set) for the handlers; the final
    // statements, each bounded by statement_timeout (a quarter of the TTL
    // at most), fit in another half TTL.
    if (stopping && shutdown_deadline == 0) {
      shutdown_deadline =
          now + (options_.shutdown_grace > absl::ZeroDuration()
                     ? absl::ToInt64Nanoseconds(options_.shutdown_grace)
                     : ttl / 2);
    }

    bool node_lost;
    {
      internal::MutexLock lock(mu_);
      node_lost = node_lost_;
    }
    if (node_lost) {
      // Runs nothing more; waits for Shutdown() (with nothing to write).
      if (stopping) {
        FinishMaintenance(/*broken=*/true);
        return;
      }
      struct pollfd wake = {wake_fd_, POLLIN, 0};
      if (poll(&wake, 1, 1000) > 0) {
        uint64_t count;
        (void)!read(wake_fd_, &count, sizeof(count));
      }
      continue;
    }
    if (broken && now >= next_reconnect) {
      if (Reconnect()) {
        broken = false;
      } else {
        next_reconnect = now + absl::ToInt64Nanoseconds(kReconnectBackoff);
      }
    }
    const bool backing_off = now < backoff_until_;
    if (!broken && !stopping && !backing_off) {
      RequeueUnrecorded();
      {
        internal::MutexLock lock(mu_);
        load_now = load_requested_;
      }
      duties.RunDue(now);
    }
    // The outcomes are written by the outcome writer's thread.
    if (!broken && !backing_off && stopping) {
      AbandonHeldStarted();
      RequeueAbandoned();
    }
    if (!broken && !backing_off) GiveBack();

    if (!stopping && leases_->size() > 0 &&
        now > renewer_->valid_until_nanos()) {
      // Unrenewed for a whole TTL: others may hold our slots by now. Out
      // of `owned_` before the renewer forgets them: a renewal round that
      // then holds none of them still sets a new validity, and an attempt
      // in one of them would pass BeginAttempt() by its old epoch.
      std::vector<int> lost;
      for (const SlotEpoch& s : leases_->owned()) lost.push_back(s.slot);
      DropSlots(lost);
      leases_->Forget();
      durable_internal::FaultPoint("leases.forgotten");
      internal::MutexLock lock(mu_);
      metrics_.slots_lost += static_cast<int64_t>(lost.size());
    }

    if (stopping) {
      if (!shutdown_seen) {
        shutdown_seen = true;
        durable_internal::FaultPoint("shutdown.waiting");
        renewer_->Leave();
      }
      if (!broken) ReleaseIdleSlots();
      bool drained;
      {
        internal::MutexLock lock(mu_);
        // A Shutdown() from inside a handler cannot wait for that handler.
        const int64_t self = shutdown_in_handler_ ? 1 : 0;
        drained = metrics_.in_flight <= self && completed_.empty() &&
                  outcome_writes_in_flight_ == 0 && attempts_.marks_empty() &&
                  !requeue_requested_;
      }
      if (drained || RealNanos() >= shutdown_deadline) {
        FinishMaintenance(broken);
        return;
      }
    }

    // Notifications that arrived while a statement ran sit in libpq's queue
    // (the socket no longer reads as ready): take them before sleeping.
    if (!broken) ConsumeNotifications();

    // Sleep until the next deadline, a wake-up, or a notification.
    int64_t next = duties.NextDue();
    if (broken) next = std::min(next, next_reconnect);
    if (RealNanos() < backoff_until_) next = std::min(next, backoff_until_);
    if (load_retry_at_ != 0) next = std::min(next, load_retry_at_);
    next = std::min(next, schedule_duty_at_);
    if (stopping) next = std::min(next, RealNanos() + 10 * 1000 * 1000);
    int64_t timeout_ms = (next - RealNanos() + 999999) / 1000000;
    timeout_ms = std::max<int64_t>(0, std::min<int64_t>(timeout_ms, 1000));
    if (!broken && RealNanos() >= backoff_until_) {
      internal::MutexLock lock(mu_);
      if (FireReady() && !stopping) timeout_ms = 0;
      if (!retry_slots_.empty() && !stopping) {
        const int64_t retry_ms =
            (slot_retry_at_ - RealNanos() + 999999) / 1000000;
        timeout_ms = std::max<int64_t>(0, std::min(timeout_ms, retry_ms));
      }
      if (load_requested_ && !stopping) timeout_ms = 0;
    }
    pollfd fds[2];
    fds[0] = {wake_fd_, POLLIN, 0};
    int nfds = 1;
    int sock = broken ? -1 : store_->socket();
    if (sock >= 0) {
      fds[1] = {sock, POLLIN, 0};
      nfds = 2;
    }
    if (poll(fds, nfds, static_cast<int>(timeout_ms)) > 0) {
      if (fds[0].revents & POLLIN) {
        uint64_t count;
        (void)!read(wake_fd_, &count, sizeof(count));
      }
      if (nfds == 2 && fds[1].revents != 0) ConsumeNotifications();
    }
  }
}

}  // namespace timingwheel
