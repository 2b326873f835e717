// Copyright 2026 The timingwheel Authors.
//
// delayed_operation_purgatory.h
// -----------------------------------------------------------------------------
//
// `DelayedOperationPurgatory<Key>` parks `DelayedOperation`s until they can
// complete or their delay passes, in the manner of Apache Kafka's
// DelayedOperationPurgatory:
//
//   * `TryCompleteElseWatch(op, keys)`: try now; if not, start its timer and
//     watch the operation under each key.
//   * `CheckAndComplete(key)`: something changed for `key` (an
//     acknowledgement arrived, bytes were appended): try the operations
//     watched under it.
//   * The purgatory's timer (its own `Timer` with a reaper thread that sleeps
//     while nothing is due, or one the caller shares between purgatories)
//     expires operations whose delay passed.
//
// This file defines `WatchOutcome` (what `TryCompleteElseWatch()` did) and
// `DelayedOperationPurgatory`, and includes `PurgatoryOptions`
// (purgatory_options.h) and `PurgatoryMetrics` (purgatory_metrics.h), so
// that this one include gives users everything. The watch lists are in
// internal/watch_lists.h.
//
// Beyond Kafka: a completed operation leaves every watch list at once (no
// periodic purge, so completed operations never pile up on other keys), and
// empty watch lists are removed; `CancelForKey()` removes the operations
// from every other key and from the timer as well.
//
// Watch lists are sharded by key hash; each shard has its own lock, held only
// for map operations, never while user code runs. No path waits for an
// operation's lock (see delayed_operation.h), so callbacks may call any
// member of the purgatory, including on their own keys.
//
// Guarantees under exceptions: an exception from `TryComplete()`,
// `OnComplete()` or `OnExpiration()` never escapes a member of the purgatory
// (nor its destructor); it goes to `PurgatoryOptions::on_callback_error`.
// Every operation handed in still ends exactly once (completed, expired or
// cancelled), a `CheckAndComplete()` still tries the key's other operations,
// and an operation the purgatory holds is always watched and timed until it
// ends.

#ifndef TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_PURGATORY_H_
#define TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_PURGATORY_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "purgatory/delayed_operation.h"
#include "purgatory/internal/watch_lists.h"
#include "purgatory/purgatory_metrics.h"  // IWYU pragma: export
#include "purgatory/purgatory_options.h"  // IWYU pragma: export
#include "timer/internal/mutex.h"
#include "timer/internal/report_error.h"
#include "timer/timer.h"

namespace timingwheel {

// WatchOutcome
//
// What `TryCompleteElseWatch()` did with an operation it accepted.
enum class WatchOutcome {
  // It completed during the call (`OnComplete()` ran, or, on another
  // thread that completed it meanwhile, ran or is running).
  kCompleted,
  // It is waiting: watched under its keys and on the timer.
  kWatching,
  // It expired during the call: the purgatory (or its timer) shut down, or
  // its delay passed meanwhile (a short delay, a slow try). `OnComplete()`
  // and `OnExpiration()` ran on this thread, or, on the thread that expired
  // it first (the timer's executor, a racing `Shutdown()`), ran or are
  // running.
  kExpired,
  // A concurrent `CancelForKey()` (possibly from its own `TryComplete()`)
  // took it out; no callback ran, and the canceller has it.
  kCancelled,
};

// DelayedOperationPurgatory
//
// Holds delayed operations watched under keys of type `Key` (any type with
// `absl::Hash` support and `operator==` — strings, integers, tuples — or
// supply `Hash` and `Eq`). Create with `Create()`.
//
// Thread safety: every public member is thread-safe and may be called from
// any thread, including from an operation's `TryComplete()`, `OnComplete()`
// and `OnExpiration()` (but the purgatory must not be destroyed from them).
//
// Example:
//   auto purgatory =
//       timingwheel::DelayedOperationPurgatory<std::string>::Create().value();
//   auto produce = timingwheel::MakeTask<DelayedProduce>(absl::Seconds(30),
//                                                       /*needed=*/2, &acks);
//   purgatory->TryCompleteElseWatch(produce, {"topic-0"}).value();
//   ...
//   acks.Add();  // A replica acknowledged.
//   purgatory->CheckAndComplete("topic-0");
template <typename Key, typename Hash = absl::Hash<Key>,
          typename Eq = std::equal_to<Key>>
class DelayedOperationPurgatory final : private internal::OperationOwner {
 public:
  using OperationPtr = TaskPtr<DelayedOperation>;

