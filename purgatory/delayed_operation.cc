// Copyright 2026 The timingwheel Authors.

#include "purgatory/delayed_operation.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace timingwheel {
namespace internal {
namespace {

// The anchors whose owner the calling thread uses (one entry per use).
std::vector<const OwnerAnchor*>& UsesOnThread() {
  thread_local std::vector<const OwnerAnchor*> uses;
  return uses;
}

}  // namespace

OperationOwner* OwnerAnchor::Acquire() {
  // Counted before the flag is read: Close() sets the flag, then waits for
  // the count, so a use that saw no flag is waited for.
  const uint64_t previous = state_.fetch_add(kUse, std::memory_order_acq_rel);
  if ((previous & kClosed) != 0) {
    Drop();
    return nullptr;
  }
  UsesOnThread().push_back(this);
  return owner_;
}

void OwnerAnchor::Release() {
  std::vector<const OwnerAnchor*>& uses = UsesOnThread();
  auto it = std::find(uses.rbegin(), uses.rend(), this);
  if (it != uses.rend()) uses.erase(std::next(it).base());
  Drop();
}

void OwnerAnchor::Drop() {
  const uint64_t previous = state_.fetch_sub(kUse, std::memory_order_acq_rel);
  if ((previous & kWaiters) == 0) return;
  // Notified under the lock: a waiter may destroy the purgatory as soon as
  // it sees the count drop (this anchor is kept alive by its other owners).
  MutexLock lock(mu_);
  idle_.notify_all();
}

int OwnerAnchor::UsesOnThisThread() const {
  const std::vector<const OwnerAnchor*>& uses = UsesOnThread();
  return static_cast<int>(std::count(uses.begin(), uses.end(), this));
}

template <typename Done>
void OwnerAnchor::WaitUntilIdle(MutexLock& lock, Done done) {
  // The flag goes up under mu_ before the count is read; a Drop() that
  // sees it notifies under mu_, so no wake-up is lost. It stays up (a few
  // extra notifications at shutdown cost nothing).
  state_.fetch_or(kWaiters, std::memory_order_acq_rel);
  idle_.wait(lock.native(), [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return state_.load(std::memory_order_acquire) < kUse && done();
  });
}

void OwnerAnchor::WaitIdle() {
  // From a callback: waiting for other threads' callbacks could deadlock
  // with one of them doing the same.
  if (UsesOnThisThread() > 0) return;
  MutexLock lock(mu_);
  WaitUntilIdle(lock, [] { return true; });
}

void OwnerAnchor::MarkShutDown() {
  MutexLock lock(mu_);
  shut_down_ = true;
  idle_.notify_all();
}

void OwnerAnchor::WaitShutDown() {
  if (UsesOnThisThread() > 0) return;
  MutexLock lock(mu_);
  WaitUntilIdle(
      lock, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return shut_down_; });
}

void OwnerAnchor::Close() {
  if (UsesOnThisThread() > 0) {
    std::fprintf(stderr,
                 "timingwheel: a DelayedOperationPurgatory was destroyed from "
                 "a callback of one of its own operations (OnComplete or "
                 "OnExpiration, which still use it); destroy it elsewhere\n");
    std::abort();
  }
  // Closed only at a moment with no use: a use that starts while this waits
  // still gets the owner (as a callback that finishes meanwhile would).
  MutexLock lock(mu_);
  for (;;) {
    WaitUntilIdle(lock, [] { return true; });
    uint64_t idle = state_.load(std::memory_order_acquire);
    if (idle < kUse && state_.compare_exchange_strong(
                           idle, idle | kClosed, std::memory_order_acq_rel)) {
      return;
    }
  }
}

}  // namespace internal

bool DelayedOperation::ForceComplete() {
  if (!Transition(OperationState::kCompleted)) return false;
  // Counted for CheckAndComplete() when it won inside the holder's try.
  if (HoldsLock()) completed_in_try_ = true;
  Finish(/*expired=*/false);
  return true;
}

