// Copyright 2026 The timingwheel Authors.

#include "timer/internal/timer_control.h"

#include <cstdint>

namespace timingwheel {
namespace internal {

// ControlRefCache: one thread's spare references to the control block it
// used last (see TimerControl::RefForHandle). Given back when the thread
// moves to another block or exits.
struct ControlRefCache {
  TimerControl* control = nullptr;
  int64_t spare = 0;

  ~ControlRefCache() { Flush(); }
  void Flush() {
    if (control != nullptr && spare > 0) control->Unref(spare);
    control = nullptr;
    spare = 0;
  }
};

namespace {
thread_local ControlRefCache ref_cache;
}  // namespace

void TimerControl::RefForHandle() {
  ControlRefCache& cache = ref_cache;
  if (cache.control != this) {
    cache.Flush();
    cache.control = this;
  }
  if (cache.spare == 0) {
    refs_.fetch_add(kRefBatch, std::memory_order_relaxed);
    cache.spare = kRefBatch;
  }
  --cache.spare;
}

void TimerControl::UnrefForHandle() {
  ControlRefCache& cache = ref_cache;
  if (cache.control == this && cache.spare < 2 * kRefBatch) {
    ++cache.spare;  // Never the last: the cache's spares count too.
    return;
  }
  Unref();
}

}  // namespace internal
}  // namespace timingwheel
