// Copyright 2026 The timingwheel Authors.
//
// DurableScheduler's outcome writers: threads, each with its own
// connection, that write the start marks and the outcomes of ended
// attempts (in batches, one refused row never holding the others back)
// while the maintenance thread fires on its connection, so that a
// burn-down's fires and completions overlap in the database instead of
// taking turns. The first writer writes whatever is queued; the others help
// only with a backlog (kOutcomeBacklog outcomes queued).

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fault_point.h"
#include "durable/engine/fire_batch.h"
#include "durable/scheduler_metrics.h"
#include "durable/scheduler_shared.h"

namespace timingwheel {
namespace {

using durable_internal::Completion;
using durable_internal::kMaxBatch;
using durable_internal::kOutcomeBacklog;
using durable_internal::kReconnectBackoff;
using durable_internal::RealNanos;
using durable_internal::SaysNothingOfTheRows;
using durable_internal::StatementKind;
using durable_internal::SteadyClock;
using durable_internal::WheelEntry;

static_assert(kMaxOutcomeWriters <= durable_internal::LeaseRenewer::kMaxWorkers,
              "each outcome writer reports its writes to the renewer");

}  // namespace

void DurableScheduler::NoteDbErrorOn(durable_internal::StoreApi* store,
                                     const absl::Status& status) {
  OutcomeWriter* writer = nullptr;
  for (auto& w : outcome_writers_) {
    if (w->store.get() == store) writer = w.get();
  }
  if (writer == nullptr) {
    NoteDbError(status);
    return;
  }
  // A writer's connection: it backs off and reconnects by itself
  // (OutcomeWriterLoop()); the maintenance thread is not stopped.
  writer->backoff_until =
      RealNanos() + absl::ToInt64Nanoseconds(kReconnectBackoff);
  internal::MutexLock lock(mu_);
  ++metrics_.db_errors;
  if (absl::IsUnavailable(status)) {
    writer->broken = true;
    // The statement may have committed without its reply: a retry it put
    // in the wheel (or re-armed a slot for) would then be nowhere. The
    // maintenance thread puts those rows back and loads them
    // (RequeueUnrecorded()).
    unrecorded_requeue_requested_ = true;
    Wake();
  }
}

bool DurableScheduler::OutcomesToWriteLocked(int writer) const {
  if (node_lost_) return false;
  if (writer == 0) return !completed_.empty() || !attempts_.marks_empty();
  return completed_.size() >= kOutcomeBacklog;
}

void DurableScheduler::OutcomeWriterLoop(OutcomeWriter* writer) {
  for (;;) {
    {
      internal::MutexLock lock(mu_);
      for (;;) {
        if (outcome_writers_stop_) return;
        const int64_t wait_nanos = writer->backoff_until - RealNanos();
        if (wait_nanos > 0) {
          outcomes_cv_.wait_for(lock.native(),
                                std::chrono::nanoseconds(wait_nanos));
          continue;
        }
        if (OutcomesToWriteLocked(writer->index)) break;
        outcomes_cv_.wait(lock.native());
      }
    }
    if (writer->broken) {
      if (!writer->store->Reconnect().ok()) {
        writer->backoff_until =
            RealNanos() + absl::ToInt64Nanoseconds(kReconnectBackoff);
        continue;
      }
      writer->broken = false;
      internal::MutexLock lock(mu_);
      ++metrics_.reconnects;
    }
    WriteCompletions(writer->store.get(), writer->index);
    // The attempts ended may have freed places (and unparked slots): the
    // maintenance thread fires again.
    Wake();
  }
}

void DurableScheduler::StopOutcomeWriters() {
  {
    internal::MutexLock lock(mu_);
    outcome_writers_stop_ = true;
  }
  outcomes_cv_.notify_all();
  for (auto& writer : outcome_writers_) {
    if (writer->thread.joinable()) writer->thread.join();
  }
}

void DurableScheduler::WriteStartMarks(
    durable_internal::StoreApi* store,
    const absl::flat_hash_set<std::string>& completing) {
  std::vector<durable_internal::StartMark> marks;
  {
    internal::MutexLock lock(mu_);
    if (attempts_.marks_empty()) return;
    marks = attempts_.TakeMarks();
  }
  // An outcome about to be written records its attempt itself.
  marks.erase(std::remove_if(marks.begin(), marks.end(),
                             [&](const durable_internal::StartMark& m) {
                               return completing.contains(m.id);
                             }),
              marks.end());
  if (marks.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<int64_t> marked = store->MarkStarted(marks);
  histograms_->ObserveStatement(StatementKind::kMarkStarted, timed);
  if (!marked.ok()) {
    NoteDbErrorOn(store, marked.status());
    internal::MutexLock lock(mu_);
    attempts_.PutBackMarks(std::move(marks));
  }
}

void DurableScheduler::WriteCompletions(durable_internal::StoreApi* store,
                                        int writer) {
  std::vector<Completion> batch;
  {
    internal::MutexLock lock(mu_);
    size_t take = std::min(completed_.size(), kMaxBatch);
    batch.assign(std::make_move_iterator(completed_.begin()),
                 std::make_move_iterator(completed_.begin() + take));
    completed_.erase(completed_.begin(), completed_.begin() + take);
    if (!batch.empty()) ++outcome_writes_in_flight_;
  }
  // A full batch taken: more may be queued for the other writers.
  if (batch.size() == kMaxBatch) outcomes_cv_.notify_all();
  absl::flat_hash_set<std::string> completing;
  for (const Completion& c : batch) completing.insert(c.id);
  // A write that hangs past the stall limit costs this process its leases.
  const int work = std::max(0, writer);
  renewer_->NoteWorkBegins(work);
  if (writer <= 0) WriteStartMarks(store, completing);
  if (batch.empty()) {
    renewer_->NoteWorkEnds(work);
    return;
  }
  durable_internal::FaultPoint("outcomes.before");
  std::vector<Completion> unwritten;
  WriteOutcomes(store, std::move(batch), &unwritten);
  renewer_->NoteWorkEnds(work);
  internal::MutexLock lock(mu_);
  --outcome_writes_in_flight_;
  if (unwritten.empty()) return;
  completed_.insert(completed_.begin(),
                    std::make_move_iterator(unwritten.begin()),
                    std::make_move_iterator(unwritten.end()));
  // Sent again later: by the first writer (after its backoff if the
  // failure was on its connection), which may be waiting for work now.
  outcomes_cv_.notify_all();
}

bool DurableScheduler::WriteOutcomes(durable_internal::StoreApi* store,
                                     std::vector<Completion> batch,
                                     std::vector<Completion>* unwritten,
                                     bool retried_alone) {
  const SteadyClock::time_point timed = SteadyClock::now();
  // Recurring schedules' next occurrences commit with their outcomes.
  absl::StatusOr<durable_internal::CompleteResult> result =
      CompleteAndAdvance(store, batch);
  const int64_t local_after = clock_->NowNanos();
  histograms_->ObserveStatement(StatementKind::kComplete, timed);
  if (result.ok()) {
    RecordOutcomes(batch, *result, local_after);
    return true;
  }
  NoteDbErrorOn(store, result.status());
  if (SaysNothingOfTheRows(result.status())) {
    unwritten->insert(unwritten->end(), std::make_move_iterator(batch.begin()),
                      std::make_move_iterator(batch.end()));
    return false;
  }
  if (batch.size() > 1) {
    // The database refused a row of the batch: write the halves apart, so
    // that only the row it refuses is left.
    std::vector<Completion> second(
        std::make_move_iterator(batch.begin() + batch.size() / 2),
        std::make_move_iterator(batch.end()));
    batch.resize(batch.size() / 2);
    if (!WriteOutcomes(store, std::move(batch), unwritten)) {
      unwritten->insert(unwritten->end(),
                        std::make_move_iterator(second.begin()),
                        std::make_move_iterator(second.end()));
      return false;
    }
    return WriteOutcomes(store, std::move(second), unwritten);
  }
  // One row the database refuses, alone, twice (once is a conflict that
  // says nothing, such as a deadlock): its attempt ends FAILED with the
  // refusal (a row of its own, without the values it carried), once.
  if (!retried_alone) {
    return WriteOutcomes(store, std::move(batch), unwritten,
                         /*retried_alone=*/true);
  }
  const Completion refused =
      durable_internal::RefusedOutcome(batch.front(), result.status());
  absl::StatusOr<durable_internal::CompleteResult> recorded = store->Complete(
      {&refused, 1}, absl::ToInt64Microseconds(options_.horizon),
      AttemptLogOf());
  if (!recorded.ok()) {
    NoteDbErrorOn(store, recorded.status());
    if (SaysNothingOfTheRows(recorded.status())) {
      unwritten->push_back(std::move(batch.front()));
      return false;
    }
  }
  internal::MutexLock lock(mu_);
  ++metrics_.outcomes_refused;
  if (!recorded.ok()) {
    // Refused again: the attempt is over here; its row, still RUNNING, is
    // put back by the requeue (FAILED if it was the last attempt).
    EndAttemptLocked(refused.id, refused.version, refused.slot);
    requeue_requested_ = true;
    ++metrics_.dropped;
    return true;
  }
  EndAttemptLocked(refused.id, refused.version, refused.slot);
  metrics_.dropped += 1 - recorded->written;
  metrics_.failed += recorded->failed;
  return true;
}

void DurableScheduler::RecordOutcomes(
    const std::vector<Completion>& batch,
    const durable_internal::CompleteResult& result, int64_t local_after) {
  {
    internal::MutexLock lock(mu_);
    for (const Completion& c : batch) {
      EndAttemptLocked(c.id, c.version, c.slot);
    }
    metrics_.dropped += static_cast<int64_t>(batch.size()) - result.written;
    metrics_.succeeded += result.succeeded;
    metrics_.failed += result.failed;
    metrics_.retried += result.retried;
  }
  if (options_.fire_by_slot) {
    internal::MutexLock lock(mu_);
    for (const WheelEntry& e : result.retries) {
      // A fire in flight read its slots' next rows before this retry was
      // written: its arm of the slot is followed by this one again.
      if (slot_fire_reserved_ > 0 || slot_load_in_flight_) {
        retries_armed_during_read_.push_back(
            {e, result.db_now_us, local_after});
      }
      ArmSlotLocked(e.slot, e.epoch, e.due_us, e.priority, result.db_now_us,
                    local_after, /*exact=*/false);
    }
    return;
  }
  for (const WheelEntry& e : result.retries) {
    AddToWheel(e, result.db_now_us, local_after);
  }
}

}  // namespace timingwheel
