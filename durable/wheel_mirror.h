// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/wheel_mirror.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_WHEEL_MIRROR_H_
#define TIMINGWHEEL_DURABLE_WHEEL_MIRROR_H_

#include "durable/engine/wheel_mirror.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_WHEEL_MIRROR_H_
