// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/recurrence/schedule_plan.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULE_PLAN_H_
#define TIMINGWHEEL_DURABLE_SCHEDULE_PLAN_H_

#include "durable/recurrence/schedule_plan.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_SCHEDULE_PLAN_H_
