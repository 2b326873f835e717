// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/fire_batch.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_FIRE_BATCH_H_
#define TIMINGWHEEL_DURABLE_FIRE_BATCH_H_

#include "durable/engine/fire_batch.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_FIRE_BATCH_H_
