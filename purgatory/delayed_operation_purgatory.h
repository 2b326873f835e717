// Copyright 2026 The timingwheel Authors.
//
// delayed_operation_purgatory.h
// -----------------------------------------------------------------------------
//
// `DelayedOperationPurgatory<Key>` parks `DelayedOperation`s until they can
// complete or their delay passes, in the manner of Apache Kafka's
// DelayedOperationPurgatory:
//
//   * `TryCompleteElseWatch(op, keys)`: try now; if not, watch the operation
//     under each key and start its timer.
//   * `CheckAndComplete(key)`: something changed for `key` (an
//     acknowledgement arrived, bytes were appended): try the operations
//     watched under it.
//   * The purgatory's own timer (a `Timer` with its reaper thread, which
//     sleeps while nothing is due) expires operations whose delay passed.
//
// Beyond Kafka: a completed operation leaves every watch list at once (no
// periodic purge, so completed operations never pile up on other keys), and
// empty watch lists are removed; `CancelForKey()` removes the operations
// from every other key and from the timer as well.
//
// Watch lists are sharded by key hash; each shard has its own lock, held only
// for map operations, never while user code runs (see the lock order in
// delayed_operation.h).

#ifndef TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_PURGATORY_H_
#define TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_PURGATORY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "purgatory/delayed_operation.h"
#include "timer/timer.h"

namespace timingwheel {

// PurgatoryOptions
//
// How a `DelayedOperationPurgatory` is built.
struct PurgatoryOptions {
  // Watch-list shards; keys in different shards never contend. At least 1.
  int shards = 32;

