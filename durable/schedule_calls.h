// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/client/schedule_calls.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULE_CALLS_H_
#define TIMINGWHEEL_DURABLE_SCHEDULE_CALLS_H_

#include "durable/client/schedule_calls.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_SCHEDULE_CALLS_H_