  // DelayedOperationPurgatory::Create()
  //
  // Returns a new purgatory on `options.shared_timer`, or on a timer of its
  // own with its expiration reaper running, or `absl::InvalidArgumentError`
  // for invalid options (shards < 1, or invalid timer options).
  static absl::StatusOr<std::unique_ptr<DelayedOperationPurgatory>> Create(
      PurgatoryOptions options = PurgatoryOptions()) {
    if (options.shards < 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("timingwheel: purgatory shards must be >= 1, got %d",
                          options.shards));
    }
    if (options.shared_timer != nullptr) {
      return std::unique_ptr<DelayedOperationPurgatory>(
          new DelayedOperationPurgatory(options, nullptr));
    }
    options.timer.start_reaper = true;
    absl::StatusOr<std::unique_ptr<Timer>> timer = Timer::Create(options.timer);
    if (!timer.ok()) return timer.status();
    return std::unique_ptr<DelayedOperationPurgatory>(
        new DelayedOperationPurgatory(options, std::move(*timer)));
  }

  DelayedOperationPurgatory(const DelayedOperationPurgatory&) = delete;
  DelayedOperationPurgatory& operator=(const DelayedOperationPurgatory&) =
      delete;

  // Shuts down (see `Shutdown()`), then waits until no other thread is still
  // inside a callback of one of its operations. Must not run from such a
  // callback (it dies with a message saying so).
  ~DelayedOperationPurgatory() {
    Shutdown();
    anchor_->Close();
  }

  // DelayedOperationPurgatory::TryCompleteElseWatch()
  //
  // Tries to complete `op`; if it cannot, starts its timer (`op->delay()`),
  // watches it under every key in `keys`, and tries once more (closing the
  // race with a concurrent `CheckAndComplete()` between the first try and
  // the watch). Returns what happened to it (see `WatchOutcome`).
  //
  // Errors, after which the purgatory holds no reference to `op` and it is
  // as it was: `absl::InvalidArgumentError` for a null `op` or empty `keys`;
  // `absl::FailedPreconditionError` if `op` is already in a purgatory, has
  // already finished (completed, expired, cancelled), or after `Shutdown()`
  // (no callback of it ran); `absl::ResourceExhaustedError` if the timer's
  // `max_pending` is reached (only the first `TryComplete()` ran, and did
  // not complete it; the caller may hand it in again later). Takes its own
  // reference to `op`, so a callback may drop the caller's (even the very
  // `TaskPtr` passed in). Thread-safe.
  absl::StatusOr<WatchOutcome> TryCompleteElseWatch(
      OperationPtr op, absl::Span<const Key> keys) {
    if (op == nullptr) {
      return absl::InvalidArgumentError(
          "timingwheel: TryCompleteElseWatch() of a null operation");
    }
    if (keys.empty()) {
      return absl::InvalidArgumentError(
          "timingwheel: TryCompleteElseWatch() needs at least one key");
    }
    if (shutdown_.load()) {
      return absl::FailedPreconditionError(
          "timingwheel: purgatory is shut down");
    }
    {
      internal::MutexLock lock(op->watch_mu_);
      if (!op->IsWaiting()) {
        return absl::FailedPreconditionError(
            "timingwheel: the operation has already completed, expired or "
            "been cancelled");
      }
      if (op->anchor_ != nullptr) {
        return absl::FailedPreconditionError(
            "timingwheel: the operation was already handed to a purgatory");
      }
      op->anchor_ = anchor_;
    }
    held_.fetch_add(1, std::memory_order_relaxed);

    op->MaybeTryComplete(*this);
    if (!op->IsWaiting()) return OutcomeOf(*op);

    // The timer before the watch lists: an operation refused by the timer
    // was never visible to CheckAndComplete(), so nothing can have completed
    // it but its owner's own code.
    op->timed_.store(true, std::memory_order_seq_cst);
    absl::Status added = timer_->Add(op, op->delay());
    if (!added.ok()) {
      if (added.code() == absl::StatusCode::kResourceExhausted) {
        return Refuse(*op, std::move(added));
      }
      // The timer is shut down (Shutdown() is running): expire it here.
      op->Expire();
      return OutcomeOf(*op);
    }
    // Finished between the try and the Add(): whoever finished it may have
    // found no timer entry to cancel, or not seen `timed_` (see there).
    if (op->state_.load(std::memory_order_seq_cst) !=
        DelayedOperation::kWaiting) {
      timer_->Cancel(*op);
      return OutcomeOf(*op);
    }
    watch_lists_.Watch(op, keys);
    op->MaybeTryComplete(*this);
    // Shutdown() may have swept the watch lists before this operation was
    // on them.
    if (shutdown_.load() && op->IsWaiting()) op->Expire();
    return OutcomeOf(*op);
  }

  // DelayedOperationPurgatory::TryCompleteElseWatch()
  //
  // Overload for a braced list of keys: `TryCompleteElseWatch(op, {k1, k2})`.
  absl::StatusOr<WatchOutcome> TryCompleteElseWatch(
      OperationPtr op, std::initializer_list<Key> keys) {
    return TryCompleteElseWatch(std::move(op),
                                absl::MakeConstSpan(keys.begin(), keys.size()));
  }

