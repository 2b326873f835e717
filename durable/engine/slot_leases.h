// Copyright 2026 The timingwheel Authors.
//
// slot_leases.h
// -----------------------------------------------------------------------------
//
// Which slots this process owns, and the balancing round that gives the
// surplus up and takes the fair share. Lease times are the database's;
// every slot is held under an epoch that the database increments at each
// takeover, and every later write for the slot's tasks is conditional on it
// (fencing). Renewals (and the heartbeat that counts the live nodes) are
// not here: `LeaseRenewer` runs them on a thread and connection of their
// own, reads `owned()` and reports the slots it could not renew.
//
// One balancing round (`Balance()`), every third of the lease TTL:
// fair share = ceil(slots / live nodes): release the surplus (only slots
// the caller says are idle), or acquire up to the share from free or
// expired slots (epoch + 1, their claimed rows re-stamped).

#ifndef TIMINGWHEEL_DURABLE_ENGINE_SLOT_LEASES_H_
#define TIMINGWHEEL_DURABLE_ENGINE_SLOT_LEASES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "durable/sql/store.h"
#include "timer/internal/mutex.h"

namespace timingwheel {
namespace durable_internal {

// SlotLeases
//
// Thread-safe for `owned()` and `size()` (the renewer's thread reads the set
// it renews); every other method changes the set and is called by the
// scheduler's maintenance thread only (or by Create() before that thread
// starts). Tests: tests/durable/lease_renewal_test.cc,
// tests/durable/multi_scheduler_test.cc.
class SlotLeases {
 public:
  struct Changes {
    std::vector<SlotEpoch> acquired;
    std::vector<SlotEpoch> released;
    // Acquire() took all it asked for (`max_acquire`) and the share wants
    // more: balance again soon.
    bool wants_more = false;
  };

  // `horizon_us`: the owner's horizon, recorded in its lease rows at every
  // renewal and takeover (inserters notify it of rows due within it).
  SlotLeases(std::string node_id, int slot_count, int64_t ttl_us,
             int max_attempts, int64_t horizon_us)
      : node_id_(std::move(node_id)),
        slot_count_(slot_count),
        ttl_us_(ttl_us),
        max_attempts_(max_attempts),
        horizon_us_(horizon_us) {}

  // SlotLeases::Balance()
  //
  // One balancing round (see the file comment) for `live_nodes` live nodes
  // (this one included). `may_release(slot)` says whether a surplus slot
  // may be given up now (no attempt running); with `may_acquire` false it
  // takes nothing (the renewals are failing: a new slot could not be kept).
  // It takes at most `max_acquire` slots in one statement (a takeover
  // re-stamps each slot's claimed rows, so the statement must end within
  // its timeout), sparing `live`, the attempts this process still runs
  // (a slot it lost and takes back: StoreApi::Acquire()).
  absl::StatusOr<Changes> Balance(StoreApi& store, int64_t live_nodes,
                                  bool may_acquire, int max_acquire,
                                  const std::function<bool(int)>& may_release,
                                  absl::Span<const LiveAttempt> live);

  // SlotLeases::DropLost()
  //
  // Forgets the slots of `lost` still held under the same epochs (a renewal
  // found them taken or expired) and returns those.
  std::vector<int> DropLost(const std::vector<SlotEpoch>& lost);

  // SlotLeases::Forget()
  //
  // Forgets every slot without telling the database (the local lease ran
  // out: others may hold them already). Returns them.
  std::vector<int> Forget();

  std::vector<SlotEpoch> owned() const;
  size_t size() const;

 private:
  const std::string node_id_;
  const int slot_count_;
  const int64_t ttl_us_;
  const int max_attempts_;
  const int64_t horizon_us_;
  mutable internal::Mutex mu_;
  std::map<int, int64_t> owned_ ABSL_GUARDED_BY(mu_);  // slot -> epoch.
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_SLOT_LEASES_H_
