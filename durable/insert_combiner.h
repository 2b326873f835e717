// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/client/insert_combiner.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_INSERT_COMBINER_H_
#define TIMINGWHEEL_DURABLE_INSERT_COMBINER_H_

#include "durable/client/insert_combiner.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_INSERT_COMBINER_H_
