// Copyright 2026 The timingwheel Authors.

#include "durable/testing/store_injection.h"

#include <utility>

namespace timingwheel {
namespace durable_testing {

absl::StatusOr<std::unique_ptr<DurableScheduler>> SchedulerStoreAccess::Create(
    DurableOptions options, durable_internal::StoreFactory stores) {
  return DurableScheduler::Create(std::move(options), std::move(stores));
}

absl::StatusOr<std::unique_ptr<DurableScheduler>> CreateSchedulerWithStores(
    DurableOptions options, durable_internal::StoreFactory stores) {
  return SchedulerStoreAccess::Create(std::move(options), std::move(stores));
}

}  // namespace durable_testing
}  // namespace timingwheel