  // The purgatory's timer. Its reaper is always started (the purgatory's
  // expiration reaper); tick, wheel size, clock, executor (where expirations
  // run) and max_pending are used as given.
  TimerOptions timer;
};

// PurgatoryMetrics
//
// A snapshot of a purgatory's counters (see `Metrics()`).
struct PurgatoryMetrics {
  int64_t delayed = 0;         // Operations waiting on the timer now.
  int64_t watched = 0;         // Watch-list entries now (an operation per key).
  int64_t keys = 0;            // Keys with a non-empty watch list now.
  int64_t completed = 0;       // Operations completed (including expired ones).
  int64_t expired = 0;         // Operations completed by their delay passing.
  int64_t purged = 0;          // Watch entries removed because their operation
                               // completed (through another key or the timer).
  int64_t reaper_wakeups = 0;  // Wake-ups of the expiration reaper.
};

// DelayedOperationPurgatory
//
// Holds delayed operations watched under keys of type `Key` (any type with
// `absl::Hash` support and `operator==` — strings, integers, tuples — or
// supply `Hash` and `Eq`). Create with `Create()`.
//
// Thread safety: every public member is thread-safe and may be called from
// any thread, including from an operation's `TryComplete()`, `OnComplete()`
// and `OnExpiration()`.
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
  // Returns a new purgatory with its expiration reaper running, or
  // `absl::InvalidArgumentError` for invalid options (shards < 1, or invalid
  // timer options).
  static absl::StatusOr<std::unique_ptr<DelayedOperationPurgatory>> Create(
      PurgatoryOptions options = PurgatoryOptions()) {
    if (options.shards < 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("timingwheel: purgatory shards must be >= 1, got %d",
                          options.shards));
    }
    options.timer.start_reaper = true;
    absl::StatusOr<std::unique_ptr<Timer>> timer = Timer::Create(options.timer);
    if (!timer.ok()) return timer.status();
    return std::unique_ptr<DelayedOperationPurgatory>(
        new DelayedOperationPurgatory(options.shards, std::move(*timer)));
  }

  DelayedOperationPurgatory(const DelayedOperationPurgatory&) = delete;
  DelayedOperationPurgatory& operator=(const DelayedOperationPurgatory&) =
      delete;

  // Shuts down (see `Shutdown()`).
  ~DelayedOperationPurgatory() { Shutdown(); }

  // DelayedOperationPurgatory::TryCompleteElseWatch()
  //
  // Tries to complete `op`; if it cannot, watches it under every key in
  // `keys`, tries once more (closing the race with a concurrent
  // `CheckAndComplete()` between the first try and the watch), and only then
  // starts its timer (`op->delay()`). Returns true if the operation completed
  // before this call returned, false if it is now waiting.
  //
  // Errors: `absl::CancelledError` if `CancelForKey()` took the operation
  // out during the call (or before it); `absl::InvalidArgumentError` for a
  // null `op` or empty `keys`
  // (nothing happens); `absl::FailedPreconditionError` if `op` already
  // belongs to another purgatory or was already handed to this one, or after
  // `Shutdown()` (nothing happens), or if the purgatory shut down during the
  // call (the operation has then been expired: `OnComplete()` and
  // `OnExpiration()` ran on this thread); `absl::ResourceExhaustedError` if
  // the timer's `max_pending` is reached (the operation is not watched and
  // not completed; the caller may hand it in again later). Thread-safe.
  absl::StatusOr<bool> TryCompleteElseWatch(const OperationPtr& op,
                                            absl::Span<const Key> keys) {
    if (op == nullptr) {
      return absl::InvalidArgumentError(
          "timingwheel: TryCompleteElseWatch() of a null operation");
    }
    if (keys.empty()) {
      return absl::InvalidArgumentError(
          "timingwheel: TryCompleteElseWatch() needs at least one key");
    }
    if (shutdown_.load(std::memory_order_acquire)) {
      return absl::FailedPreconditionError(
          "timingwheel: purgatory is shut down");
    }
    if (op->IsCancelled()) return Finished(*op);
    internal::OperationOwner* expected = nullptr;
    if (!op->owner_.compare_exchange_strong(expected, this,
                                            std::memory_order_acq_rel)) {
      return absl::FailedPreconditionError(
          "timingwheel: the operation was already handed to a purgatory");
    }
    op->timer_.store(timer_.get(), std::memory_order_release);

    if (op->TryCompleteLocked()) return true;

    {
      std::lock_guard<std::mutex> watch_lock(op->watch_mu_);
      if (!op->IsWaiting()) return Finished(*op);  // By another thread.
      auto watch_keys = std::make_unique<WatchKeys>();
      watch_keys->keys.reserve(keys.size());
      for (const Key& key : keys) {
        Shard& shard = ShardFor(key);
        std::lock_guard<std::mutex> shard_lock(shard.mu);
        auto& watchers = shard.watchers[key];
        if (watchers.emplace(op.get(), op).second) {
          watch_keys->keys.push_back(key);
          watched_.fetch_add(1, std::memory_order_relaxed);
        }
      }
      op->watch_keys_ = std::move(watch_keys);
    }

    if (op->TryCompleteLocked()) return true;
    if (!op->IsWaiting()) return Finished(*op);

    absl::Status added = timer_->Add(op, op->delay());
    if (!added.ok()) {
      if (added.code() == absl::StatusCode::kFailedPrecondition) {
        // Shut down while we were watching: expire it, as Shutdown() does.
        op->Run();
        return added;
      }
      // Over max_pending: leave the operation as it was handed to us, free
      // to be handed in again later (unless it finished meanwhile).
      if (!op->IsWaiting()) return Finished(*op);
      Unwatch(*op, /*count_as_purged=*/false);
      op->timer_.store(nullptr, std::memory_order_release);
      op->owner_.store(nullptr, std::memory_order_release);
      return added;
    }
    // Completed or cancelled between the last try and the Add(): its
    // ForceComplete() or CancelForKey() may have found no timer entry.
    if (!op->IsWaiting()) {
      timer_->Cancel(*op);
      return Finished(*op);
    }
    return false;
  }

  // DelayedOperationPurgatory::TryCompleteElseWatch()
  //
  // Overload for a braced list of keys: `TryCompleteElseWatch(op, {k1, k2})`.
  absl::StatusOr<bool> TryCompleteElseWatch(const OperationPtr& op,
                                            std::initializer_list<Key> keys) {
    return TryCompleteElseWatch(op,
                                absl::MakeConstSpan(keys.begin(), keys.size()));
  }

  // DelayedOperationPurgatory::CheckAndComplete()
  //
  // Tries to complete every operation watched under `key` (each under its own
  // lock, with no purgatory lock held). Returns how many this call completed.
  // Completed operations leave every watch list; an empty list is removed.
  // An unknown key completes nothing. Thread-safe.
  int CheckAndComplete(const Key& key) {
    std::vector<OperationPtr> candidates;
    {
      Shard& shard = ShardFor(key);
      std::lock_guard<std::mutex> lock(shard.mu);
      auto it = shard.watchers.find(key);
      if (it == shard.watchers.end()) return 0;
      candidates.reserve(it->second.size());
      for (const auto& entry : it->second) candidates.push_back(entry.second);
    }
    int completed = 0;
    for (const OperationPtr& op : candidates) {
      if (op->IsCompleted()) continue;
      if (op->TryCompleteLocked()) ++completed;
    }
    return completed;
  }

  // DelayedOperationPurgatory::CancelForKey()
  //
  // Removes every operation watched under `key` from the purgatory: from
  // this key, from every other key it is watched under, and from the timer.
  // The operations are cancelled, not completed: `IsCancelled()` becomes
  // true, no callback of theirs ever runs, `ForceComplete()` on them returns
  // false, and they keep no pointer to the purgatory. They are returned to
  // the caller (who answers the requests), except any that completed
  // concurrently. A `TryCompleteElseWatch()` of such an operation still in
  // progress returns `absl::CancelledError`. An unknown key returns nothing.
  // Thread-safe.
  std::vector<OperationPtr> CancelForKey(const Key& key) {
    std::vector<OperationPtr> candidates;
    {
      Shard& shard = ShardFor(key);
      std::lock_guard<std::mutex> lock(shard.mu);
      auto it = shard.watchers.find(key);
      if (it == shard.watchers.end()) return candidates;
      candidates.reserve(it->second.size());
      for (auto& entry : it->second) candidates.push_back(entry.second);
    }
    std::vector<OperationPtr> cancelled;
    cancelled.reserve(candidates.size());
    for (OperationPtr& op : candidates) {
      // The final transition: from here no completion, expiration or
      // re-watch of it can succeed. One that completed meanwhile is not
      // returned (its completion leaves the watch lists by itself).
      if (!op->MarkCancelled()) continue;
      timer_->Cancel(*op);
      Unwatch(*op, /*count_as_purged=*/false);
      // A cancelled operation no longer refers to this purgatory, which may
      // be destroyed before the caller is done with it.
      op->timer_.store(nullptr, std::memory_order_release);
      op->owner_.store(nullptr, std::memory_order_release);
      cancelled.push_back(std::move(op));
    }
    return cancelled;
  }

  // DelayedOperationPurgatory::NumDelayed()
  //
  // The number of operations waiting on the timer. Thread-safe.
  int64_t NumDelayed() const { return timer_->NumPending(); }

  // DelayedOperationPurgatory::Watched()
  //
  // The number of watch-list entries (an operation watched under three keys
  // counts three). Completed operations are not counted. Thread-safe.
  int64_t Watched() const { return watched_.load(std::memory_order_relaxed); }

  // DelayedOperationPurgatory::Metrics()
  //
  // A snapshot of the counters. Thread-safe.
  PurgatoryMetrics Metrics() const {
    PurgatoryMetrics metrics;
    const TimerMetrics timer = timer_->Metrics();
    metrics.delayed = timer.pending;
    metrics.reaper_wakeups = timer.reaper_wakeups;
    metrics.watched = Watched();
    metrics.completed = completed_.load(std::memory_order_relaxed);
    metrics.expired = expired_.load(std::memory_order_relaxed);
    metrics.purged = purged_.load(std::memory_order_relaxed);
    for (const auto& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard->mu);
      metrics.keys += static_cast<int64_t>(shard->watchers.size());
    }
    return metrics;
  }

  // DelayedOperationPurgatory::Shutdown()
  //
  // Stops the expiration reaper (waiting for expirations already running),
  // then completes every operation still waiting through its expiration path,
  // exactly once, on the calling thread: `OnComplete()` then
  // `OnExpiration()`, counted in `expired`. Nothing is silently dropped, and
  // no callback of the purgatory's reaper runs after it returns. Afterwards
  // `TryCompleteElseWatch()` fails with FailedPrecondition; calls racing with
  // `Shutdown()` expire their operation on their own thread. Idempotent.
  // Must not be called from an operation's callback. Thread-safe.
  void Shutdown() {
    if (shutdown_.exchange(true, std::memory_order_acq_rel)) return;
    std::vector<TaskPtr<TimerTask>> pending = timer_->Shutdown();
    for (TaskPtr<TimerTask>& task : pending) {
      // Every task of the purgatory's private timer is an operation.
      static_cast<DelayedOperation*>(task.get())->Run();
    }
    // Operations still watched but not on the timer (a racing
    // TryCompleteElseWatch() between its watch and its Add()) expire there.
  }

 private:
  using OperationMap = absl::flat_hash_map<DelayedOperation*, OperationPtr>;

  struct WatchKeys final : internal::WatchKeysBase {
    std::vector<Key> keys;
  };

  struct Shard {
    std::mutex mu;
    absl::flat_hash_map<Key, OperationMap, Hash, Eq> watchers;  // Under mu.
  };

  DelayedOperationPurgatory(int shards, std::unique_ptr<Timer> timer)
      : timer_(std::move(timer)) {
    shards_.reserve(static_cast<size_t>(shards));
    for (int i = 0; i < shards; ++i)
      shards_.push_back(std::make_unique<Shard>());
  }

  Shard& ShardFor(const Key& key) const {
    const uint64_t hash = static_cast<uint64_t>(Hash()(key));
    // High bits: the shard's hash map indexes by the low ones.
    return *shards_[(hash >> 32) % shards_.size()];
  }

  // The result of TryCompleteElseWatch() for an operation that left the
  // waiting state during the call: completed (true) or cancelled.
  static absl::StatusOr<bool> Finished(const DelayedOperation& op) {
    if (op.IsCompleted()) return true;
    return absl::CancelledError(
        "timingwheel: the operation was cancelled by CancelForKey()");
  }

  // Removes `op` from every watch list it is on. With `count_as_purged`,
  // counts the removed entries as purged (its completion came another way).
  void Unwatch(DelayedOperation& op, bool count_as_purged) {
    std::vector<OperationPtr> released;  // Dropped after the locks.
    std::lock_guard<std::mutex> watch_lock(op.watch_mu_);
    if (op.watch_keys_ == nullptr) return;
    auto* watch_keys = static_cast<WatchKeys*>(op.watch_keys_.get());
    int64_t removed = 0;
    for (const Key& key : watch_keys->keys) {
      Shard& shard = ShardFor(key);
      std::lock_guard<std::mutex> shard_lock(shard.mu);
      auto it = shard.watchers.find(key);
      if (it == shard.watchers.end()) continue;
      auto entry = it->second.find(&op);
      if (entry == it->second.end()) continue;
      released.push_back(std::move(entry->second));
      it->second.erase(entry);
      if (it->second.empty()) shard.watchers.erase(it);
      ++removed;
    }
    op.watch_keys_.reset();
    watched_.fetch_sub(removed, std::memory_order_relaxed);
    if (count_as_purged) purged_.fetch_add(removed, std::memory_order_relaxed);
  }

  void OnOperationCompleted(DelayedOperation& op) override {
    completed_.fetch_add(1, std::memory_order_relaxed);
    Unwatch(op, /*count_as_purged=*/true);
  }

  void OnOperationExpired() override {
    expired_.fetch_add(1, std::memory_order_relaxed);
  }

  std::unique_ptr<Timer> timer_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::atomic<bool> shutdown_{false};
  std::atomic<int64_t> watched_{0};
  std::atomic<int64_t> completed_{0};
  std::atomic<int64_t> expired_{0};
  std::atomic<int64_t> purged_{0};
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_PURGATORY_H_
