// Copyright 2026 The timingwheel Authors.
//
// store_injection.h
// -----------------------------------------------------------------------------
//
// Builds a `DurableScheduler` over stores a test provides (the in-memory
// `FakeStore`, or a wrapped `Store`) instead of PostgreSQL connections, so
// that one logic test runs against both implementations. Tests only.

#ifndef TIMINGWHEEL_DURABLE_TESTING_STORE_INJECTION_H_
#define TIMINGWHEEL_DURABLE_TESTING_STORE_INJECTION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "durable/durable_scheduler.h"
#include "durable/sql/store_api.h"

namespace timingwheel {
namespace durable_testing {

// SchedulerStoreAccess: the scheduler's private constructor path.
struct SchedulerStoreAccess {
  static absl::StatusOr<std::unique_ptr<DurableScheduler>> Create(
      DurableOptions options, durable_internal::StoreFactory stores);
};

// CreateSchedulerWithStores()
//
// As `DurableScheduler::Create(options)`, but every store the scheduler
// opens (one for its client calls, one for its maintenance thread) comes
// from `stores`. `options.conninfo` is used only by `Admin()`.
// Thread-safe.
absl::StatusOr<std::unique_ptr<DurableScheduler>> CreateSchedulerWithStores(
    DurableOptions options, durable_internal::StoreFactory stores);

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_STORE_INJECTION_H_
