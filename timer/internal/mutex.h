// Copyright 2026 The timingwheel Authors.
//
// mutex.h
// -----------------------------------------------------------------------------
//
// A thin annotated wrapper over `std::mutex`, so that clang's
// `-Wthread-safety` checks what each lock guards (`ABSL_GUARDED_BY`), while
// ThreadSanitizer still sees a plain `std::mutex` (Debian's `absl::Mutex` is
// invisible to it). This file defines:
//
//   * `Mutex`: a `std::mutex` declared as a capability.
//   * `MutexLock`: a scoped lock on a `Mutex` that can be released and taken
//     again, and lent to a `std::condition_variable` wait.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_MUTEX_H_
#define TIMINGWHEEL_TIMER_INTERNAL_MUTEX_H_

#include <mutex>

#include "absl/base/thread_annotations.h"

namespace timingwheel {
namespace internal {

// Mutex
//
// `std::mutex` with thread-safety annotations. Thread-safe.
class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// MutexLock
//
// Holds a `Mutex` for its scope. `Unlock()`/`Lock()` release and take it
// again inside the scope; `native()` lends the underlying
// `std::unique_lock` to a condition-variable wait (which returns with the
// lock held, as the analysis assumes). Thread-compatible.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu)
      : lock_(mu.mu_) {}
  ~MutexLock() ABSL_UNLOCK_FUNCTION() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() ABSL_UNLOCK_FUNCTION() { lock_.unlock(); }
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { lock_.lock(); }

  // MutexLock::native()
  //
  // The underlying lock, for `std::condition_variable` waits only.
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_MUTEX_H_
