// Copyright 2026 The timingwheel Authors.
//
// scheduler_shared.h
// -----------------------------------------------------------------------------
//
// Internal to DurableScheduler's .cc files (durable_scheduler.cc, the
// facade; scheduler_wheel.cc, the local wheel mirror; scheduler_attempts.cc,
// firing and attempt tracking; scheduler_outcomes.cc, the outcome writer;
// scheduler_maintenance.cc, the maintenance thread): their shared constants,
// clocks, and the link an attempt keeps to its scheduler.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULER_SHARED_H_
#define TIMINGWHEEL_DURABLE_SCHEDULER_SHARED_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fire_queue.h"
#include "durable/engine/real_clock.h"
#include "timer/internal/mutex.h"

namespace timingwheel {
namespace durable_internal {

// The most completions or fires written by one statement, and the most
// rows one horizon load claims (a full load is followed by another). A
// load costs about its limit (at 10^6 stored rows: 100,000 rows 1.9-2.3 s,
// 10,000 0.15-0.4 s), so 20,000 keeps each well inside the 2.5 s statement
// timeout of a 10 s TTL.
inline constexpr size_t kMaxBatch = 1000;
inline constexpr int64_t kMaxLoad = 20000;
// The outcomes queued that make the outcome writers after the first help
// (`DurableOptions::outcome_writers`).
inline constexpr size_t kOutcomeBacklog = 256;
// Wait between reconnection attempts while the database is unreachable.
inline constexpr absl::Duration kReconnectBackoff = absl::Milliseconds(100);
// Wait before loading again after a load passed over rows another
// transaction held locked.
inline constexpr absl::Duration kLockedRowRetry = absl::Milliseconds(50);

// Whether a failed statement says nothing of the rows it carried (the
// connection, a timeout, a conflict with another transaction): the batch
// is sent again whole, later. Any other error is the database refusing
// one of its rows.
inline bool SaysNothingOfTheRows(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status) ||
         absl::IsAborted(status) || absl::IsResourceExhausted(status) ||
         absl::IsCancelled(status);
}

// The clock of the statement and handler durations (the metrics).
using SteadyClock = std::chrono::steady_clock;

// The scheduler whose handler the calling thread is running, if any (to
// tell a Shutdown() from inside a handler).
extern thread_local const void* tls_handler_of;

}  // namespace durable_internal

// DurableScheduler::AttemptLink
//
// What an attempt queued on (or running on) the executor shares with its
// scheduler. The scheduler may be destroyed while an attempt waits in a
// user's executor or a handler never returns: the attempt then finds
// `scheduler` null and touches nothing else. Thread-safe.
struct DurableScheduler::AttemptLink {
  std::shared_ptr<const durable_internal::KindTable> kinds;
  RetryPolicy retry;
  std::string node_id;
  absl::Duration unknown_kind_delay;

  // The scheduler, with a count of the threads inside its attempt steps;
  // null once it is gone.
  DurableScheduler* Enter() {
    internal::MutexLock lock(mu);
    if (scheduler != nullptr) ++inside;
    return scheduler;
  }
  void Leave() {
    internal::MutexLock lock(mu);
    if (--inside == 0) cv.notify_all();
  }
  // Points the link at its scheduler before the link is shared (no other
  // thread can see it yet, so without the lock).
  void Attach(DurableScheduler* owner) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    scheduler = owner;
  }
  // Waits for the threads inside (each in a short step, never a handler),
  // then cuts the link.
  void Detach() {
    internal::MutexLock lock(mu);
    cv.wait(lock.native(),
            [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return inside == 0; });
    scheduler = nullptr;
  }

  internal::Mutex mu;
  std::condition_variable cv;
  DurableScheduler* scheduler ABSL_GUARDED_BY(mu) = nullptr;
  int inside ABSL_GUARDED_BY(mu) = 0;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SCHEDULER_SHARED_H_
