// Copyright 2026 The timingwheel Authors.
//
// delayed_operation.h
// -----------------------------------------------------------------------------
//
// A `DelayedOperation` is a request that waits until it can complete or its
// deadline passes: a produce request waiting for replica acknowledgements, a
// fetch waiting for enough bytes. Users subclass it and park instances in a
// `DelayedOperationPurgatory` (delayed_operation_purgatory.h).
//
// Lifecycle: an operation completes exactly once, through `ForceComplete()`,
// called either by the user's `TryComplete()` when the operation can
// complete, or by the timer when its delay passes (then `OnExpiration()`
// runs after `OnComplete()`).
//
// Lock order (a lock on the left may be held while taking one on its right,
// never the other way):
//
//   operation lock (held around TryComplete())
//     -> operation watch lock (internal) -> purgatory shard lock
//     -> timer lock
//
// The purgatory never holds a shard lock, the timer lock or any other
// purgatory-wide lock while it calls `TryComplete()`, `OnComplete()` or
// `OnExpiration()`, so those may call back into the purgatory.

#ifndef TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_H_
#define TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/time/time.h"
#include "timer/timer.h"
#include "timer/timer_task.h"

namespace timingwheel {

class DelayedOperation;
template <typename Key, typename Hash, typename Eq>
class DelayedOperationPurgatory;

namespace internal {

// OperationOwner: what an operation tells the purgatory that holds it. Only
// DelayedOperationPurgatory implements it.
class OperationOwner {
 public:
  // Removes `op` (just completed) from every watch list. Called with no lock
  // held except possibly `op`'s own lock.
  virtual void OnOperationCompleted(DelayedOperation& op) = 0;
  // Counts an expiration.
  virtual void OnOperationExpired() = 0;

 protected:
  ~OperationOwner() = default;
};

// WatchKeys: the keys an operation is watched under, typed by the purgatory.
class WatchKeysBase {
 public:
  virtual ~WatchKeysBase() = default;
};

}  // namespace internal

// DelayedOperation
//
// The base of a request that waits in a purgatory. Subclass it, implement
// `TryComplete()`, `OnComplete()` and `OnExpiration()`, create instances with
// `MakeTask<T>(...)`, and hand them to
// `DelayedOperationPurgatory::TryCompleteElseWatch()`.
//
// An operation is used once, in one purgatory. It is a `TimerTask` of the
// purgatory's timer: its `Run()` is the expiration path and is final.
//
// Thread safety: `ForceComplete()`, `IsCompleted()` and `IsCancelled()` are
// thread-safe.
// `TryComplete()` is always called with the operation's own lock held, so
// calls from different threads never overlap.
//
// Example:
//   // Completes when `needed` acknowledgements have arrived, or times out.
//   class DelayedProduce : public timingwheel::DelayedOperation {
//    public:
//     DelayedProduce(absl::Duration timeout, int needed, Acks* acks)
//         : DelayedOperation(timeout), needed_(needed), acks_(acks) {}
//     bool TryComplete() override {
//       return acks_->count() >= needed_ && ForceComplete();
//     }
//     void OnComplete() override { Respond(acks_->count() >= needed_); }
//     void OnExpiration() override { ++timeouts; }
//    ...
//   };
class DelayedOperation : public TimerTask {
 public:
  // Creates an operation that expires `delay` after it is watched.
  explicit DelayedOperation(absl::Duration delay) : delay_(delay) {}

  // DelayedOperation::delay()
  //
  // How long the operation waits before it expires.
  absl::Duration delay() const { return delay_; }

  // DelayedOperation::TryComplete()
  //
  // Checks whether the operation can complete now; if so, calls
  // `ForceComplete()` and returns true; otherwise returns false. Called with
  // the operation's lock held (by `TryCompleteElseWatch()` and
  // `CheckAndComplete()`, possibly from different threads, never at once).
  // May call into the purgatory.
  virtual bool TryComplete() = 0;

  // DelayedOperation::OnComplete()
  //
  // The completion work (for instance, sending the response). Runs exactly
  // once, inside the `ForceComplete()` call that completed the operation, on
  // that caller's thread (the timer's executor when it expired).
  virtual void OnComplete() = 0;

  // DelayedOperation::OnExpiration()
  //
  // Runs after `OnComplete()`, on the timer's executor, when the operation
  // completed because its delay passed (or because the purgatory shut down).
  virtual void OnExpiration() = 0;

  // DelayedOperation::ForceComplete()
  //
  // Completes the operation if nobody has: an atomic transition, so across
  // all threads exactly one call wins. The winner cancels the operation's
  // timer, removes it from every watch list, runs `OnComplete()` and returns
  // true; every other call, and every call on an operation cancelled by
  // `CancelForKey()`, returns false at once. Thread-safe.
  bool ForceComplete();

  // DelayedOperation::IsCompleted()
  //
  // Returns whether the operation has completed. Thread-safe.
  bool IsCompleted() const {
    return state_.load(std::memory_order_acquire) == kCompleted;
  }

  // DelayedOperation::IsCancelled()
  //
  // Returns whether `DelayedOperationPurgatory::CancelForKey()` took the
  // operation out: it then never completes (`ForceComplete()` returns false)
  // and no callback of it runs. Thread-safe.
  bool IsCancelled() const {
    return state_.load(std::memory_order_acquire) == kCancelled;
  }

 protected:
  // DelayedOperation::HoldsLock()
  //
  // Returns whether the calling thread holds this operation's lock (for
  // assertions in `TryComplete()`).
  bool HoldsLock() const {
    return lock_holder_.load(std::memory_order_acquire) ==
           std::this_thread::get_id();
  }

 private:
  template <typename Key, typename Hash, typename Eq>
  friend class DelayedOperationPurgatory;

  // The expiration path: force-completes, then runs OnExpiration().
  void Run() final;

  // Runs TryComplete() under the operation's lock.
  bool TryCompleteLocked();

  const absl::Duration delay_;
  // Waiting until one transition wins: to completed (ForceComplete) or to
  // cancelled (CancelForKey). Both are final.
  static constexpr int kWaiting = 0;
  static constexpr int kCompleted = 1;
  static constexpr int kCancelled = 2;
  std::atomic<int> state_{kWaiting};

  // Takes a waiting operation to cancelled; false if it already completed
  // or was cancelled.
  bool MarkCancelled() {
    int expected = kWaiting;
    return state_.compare_exchange_strong(expected, kCancelled,
                                          std::memory_order_acq_rel);
  }
  bool IsWaiting() const {
    return state_.load(std::memory_order_acquire) == kWaiting;
  }

  std::mutex lock_;  // Held around TryComplete().
  std::atomic<std::thread::id> lock_holder_{};

  // Set once when the operation enters a purgatory.
  std::atomic<internal::OperationOwner*> owner_{nullptr};
  std::atomic<Timer*> timer_{nullptr};

  // The keys it is watched under, and whether it may still be watched.
  std::mutex watch_mu_;
  std::unique_ptr<internal::WatchKeysBase> watch_keys_;  // Under watch_mu_.
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_H_
