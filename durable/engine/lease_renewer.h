// Copyright 2026 The timingwheel Authors.
//
// lease_renewer.h
// -----------------------------------------------------------------------------
//
// The renewal of a scheduler's slot leases, on a thread and a database
// connection of its own, so that a slow load, fire or takeover on the
// maintenance connection never delays a renewal past the TTL. This file
// defines:
//
//   * `LeaseRenewer`: every third of the TTL, one statement
//     (`StoreApi::Renew()`) records this node's heartbeat, extends the
//     leases of the slots `SlotLeases` holds (under the same epochs) and
//     counts the live nodes. It publishes how long the leases are valid
//     (on the process's steady clock: the round's start plus the TTL), the
//     live-node count the balancing round uses, and the slots it could not
//     renew (taken or expired); the maintenance thread applies those. A
//     round is also timed to the instant another node's slot may come free
//     (a peer's heartbeat or an orphaned lease lapses), and wakes the
//     balancing round once it has passed.
//
// A load holds its lease rows FOR KEY SHARE, which a renewal's update does
// not wait for (a taker's FOR UPDATE SKIP LOCKED still passes them over).
//
// A renewal keeps a slot only while its process works it: when the
// maintenance thread has not reported progress (`NoteProgress()`) for
// `stall_limit`, or an outcome writer has been inside one write
// (`NoteWorkBegins()` to `NoteWorkEnds()`) for longer, the renewer stops
// renewing, so a wedged thread loses its slots to live processes rather
// than holding their tasks forever.
//
// Tests: tests/durable/lease_renewal_test.cc (a maintenance thread held
// past the TTL keeps its slot; a renewal does not wait for a load holding
// its lease row; a renewal that finds the slot taken stops a handler about
// to start; a wedged maintenance thread loses its slot).

#ifndef TIMINGWHEEL_DURABLE_ENGINE_LEASE_RENEWER_H_
#define TIMINGWHEEL_DURABLE_ENGINE_LEASE_RENEWER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/engine/slot_leases.h"
#include "durable/sql/store_api.h"
#include "timer/internal/mutex.h"

namespace timingwheel {
namespace durable_internal {

// LeaseRenewer
//
// Thread-safe. `RenewNow()` before `Start()` only (the scheduler's first
// round, on the creating thread); `Start()` and `Stop()` from one thread;
// the accessors and `NoteProgress()` from any thread.
class LeaseRenewer {
 public:
  struct Options {
    std::string node_id;
    absl::Duration ttl;
    int64_t horizon_us = 0;
    // Without progress for this long, renewals stop.
    absl::Duration stall_limit;
    // After a failed round, the next one this much later (at most TTL / 3).
    absl::Duration retry_after = absl::Milliseconds(100);
    // Called (on the renewer's thread) when a round found slots lost or the
    // live-node count changed, so that the maintenance thread applies them
    // (and balances) soon.
    std::function<void()> wake;
    // Called (on the renewer's thread) with the slots a round could not
    // renew, before that round's validity is published: whatever checks
    // the validity must no longer count them as held.
    std::function<void(const std::vector<SlotEpoch>&)> on_lost;
    // Called after each round's statement with the instant it began
    // (statement histograms).
    std::function<void(std::chrono::steady_clock::time_point)> timed;
  };

  // `leases` must outlive this object.
  LeaseRenewer(Options options, std::unique_ptr<StoreApi> store,
               const SlotLeases* leases);
  ~LeaseRenewer();  // Stop().

  LeaseRenewer(const LeaseRenewer&) = delete;
  LeaseRenewer& operator=(const LeaseRenewer&) = delete;

  // LeaseRenewer::RenewNow()
  //
  // One round on the calling thread (before Start() only).
  absl::Status RenewNow();

  // Starts the thread; rounds every TTL / 3 (after a failure, again after
  // the reconnect backoff, reconnecting first when the connection broke).
  void Start();

  // From now on, rounds remove this node's row instead of heartbeating
  // (Shutdown(): the others stop counting it and take the slots it
  // released), while still renewing the leases it holds. Thread-safe.
  void Leave() { leaving_.store(true); }

  // From now on, rounds do nothing (they fail): this process no longer
  // holds its node id (a replacement took it over while it was stopped),
  // so it neither heartbeats nor renews. Thread-safe.
  void Halt() { halted_.store(true); }

  // Stops and joins the thread, after the round in flight (each statement
  // is bounded by the connection's statement timeout). Idempotent.
  void Stop();

  // The maintenance thread is alive (steady clock, now).
  void NoteProgress();

  // Outcome writer `worker` (0 to kMaxWorkers - 1) starts and ends a write
  // (thread-safe). A write longer than `stall_limit` is a stall, as a
  // silent maintenance thread.
  static constexpr int kMaxWorkers = 4;
  void NoteWorkBegins(int worker);
  void NoteWorkEnds(int worker) { work_began_nanos_[worker].store(0); }

  // True when the maintenance thread has reported no progress for longer
  // than `stall_limit`, or a write has lasted longer: rounds renew nothing
  // until it ends. Thread-safe.
  bool stalled() const;

  // Until when the leases renewed by the last successful round are valid
  // (steady clock, nanoseconds; 0 before the first).
  int64_t valid_until_nanos() const { return valid_until_.load(); }
  // The live nodes (this one included) the last successful round counted.
  int64_t live_nodes() const { return live_nodes_.load(); }
  // How many rounds found the lapse announced by the round before them
  // passed (Renewal::next_lapse_in_us): when it changes, a slot may have
  // come free, so the balancing round runs (each such round also calls
  // `wake`).
  int64_t lapses() const { return lapses_.load(); }
  // Failed rounds so far, and those among them cut by the statement
  // timeout.
  int64_t errors() const { return errors_.load(); }
  int64_t timeouts() const { return timeouts_.load(); }

  // LeaseRenewer::TakeLost()
  //
  // The slots (with the epochs they were held under) that rounds since the
  // last call could not renew.
  std::vector<SlotEpoch> TakeLost();

 private:
  void Loop();
  // One round; returns whether it succeeded.
  bool Round();

  const Options options_;
  const std::unique_ptr<StoreApi> store_;  // The renewer's thread only.
  const SlotLeases* const leases_;
  bool broken_ = false;  // The renewer's thread only.

  std::atomic<int64_t> valid_until_{0};
  std::atomic<int64_t> live_nodes_{1};
  // Renewal::next_lapse_in_us of the last round.
  std::atomic<int64_t> next_lapse_in_us_{std::numeric_limits<int64_t>::max()};
  // When that lapse comes (RealNanos(); the renewer's thread only).
  int64_t lapse_at_nanos_ = std::numeric_limits<int64_t>::max();
  std::atomic<int64_t> lapses_{0};
  // The least time between two rounds timed to a peer's lapse.
  static constexpr std::chrono::milliseconds kMinRoundGap{10};
  std::atomic<bool> leaving_{false};
  std::atomic<bool> halted_{false};
  std::atomic<int64_t> errors_{0};
  std::atomic<int64_t> timeouts_{0};
  std::atomic<int64_t> progress_nanos_;
  // Per worker; 0: no write in progress.
  std::atomic<int64_t> work_began_nanos_[kMaxWorkers] = {};

  internal::Mutex mu_;
  std::condition_variable wake_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<SlotEpoch> lost_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_LEASE_RENEWER_H_
