// Copyright 2026 The timingwheel Authors.

#include "timer/internal/test_hooks.h"

namespace timingwheel {
namespace internal {

std::atomic<void (*)()> TimerTestHooks::after_revoke{nullptr};

}  // namespace internal
}  // namespace timingwheel
