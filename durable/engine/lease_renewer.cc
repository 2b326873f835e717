// Copyright 2026 The timingwheel Authors.

#include "durable/engine/lease_renewer.h"

#include <chrono>
#include <limits>
#include <set>
#include <utility>

#include "durable/engine/fault_point.h"
#include "durable/engine/real_clock.h"

namespace timingwheel {
namespace durable_internal {
LeaseRenewer::LeaseRenewer(Options options, std::unique_ptr<StoreApi> store,
                           const SlotLeases* leases)
    : options_(std::move(options)),
      store_(std::move(store)),
      leases_(leases),
      progress_nanos_(RealNanos()) {}

LeaseRenewer::~LeaseRenewer() { Stop(); }

absl::Status LeaseRenewer::RenewNow() {
  if (!Round()) {
    return absl::UnavailableError("the first lease renewal failed");
  }
  return absl::OkStatus();
}

void LeaseRenewer::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void LeaseRenewer::Stop() {
  {
    internal::MutexLock lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaseRenewer::NoteProgress() { progress_nanos_.store(RealNanos()); }

void LeaseRenewer::NoteWorkBegins(int worker) {
  work_began_nanos_[worker].store(RealNanos());
}

bool LeaseRenewer::stalled() const {
  const int64_t now = RealNanos();
  const int64_t limit = absl::ToInt64Nanoseconds(options_.stall_limit);
  if (now - progress_nanos_.load() > limit) return true;
  for (const std::atomic<int64_t>& began : work_began_nanos_) {
    const int64_t at = began.load();
    if (at != 0 && now - at > limit) return true;
  }
  return false;
}

std::vector<SlotEpoch> LeaseRenewer::TakeLost() {
  internal::MutexLock lock(mu_);
  return std::exchange(lost_, {});
}

bool LeaseRenewer::Round() {
  const int64_t started = RealNanos();
  if (halted_.load()) return false;
  if (stalled()) return false;
  if (broken_) {
    if (!store_->Reconnect().ok()) {
      ++errors_;
      return false;
    }
    broken_ = false;
  }
  FaultPoint("renew.before");
  const std::vector<SlotEpoch> held = leases_->owned();
  const auto timed = std::chrono::steady_clock::now();
  absl::StatusOr<Renewal> round = store_->Renew(
      options_.node_id, held, absl::ToInt64Microseconds(options_.ttl),
      options_.horizon_us, leaving_.load());
  if (options_.timed) options_.timed(timed);
  if (!round.ok()) {
    ++errors_;
    if (absl::IsDeadlineExceeded(round.status())) ++timeouts_;
    if (absl::IsUnavailable(round.status())) broken_ = true;
    return false;
  }
  const std::set<int> kept(round->renewed.begin(), round->renewed.end());
  std::vector<SlotEpoch> lost;
  for (const SlotEpoch& s : held) {
    if (kept.count(s.slot) == 0) lost.push_back(s);
  }
  if (!lost.empty()) {
    // Before the new validity: a handler about to start in a lost slot
    // must not see it as valid.
    if (options_.on_lost) options_.on_lost(lost);
    internal::MutexLock lock(mu_);
    lost_.insert(lost_.end(), lost.begin(), lost.end());
  }
  valid_until_ = started + absl::ToInt64Nanoseconds(options_.ttl);
  next_lapse_in_us_ = round->next_lapse_in_us;
  // The lapse the last round announced has passed: a slot may have come
  // free without the live-node count changing (a lease that outlived its
  // owner's heartbeat), so the balancing round runs as well.
  const bool lapse_passed = started >= lapse_at_nanos_;
  if (lapse_passed) lapses_.fetch_add(1);
  lapse_at_nanos_ =
      round->next_lapse_in_us <= absl::ToInt64Microseconds(options_.ttl)
          ? started + round->next_lapse_in_us * 1000
          : std::numeric_limits<int64_t>::max();
  const bool nodes_changed =
      live_nodes_.exchange(round->live_nodes) != round->live_nodes;
  FaultPoint("renew.after");
  if ((nodes_changed || lapse_passed || !lost.empty()) && options_.wake) {
    options_.wake();
  }
  return true;
}

void LeaseRenewer::Loop() {
  const auto every =
      std::chrono::nanoseconds(absl::ToInt64Nanoseconds(options_.ttl) / 3);
  const auto retry =
      std::chrono::nanoseconds(absl::ToInt64Nanoseconds(options_.retry_after));
  auto next = std::chrono::steady_clock::now() + every;
  internal::MutexLock lock(mu_);
  for (;;) {
    wake_.wait_until(lock.native(), next,
                     [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return stop_; });
    if (stop_) return;
    lock.Unlock();
    const auto started = std::chrono::steady_clock::now();
    const bool ok = Round();
    next = started + (ok ? every : std::min(every, retry));
    // A peer that stopped renewing lapses at its instant: a round then
    // sees the live nodes drop and wakes the balancing round, which takes
    // the slots whose leases ran out with its heartbeat, instead of up to
    // a third of the TTL later. Its leases taken after that heartbeat
    // lapse later: a round at each such lapse wakes the balancing round
    // again. A live peer renews every third of the TTL, so its lapse is
    // never before the next round: no extra round.
    const int64_t lapse_in_us = next_lapse_in_us_.load();
    if (ok && lapse_in_us < absl::ToInt64Microseconds(options_.ttl)) {
      const auto lapse = started + std::chrono::microseconds(lapse_in_us) +
                         std::chrono::milliseconds(1);
      next = std::min(next, std::max(lapse, started + kMinRoundGap));
    }
    lock.Lock();
  }
}

}  // namespace durable_internal
}  // namespace timingwheel
