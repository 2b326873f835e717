// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/slot_leases.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_SLOT_LEASES_H_
#define TIMINGWHEEL_DURABLE_SLOT_LEASES_H_

#include "durable/engine/slot_leases.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_SLOT_LEASES_H_
