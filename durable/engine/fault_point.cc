// Copyright 2026 The timingwheel Authors.

#include "durable/engine/fault_point.h"

namespace timingwheel {
namespace durable_internal {

std::atomic<FaultHook>& FaultHookSlot() {
  static std::atomic<FaultHook> hook{nullptr};
  return hook;
}

}  // namespace durable_internal
}  // namespace timingwheel