bool DelayedOperation::Expire() {
  // The purgatory is held before the transition, not after: a purgatory
  // being destroyed then waits for these callbacks, instead of returning
  // between the transition (which takes the operation out of its sweep) and
  // the callbacks.
  std::shared_ptr<internal::OwnerAnchor> anchor;
  {
    internal::MutexLock lock(watch_mu_);
    anchor = anchor_;
  }
  internal::OperationOwner* owner =
      anchor != nullptr ? anchor->Acquire() : nullptr;
  if (!Transition(OperationState::kExpired)) {
    if (owner != nullptr) anchor->Release();
    return false;
  }
  Finish(/*expired=*/true, owner != nullptr ? std::move(anchor) : nullptr,
         owner);
  return true;
}

void DelayedOperation::Finish(bool expired,
                              std::shared_ptr<internal::OwnerAnchor> held,
                              internal::OperationOwner* held_owner) {
  std::shared_ptr<internal::OwnerAnchor> anchor;
  std::unique_ptr<internal::WatchKeysBase> keys;
  {
    // One lock for both: a Watch() after this sees the final state and
    // watches nothing.
    internal::MutexLock lock(watch_mu_);
    anchor = std::move(anchor_);
    if (anchor != nullptr) keys = std::move(watch_keys_);
  }
  // Whether this call took the operation's link to the purgatory, and so
  // does its bookkeeping (a refused hand-in may have taken it first).
  const bool linked = anchor != nullptr;
  internal::OperationOwner* owner = held_owner;
  if (owner != nullptr) {
    anchor = std::move(held);  // Released below, as acquired.
  } else if (anchor != nullptr) {
    owner = anchor->Acquire();
  }
  // References to this operation that leaving the purgatory drops: held
  // until the callbacks have returned (a caller may hold a raw pointer only).
  internal::KeepAlive keep;
  if (owner != nullptr && linked) {
    owner->Detach(*this, expired, std::move(keys), keep);
  }
  if (owner == nullptr) {
    // In no purgatory: exceptions are the caller's.
    OnComplete();
    if (expired) OnExpiration();
    return;
  }
  try {
    OnComplete();
  } catch (...) {
    owner->ReportError(std::current_exception());
  }
  if (expired) {
    try {
      OnExpiration();
    } catch (...) {
      owner->ReportError(std::current_exception());
    }
  }
  anchor->Release();  // The last touch of the purgatory.
  // `keep` goes last: this operation may be destroyed with it.
}

bool DelayedOperation::MaybeTryComplete(internal::OperationOwner& owner) {
  const std::thread::id me = std::this_thread::get_id();
  bool completed = false;
  bool retry = false;
  do {
    // A re-entrant call (from this operation's own TryComplete(), or a
    // callback it led to): the running try is the try.
    if (lock_holder_.load(std::memory_order_acquire) == me) return completed;
    bool unlocked = false;
    if (locked_.compare_exchange_strong(unlocked, true,
                                        std::memory_order_seq_cst)) {
      lock_holder_.store(me, std::memory_order_release);
      // Cleared only when set (no locked instruction on the common path); a
      // flag set just after this load costs one spare try below, no more.
      // Acquire: reading a setter's flag makes its changes visible to the
      // try below.
      if (try_pending_.load(std::memory_order_acquire)) {
        try_pending_.store(false);
      }
      if (IsWaiting()) {
        completed_in_try_ = false;
        try {
          const bool done = TryComplete();
          // Returning true without ForceComplete(): complete it here.
          if (done && IsWaiting()) ForceComplete();
        } catch (...) {
          owner.ReportError(std::current_exception());
        }
        completed = completed || completed_in_try_;
      }
      lock_holder_.store(std::thread::id(), std::memory_order_release);
      // Sequentially consistent, with the load below and the other side's
      // compare-and-swap and exchange: a release store could still sit in
      // this core's store buffer while the load reads a clear flag and
      // another thread fails its compare-and-swap twice and leaves, so that
      // nobody makes the try it asked for.
      locked_.store(false, std::memory_order_seq_cst);
      // Another thread may have found the lock held meanwhile.
      retry = try_pending_.load();
    } else {
      // The holder will see the flag, unless it let go before we set it:
      // then (the flag was clear) try again ourselves.
      retry = !try_pending_.exchange(true);
    }
  } while (retry && IsWaiting());
  return completed;
}

}  // namespace timingwheel
