// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/store_types.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_STORE_TYPES_H_
#define TIMINGWHEEL_DURABLE_STORE_TYPES_H_

#include "durable/sql/store_types.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_STORE_TYPES_H_
