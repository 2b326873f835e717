// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/real_clock.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_REAL_CLOCK_H_
#define TIMINGWHEEL_DURABLE_REAL_CLOCK_H_

#include "durable/engine/real_clock.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_REAL_CLOCK_H_
