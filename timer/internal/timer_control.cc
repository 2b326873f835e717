// Copyright 2026 The timingwheel Authors.

#include "timer/internal/timer_control.h"

#include <cstdint>

namespace timingwheel {
namespace internal {

// Gives the thread's spare references back when it exits. Armed (its
// destructor registered) the first time the thread takes spares.
struct RefCacheReleaser {
  bool armed = false;
  ~RefCacheReleaser() { Flush(); }
  static void Flush() {
    ControlRefCache& cache = control_ref_cache;
    if (cache.control != nullptr && cache.spare > 0) {
      cache.control->Unref(cache.spare);
    }
    cache.control = nullptr;
    cache.spare = 0;
  }
};

namespace {
thread_local RefCacheReleaser ref_cache_releaser;
}  // namespace

void TimerControl::RefForHandleSlow() {
  ref_cache_releaser.armed = true;
  ControlRefCache& cache = control_ref_cache;
  if (cache.control != this) {
    RefCacheReleaser::Flush();
    cache.control = this;
  }
  if (cache.spare == 0) {
    refs_.fetch_add(kRefBatch, std::memory_order_relaxed);
    cache.spare = kRefBatch;
  }
  --cache.spare;
}

}  // namespace internal
}  // namespace timingwheel
