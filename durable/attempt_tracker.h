// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/attempt_tracker.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_ATTEMPT_TRACKER_H_
#define TIMINGWHEEL_DURABLE_ATTEMPT_TRACKER_H_

#include "durable/engine/attempt_tracker.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_ATTEMPT_TRACKER_H_
