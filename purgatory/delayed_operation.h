// Copyright 2026 The timingwheel Authors.
//
// delayed_operation.h
// -----------------------------------------------------------------------------
//
// A `DelayedOperation` is a request that waits until it can complete or its
// deadline passes: a produce request waiting for replica acknowledgements, a
// fetch waiting for enough bytes. Users subclass it and park instances in a
// `DelayedOperationPurgatory` (delayed_operation_purgatory.h). This file
// defines:
//
//   * `OperationState`: waiting, completed, expired or cancelled.
//   * `DelayedOperation`: the base class of a parked request.
//
// Lifecycle: an operation leaves the waiting state exactly once, through one
// atomic transition that exactly one caller wins:
//
//   * completed: `ForceComplete()` (from the user's `TryComplete()`, from
//     any other code, or by the purgatory when `TryComplete()` returned
//     true) runs `OnComplete()`;
//   * expired: its delay passed (or its purgatory shut down): `OnComplete()`
//     then `OnExpiration()`;
//   * cancelled: `DelayedOperationPurgatory::CancelForKey()` took it out; no
//     callback runs.
//
// Re-entrancy: the operation's lock (held around `TryComplete()`) is never
// waited for. A thread that finds it held by another thread leaves a "try
// again" flag that the holder honours before it lets go (Apache Kafka's
// `tryCompletePending`), so no completion is missed and no path blocks on
// an operation. The purgatory holds no lock of its own (shard, timer) while
// it calls `TryComplete()`, `OnComplete()` or `OnExpiration()`, so every
// callback may call back into the purgatory, including on its own keys.
//
// Exceptions: an exception thrown by `TryComplete()`, `OnComplete()` or
// `OnExpiration()` of an operation held by a purgatory is caught and passed
// to the purgatory's error hook (`PurgatoryOptions::on_callback_error`); the
// operation still ends exactly once (see each callback).

#ifndef TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_H_
#define TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/time/time.h"
#include "timer/internal/mutex.h"
#include "timer/timer_task.h"

namespace timingwheel {

class DelayedOperation;
template <typename Key, typename Hash, typename Eq>
class DelayedOperationPurgatory;
namespace internal {
template <typename Key, typename Hash, typename Eq>
class WatchLists;
}  // namespace internal

// OperationState
//
// Where an operation stands. Every state but `kWaiting` is final.
enum class OperationState {
  kWaiting,    // Not finished (whether or not it is in a purgatory yet).
  kCompleted,  // `ForceComplete()` won: `OnComplete()` ran or is running.
  kExpired,    // Its delay passed, or its purgatory shut down first:
               // `OnComplete()` then `OnExpiration()` ran or are running.
  kCancelled,  // `CancelForKey()` took it out: no callback runs, ever.
};

namespace internal {

// KeepAlive: the references to an operation that leaving a purgatory drops
// (one per watch list), held until its callbacks have returned. Inline for
// up to four keys: finishing allocates nothing.
using KeepAlive = absl::InlinedVector<TaskPtr<DelayedOperation>, 4>;

// WatchKeys: the keys an operation is watched under, typed by the purgatory.
class WatchKeysBase {
 public:
  virtual ~WatchKeysBase() = default;
};

// OperationOwner: what an operation tells the purgatory that holds it. Only
// DelayedOperationPurgatory implements it.
class OperationOwner {
 public:
  // Takes `op` (which just left the waiting state, `expired` or completed)
  // off every watch list in `keys` (what `op` was watched under, taken from
  // it; null if it was never watched) and off the timer, and counts it.
  // Appends to `keep` the references it drops, so that the caller can keep
  // `op` alive until it is done with it. Called with no lock held except
  // possibly `op`'s own.
  virtual void Detach(DelayedOperation& op, bool expired,
                      std::unique_ptr<WatchKeysBase> keys, KeepAlive& keep) = 0;
  // Passes an exception thrown by a callback to the purgatory's error hook.
  virtual void ReportError(std::exception_ptr error) = 0;

 protected:
  ~OperationOwner() = default;
};

// OwnerAnchor: the link from operations to their purgatory, shared by both,
// so that an operation that finishes on another thread never touches a
// purgatory that is gone. `Acquire()` and `Release()` are one atomic
// operation each (no lock) unless a thread waits in `WaitIdle()`,
// `WaitShutDown()` or `Close()`. Thread-safe.
class OwnerAnchor {
 public:
  explicit OwnerAnchor(OperationOwner* owner) : owner_(owner) {}

  // Returns the owner with one use registered (end it with `Release()`), or
  // null once `Close()` ran.
  OperationOwner* Acquire();
  void Release();

  // Waits until no thread uses the owner; returns at once if the calling
  // thread uses it (called from a callback).
  void WaitIdle();

  // Marks the owner's shutdown done (every operation expired) and wakes
  // `WaitShutDown()`.
  void MarkShutDown();

