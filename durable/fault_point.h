// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/fault_point.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_FAULT_POINT_H_
#define TIMINGWHEEL_DURABLE_FAULT_POINT_H_

#include "durable/engine/fault_point.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_FAULT_POINT_H_
