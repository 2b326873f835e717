// Copyright 2026 The timingwheel Authors.
//
// slot_leases.h
// -----------------------------------------------------------------------------
//
// Which slots this process owns, and the renewal round that keeps, balances
// and takes them. Lease times are the database's; every slot is held under
// an epoch that the database increments at each takeover, and every later
// write for the slot's tasks is conditional on it (fencing).
//
// One round (`Tick()`), every third of the lease TTL:
//   1. heartbeat: record this node live, count the live nodes;
//   2. renew the leases still held under the same epochs (the others are
//      lost: a stalled process learns here that it was fenced out);
//   3. fair share = ceil(slots / live nodes): release the surplus (only
//      slots the caller says are idle), or acquire up to the share from
//      free or expired slots (epoch + 1, their claimed rows re-stamped).

#ifndef TIMINGWHEEL_DURABLE_SLOT_LEASES_H_
#define TIMINGWHEEL_DURABLE_SLOT_LEASES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "durable/store.h"

namespace timingwheel {
namespace durable_internal {

// SlotLeases
//
// Thread-compatible: used by the scheduler's maintenance thread only.
class SlotLeases {
 public:
  struct Changes {
    std::vector<SlotEpoch> acquired;
    std::vector<SlotEpoch> released;
    std::vector<int> lost;
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

  // SlotLeases::Tick()
  //
  // One renewal round (see the file comment). `may_release(slot)` says
  // whether a surplus slot may be given up now (no attempt running).
  absl::StatusOr<Changes> Tick(StoreApi& store,
                               const std::function<bool(int)>& may_release);

  // SlotLeases::ReleaseAll()
  //
  // Gives every owned slot up at once (shutdown) and forgets them.
  absl::Status ReleaseAll(StoreApi& store);

  // SlotLeases::Forget()
  //
  // Forgets every slot without telling the database (the local lease ran
  // out: others may hold them already). Returns them.
  std::vector<int> Forget();

  std::vector<SlotEpoch> owned() const;
  size_t size() const { return owned_.size(); }

 private:
  const std::string node_id_;
  const int slot_count_;
  const int64_t ttl_us_;
  const int max_attempts_;
  const int64_t horizon_us_;
  std::map<int, int64_t> owned_;  // slot -> epoch.
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SLOT_LEASES_H_