  // Waits until `MarkShutDown()` ran and no thread uses the owner; returns
  // at once if the calling thread uses it (called from a callback).
  void WaitShutDown();

  // Waits until no thread uses the owner, then makes `Acquire()` return
  // null. Dies with a message if the calling thread uses it (a purgatory
  // destroyed from one of its own operations' callbacks).
  void Close();

 private:
  // state_: the number of uses (each Acquire() adds kUse, also a failed
  // one, briefly), plus two flags.
  static constexpr uint64_t kClosed = 1;   // Acquire() returns null.
  static constexpr uint64_t kWaiters = 2;  // Release() must notify idle_.
  static constexpr uint64_t kUse = 4;

  // How many uses of this anchor the calling thread holds.
  int UsesOnThisThread() const;
  // Drops one use; wakes the waiters if there are any.
  void Drop();
  // Waits (mu_ held by `lock`) until no thread uses the owner and `done()`
  // (called with mu_ held).
  template <typename Done>
  void WaitUntilIdle(MutexLock& lock, Done done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  OperationOwner* const owner_;
  std::atomic<uint64_t> state_{0};
  Mutex mu_;  // Taken only to wait, or to wake waiters.
  std::condition_variable idle_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace internal

// DelayedOperation
//
// The base of a request that waits in a purgatory. Subclass it, implement
// `TryComplete()`, `OnComplete()` and `OnExpiration()`, create instances with
// `MakeTask<T>(...)`, and hand them to
// `DelayedOperationPurgatory::TryCompleteElseWatch()`.
//
// An operation is used once, in one purgatory (one refused with
// `ResourceExhausted` may be handed in again). It is a `TimerTask` of the
// purgatory's timer: its `Run()` is the expiration path and is final; never
// add it to a timer yourself.
//
// Lifetime: while it waits in a purgatory, the purgatory keeps it alive, so
// code holding only a raw pointer may call `ForceComplete()`; the operation
// stays alive until that call returns.
//
// Thread safety: `ForceComplete()`, `state()`, `IsCompleted()`,
// `IsExpired()` and `IsCancelled()` are thread-safe. `TryComplete()` is
// always called with the operation's own lock held, so calls from different
// threads never overlap.
//
// Example:
//   // Completes when `needed` acknowledgements have arrived, or times out.
//   class DelayedProduce : public timingwheel::DelayedOperation {
//    public:
//     DelayedProduce(absl::Duration timeout, int needed, Acks* acks)
//         : DelayedOperation(timeout), needed_(needed), acks_(acks) {}
//     bool TryComplete() override { return acks_->count() >= needed_; }
//     void OnComplete() override { Respond(IsExpired() ? kTimeout : kOk); }
//     void OnExpiration() override { ++timeouts; }
//    ...
//   };
class DelayedOperation : public TimerTask {
 public:
  // Creates an operation that expires `delay` after it is handed to a
  // purgatory.
  explicit DelayedOperation(absl::Duration delay) : delay_(delay) {}

  // DelayedOperation::delay()
  //
  // How long the operation waits before it expires.
  absl::Duration delay() const { return delay_; }

  // DelayedOperation::TryComplete()
  //
  // Checks whether the operation can complete now. Return true to have it
  // completed: either call `ForceComplete()` yourself (then `OnComplete()`
  // runs inside that call) or just return true and the purgatory calls it
  // right after, still under the operation's lock. Return false if it
  // cannot complete yet.
  //
  // Called with the operation's lock held, by `TryCompleteElseWatch()` and
  // `CheckAndComplete()` (possibly from different threads, never at once),
  // and only while the operation is waiting: never after it completed,
  // expired or was cancelled. (A call already running on another thread when
  // the operation expires or is cancelled finishes; its `ForceComplete()`
  // then returns false.)
  //
  // It may call into the purgatory, including `CheckAndComplete()` on its
  // own keys: such a re-entrant check does not try this operation again (it
  // is being tried), so decide after making the changes you make.
  //
  // An exception goes to the purgatory's error hook and counts as false
  // (the operation keeps waiting; it still expires or completes later).
  virtual bool TryComplete() = 0;

  // DelayedOperation::OnComplete()
  //
  // The completion work (for instance, sending the response). Runs exactly
  // once per operation that completes or expires (never for a cancelled
  // one): inside the `ForceComplete()` call that completed it, on that
  // caller's thread, or on the expiring thread (the timer's executor, or the
  // thread that shut the purgatory down). `state()` tells which:
  // `kCompleted` or `kExpired`. When it runs, the operation is already off
  // every watch list and off the timer. An exception goes to the
  // purgatory's error hook (the operation stays completed; on expiry,
  // `OnExpiration()` still runs).
  virtual void OnComplete() = 0;

  // DelayedOperation::OnExpiration()
  //
  // Runs after `OnComplete()`, on the same thread, when the operation
  // expired: its delay passed, or its purgatory shut down first. An
  // exception goes to the purgatory's error hook.
  virtual void OnExpiration() = 0;

  // DelayedOperation::ForceComplete()
  //
  // Completes the operation if it is waiting: an atomic transition, so
  // across all threads exactly one call (or the expiry, or a cancel) wins.
  // The winner takes the operation off every watch list and off the timer,
  // runs `OnComplete()` and returns true; every other call, and every call
  // once the operation expired or was cancelled, returns false at once.
  // An operation that is in no purgatory (never handed in, or refused) can
  // be completed too: then `OnComplete()`'s exception, if any, propagates.
  // Thread-safe.
  bool ForceComplete();

  // DelayedOperation::state()
  //
  // Where the operation stands (see `OperationState`). Thread-safe.
  OperationState state() const {
    return static_cast<OperationState>(state_.load(std::memory_order_acquire));
  }

  // DelayedOperation::IsCompleted()
  //
  // Returns whether the operation has completed, either way: completed or
  // expired. Thread-safe.
  bool IsCompleted() const {
    const OperationState state = this->state();
    return state == OperationState::kCompleted ||
           state == OperationState::kExpired;
  }

  // DelayedOperation::IsExpired()
  //
  // Returns whether the operation expired (its delay passed, or its
  // purgatory shut down), as opposed to completing through
  // `ForceComplete()`. Thread-safe.
  bool IsExpired() const { return state() == OperationState::kExpired; }

  // DelayedOperation::IsCancelled()
  //
  // Returns whether `DelayedOperationPurgatory::CancelForKey()` took the
  // operation out: it then never completes (`ForceComplete()` returns false)
  // and no callback of it runs. Thread-safe.
  bool IsCancelled() const { return state() == OperationState::kCancelled; }

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
  template <typename Key, typename Hash, typename Eq>
  friend class internal::WatchLists;

  static constexpr int kWaiting = static_cast<int>(OperationState::kWaiting);

  // The expiration path (the timer runs it): see `Expire()`.
  void Run() final { Expire(); }

  // Takes a waiting operation to expired and runs `OnComplete()` then
  // `OnExpiration()`; false if it had already finished.
  bool Expire();

  // Runs `TryComplete()` under the operation's lock if it is waiting, and
  // completes the operation if it returned true. Never waits for the lock:
  // if another thread holds it, leaves it a "try again" flag; if this thread
  // does (a re-entrant call), does nothing. Returns whether the operation
  // completed inside a try made by this call. Exceptions go to `owner`.
  bool MaybeTryComplete(internal::OperationOwner& owner);

  // Takes a waiting operation to `to`; false if it had already finished.
  // Sequentially consistent: with `timed_` (see there).
  bool Transition(OperationState to) {
    int expected = kWaiting;
    return state_.compare_exchange_strong(expected, static_cast<int>(to),
                                          std::memory_order_seq_cst);
  }
  bool IsWaiting() const {
    return state_.load(std::memory_order_acquire) == kWaiting;
  }

  // After winning a transition to completed or expired: leaves the
  // purgatory and runs the callbacks. `held_owner` is the purgatory when
  // the caller already acquired it through the anchor `held` (released
  // here); null makes Finish() acquire it itself.
  void Finish(bool expired,
              std::shared_ptr<internal::OwnerAnchor> held = nullptr,
              internal::OperationOwner* held_owner = nullptr);

  const absl::Duration delay_;
  std::atomic<int> state_{kWaiting};
  // Set (sequentially consistent) by the hand-in just before it adds the
  // operation to the timer; whoever finishes it cancels its timer entry
  // only if set (an operation that completed in its first try never took the
  // timer's lock). The hand-in reads the state after its add, the finisher
  // reads this flag after its transition: in the single order of the two
  // stores and two loads, at least one of them sees the other, and cancels.
  std::atomic<bool> timed_{false};

  // The operation's lock: taken with a compare-and-swap, never waited for.
  std::atomic<bool> locked_{false};
  std::atomic<std::thread::id> lock_holder_{};
  // Set by a thread that found the lock held; the holder tries again.
  std::atomic<bool> try_pending_{false};
  // Whether a ForceComplete() won inside the current holder's try (written
  // and read by the holder only).
  bool completed_in_try_ = false;

  // Guards the two fields below, and orders watching against leaving the
  // watch lists. Held only around short bookkeeping, never around callbacks;
  // taken before a shard lock, never after one.
  internal::Mutex watch_mu_;
  // The purgatory this operation is in; whoever moves it out (the winner of
  // the final transition, or a refusal) does the purgatory's bookkeeping.
  std::shared_ptr<internal::OwnerAnchor> anchor_ ABSL_GUARDED_BY(watch_mu_);
  // The keys it is watched under.
  std::unique_ptr<internal::WatchKeysBase> watch_keys_
      ABSL_GUARDED_BY(watch_mu_);
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_DELAYED_OPERATION_H_
