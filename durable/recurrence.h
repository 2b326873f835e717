// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/recurrence/recurrence.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_RECURRENCE_H_
#define TIMINGWHEEL_DURABLE_RECURRENCE_H_

#include "durable/recurrence/recurrence.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_RECURRENCE_H_