  // DelayedOperationPurgatory::CheckAndComplete()
  //
  // Tries to complete every operation watched under `key`, each under its own
  // lock, with no purgatory lock held, and never waits: an operation whose
  // `TryComplete()` is running on another thread is tried again by that
  // thread before it lets go; one whose `TryComplete()` is running on this
  // thread (a re-entrant call) is not tried again. Returns how many completed
  // in tries this call made. Completed operations leave every watch list; an
  // empty list is removed. An unknown key completes nothing. Exceptions from
  // callbacks go to the error hook, and the other operations are still
  // tried. Thread-safe.
  int CheckAndComplete(const Key& key) {
    return watch_lists_.TryEach(key, [this](DelayedOperation* op) {
      return op->MaybeTryComplete(*this);
    });
  }

  // DelayedOperationPurgatory::CancelForKey()
  //
  // Removes every operation watched under `key` from the purgatory: from
  // this key, from every other key it is watched under, and from the timer.
  // The operations are cancelled, not completed: `IsCancelled()` becomes
  // true, no callback of theirs runs from then on (no `TryComplete()` starts;
  // one already running on another thread finishes and its `ForceComplete()`
  // returns false), `ForceComplete()` on them returns false, and they keep
  // no pointer to the purgatory. They are returned to the caller (who
  // answers the requests), except any that completed or expired
  // concurrently. A `TryCompleteElseWatch()` of such an operation still in
  // progress returns `WatchOutcome::kCancelled`. An unknown key returns
  // nothing. Thread-safe.
  std::vector<OperationPtr> CancelForKey(const Key& key) {
    std::vector<OperationPtr> candidates = watch_lists_.WatchedUnder(key);
    std::vector<OperationPtr> cancelled;
    cancelled.reserve(candidates.size());
    for (OperationPtr& op : candidates) {
      // The final transition: from here no completion, expiration or try of
      // it can start. One that finished meanwhile is not returned (its
      // completion leaves the watch lists by itself).
      if (!op->Transition(OperationState::kCancelled)) continue;
      bool held = false;
      std::unique_ptr<internal::WatchKeysBase> keys;
      {
        internal::MutexLock lock(op->watch_mu_);
        held = op->anchor_ != nullptr;
        op->anchor_.reset();
        keys = std::move(op->watch_keys_);
      }
      if (op->timed_.load(std::memory_order_seq_cst)) timer_->Cancel(*op);
      internal::KeepAlive released;
      watch_lists_.Unwatch(std::move(keys), /*count_as_purged=*/false,
                           released);
      if (held) held_.fetch_sub(1, std::memory_order_relaxed);
      cancelled.push_back(std::move(op));
    }
    return cancelled;
  }

  // DelayedOperationPurgatory::NumDelayed()
  //
  // The number of operations the purgatory holds: handed in and not yet
  // completed, expired or cancelled (nor refused). Thread-safe.
  int64_t NumDelayed() const { return held_.load(std::memory_order_relaxed); }

  // DelayedOperationPurgatory::Watched()
  //
  // The number of watch-list entries (an operation watched under three keys
  // counts three). Completed operations are not counted. Thread-safe.
  int64_t Watched() const { return watch_lists_.watched(); }

  // DelayedOperationPurgatory::Metrics()
  //
  // A snapshot of the counters. Thread-safe.
  PurgatoryMetrics Metrics() const {
    PurgatoryMetrics metrics;
    metrics.delayed = NumDelayed();
    metrics.reaper_wakeups = timer_->Metrics().reaper_wakeups;
    metrics.watched = Watched();
    metrics.completed = completed_.load(std::memory_order_relaxed);
    metrics.expired = expired_.load(std::memory_order_relaxed);
    metrics.purged = watch_lists_.purged();
    metrics.callback_errors = callback_errors_.load(std::memory_order_relaxed);
    metrics.keys = watch_lists_.NumKeys();
    return metrics;
  }

