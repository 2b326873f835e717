// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/periodic_duties.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_PERIODIC_DUTIES_H_
#define TIMINGWHEEL_DURABLE_PERIODIC_DUTIES_H_

#include "durable/engine/periodic_duties.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_PERIODIC_DUTIES_H_
