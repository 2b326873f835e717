// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/store.h; kept for code written against
// the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_STORE_H_
#define TIMINGWHEEL_DURABLE_STORE_H_

#include "durable/sql/store.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_STORE_H_
