// Copyright 2026 The timingwheel Authors.
//
// mock_purgatory.h
// -----------------------------------------------------------------------------
//
// `MockPurgatory<Key>` makes a deterministic purgatory test a few lines: a
// real `DelayedOperationPurgatory` on a real timer (a `MockTimer`) whose
// clock moves only when the test says so. `AdvanceBy()` moves the clock and
// runs every expiration that came due, on the calling thread, before it
// returns: no reaper thread to race with, no executor to drain by hand.

#ifndef TIMINGWHEEL_PURGATORY_TESTING_MOCK_PURGATORY_H_
#define TIMINGWHEEL_PURGATORY_TESTING_MOCK_PURGATORY_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "timer/testing/manual_clock.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace testing {

// MockPurgatory
//
// Owns a `MockTimer` (manual clock, manual executor, no reaper) and a
// `DelayedOperationPurgatory<Key, Hash, Eq>` that shares it
// (`PurgatoryOptions::shared_timer`). Nothing expires until `AdvanceBy()`.
// The purgatory is destroyed before the timer. Thread-safe as the purgatory
// is; `AdvanceBy()` runs expirations on its caller.
//
// Example:
//   MockPurgatory<std::string> purgatory;
//   auto op = MakeTask<MyOperation>(absl::Seconds(1));
//   purgatory->TryCompleteElseWatch(op, {"key"}).value();  // kWatching
//   purgatory.AdvanceBy(absl::Milliseconds(999));  // Returns 0.
//   purgatory.AdvanceBy(absl::Milliseconds(1));    // Returns 1: it expired,
//                                                  // its callbacks have run.
template <typename Key, typename Hash = absl::Hash<Key>,
          typename Eq = std::equal_to<Key>>
class MockPurgatory {
 public:
  using Purgatory = DelayedOperationPurgatory<Key, Hash, Eq>;

  // `options.timer` configures the mock timer (its clock, executor and
  // reaper are replaced; tick, wheel size, max_pending and error hook are
  // used); `options.shared_timer` is replaced. The rest (shards, error hook)
  // goes to the purgatory. Dies on invalid options (a test helper).
  explicit MockPurgatory(PurgatoryOptions options = PurgatoryOptions())
      : timer_(options.timer) {
    options.shared_timer = &timer_.timer();
    absl::StatusOr<std::unique_ptr<Purgatory>> purgatory =
        Purgatory::Create(std::move(options));
    if (!purgatory.ok()) {
      std::fprintf(stderr, "MockPurgatory: %s\n",
                   purgatory.status().ToString().c_str());
      std::abort();
    }
    purgatory_ = std::move(purgatory).value();
  }

  MockPurgatory(const MockPurgatory&) = delete;
  MockPurgatory& operator=(const MockPurgatory&) = delete;

  // Destroys the purgatory (expiring what still waits, on this thread),
  // then the timer.
  ~MockPurgatory() { purgatory_.reset(); }

  // MockPurgatory::AdvanceBy()
  //
  // Moves the clock forward by `delta`, then runs on the calling thread,
  // before returning, every expiration due by the new time (`OnComplete()`
  // then `OnExpiration()`), including those of operations handed in by
  // these callbacks and already due. Returns how many operations expired.
  int64_t AdvanceBy(absl::Duration delta) {
    const int64_t expired_before = purgatory_->Metrics().expired;
    timer_.AdvanceBy(delta);
    return purgatory_->Metrics().expired - expired_before;
  }

  // MockPurgatory::RunDue()
  //
  // `AdvanceBy(absl::ZeroDuration())`: runs the expirations due now.
  int64_t RunDue() { return AdvanceBy(absl::ZeroDuration()); }

  // MockPurgatory::Now()
  //
  // The mock clock's time since it started.
  absl::Duration Now() { return absl::Nanoseconds(timer_.clock().NowNanos()); }

  Purgatory& purgatory() { return *purgatory_; }
  Purgatory* operator->() { return purgatory_.get(); }
  Timer& timer() { return timer_.timer(); }
  ManualClock& clock() { return timer_.clock(); }

 private:
  MockTimer timer_;
  std::unique_ptr<Purgatory> purgatory_;
};

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_TESTING_MOCK_PURGATORY_H_
