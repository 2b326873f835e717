// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/producer_functions.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_PRODUCER_FUNCTIONS_H_
#define TIMINGWHEEL_DURABLE_PRODUCER_FUNCTIONS_H_

#include "durable/sql/producer_functions.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_PRODUCER_FUNCTIONS_H_