  // DelayedOperationPurgatory::Shutdown()
  //
  // Stops the expiration reaper of its own timer (waiting for expirations
  // already running; a shared timer keeps running), then expires every
  // operation still waiting, exactly once, on the calling thread:
  // `OnComplete()` then `OnExpiration()`, counted in `expired` (exceptions go
  // to the error hook, and the other operations still expire). Then waits until
  // no other thread is inside a callback of one of its operations. Nothing is
  // silently dropped, and no callback of its operations runs after it returns,
  // except on a thread that called into the purgatory concurrently with it: a
  // racing `TryCompleteElseWatch()` expires its operation itself (returning
  // `WatchOutcome::kExpired`). Afterwards `TryCompleteElseWatch()` fails with
  // FailedPrecondition. Idempotent: a call concurrent with the first one
  // returns once the first one has expired every operation. May be called
  // from an operation's callback: it then waits neither for that callback,
  // nor for callbacks running on other threads, nor for a concurrent first
  // call (any of which could be waiting for it). Thread-safe.
  void Shutdown() {
    if (shutdown_.exchange(true)) {
      // A concurrent first call may still be expiring operations.
      anchor_->WaitShutDown();
      return;
    }
    if (owned_timer_ != nullptr) {
      std::vector<TaskPtr<TimerTask>> pending = owned_timer_->Shutdown();
      for (TaskPtr<TimerTask>& task : pending) {
        // Every task of the purgatory's own timer is an operation.
        static_cast<DelayedOperation*>(task.get())->Expire();
      }
    }
    // Every waiting operation is watched (a shared timer stays up: each
    // expiry takes its operation off it), except during a racing
    // TryCompleteElseWatch() between its Add() and its watch: that call
    // expires it itself once it sees the shutdown.
    for (const OperationPtr& op : watch_lists_.AllWatched()) {
      op->Expire();
    }
    anchor_->MarkShutDown();
    anchor_->WaitIdle();
  }

 private:
  DelayedOperationPurgatory(const PurgatoryOptions& options,
                            std::unique_ptr<Timer> timer)
      : owned_timer_(std::move(timer)),
        timer_(owned_timer_ != nullptr ? owned_timer_.get()
                                       : options.shared_timer),
        on_callback_error_(options.on_callback_error),
        watch_lists_(options.shards),
        anchor_(std::make_shared<internal::OwnerAnchor>(
            static_cast<internal::OperationOwner*>(this))) {}

  // What became of an operation this purgatory accepted.
  static WatchOutcome OutcomeOf(const DelayedOperation& op) {
    switch (op.state()) {
      case OperationState::kWaiting:
        return WatchOutcome::kWatching;
      case OperationState::kCompleted:
        return WatchOutcome::kCompleted;
      case OperationState::kExpired:
        return WatchOutcome::kExpired;
      case OperationState::kCancelled:
        break;
    }
    return WatchOutcome::kCancelled;
  }

  // Gives back an operation the timer refused (it is on no watch list).
  absl::StatusOr<WatchOutcome> Refuse(DelayedOperation& op,
                                      absl::Status refusal) {
    std::shared_ptr<internal::OwnerAnchor> anchor;
    {
      internal::MutexLock lock(op.watch_mu_);
      anchor = std::move(op.anchor_);
    }
    // The winner of a concurrent ForceComplete() (the owner's own code) took
    // the anchor first: it does the bookkeeping.
    if (anchor == nullptr) return OutcomeOf(op);
    held_.fetch_sub(1, std::memory_order_relaxed);
    if (op.IsWaiting()) return refusal;  // Free to be handed in again.
    // Completed (not expired: it was on no timer) by a ForceComplete() that
    // will find no anchor: count it here.
    completed_.fetch_add(1, std::memory_order_relaxed);
    return OutcomeOf(op);
  }

  void Detach(DelayedOperation& op, bool expired,
              std::unique_ptr<internal::WatchKeysBase> keys,
              internal::KeepAlive& keep) override {
    // Off the lists first: they hold references, so the timer's may go.
    watch_lists_.Unwatch(std::move(keys), /*count_as_purged=*/true, keep);
    // Never added to the timer (it completed in its first try): no lock.
    if (op.timed_.load(std::memory_order_seq_cst)) timer_->Cancel(op);
    completed_.fetch_add(1, std::memory_order_relaxed);
    if (expired) expired_.fetch_add(1, std::memory_order_relaxed);
    held_.fetch_sub(1, std::memory_order_relaxed);
  }

  void ReportError(std::exception_ptr error) override {
    callback_errors_.fetch_add(1, std::memory_order_relaxed);
    if (!on_callback_error_) {
      internal::ReportUnhandledError(std::move(error),
                                     "a delayed operation's callback",
                                     "PurgatoryOptions::on_callback_error");
      return;
    }
    try {
      on_callback_error_(std::move(error));
    } catch (...) {
      // The hook's own exception is swallowed.
    }
  }

  const std::unique_ptr<Timer> owned_timer_;
  Timer* const timer_;
  const std::function<void(std::exception_ptr)> on_callback_error_;
  internal::WatchLists<Key, Hash, Eq> watch_lists_;
  const std::shared_ptr<internal::OwnerAnchor> anchor_;
  std::atomic<bool> shutdown_{false};
  std::atomic<int64_t> held_{0};
  std::atomic<int64_t> completed_{0};
  std::atomic<int64_t> expired_{0};
  std::atomic<int64_t> callback_errors_{0};
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_PURGATORY_H_
