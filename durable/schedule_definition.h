// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/schedule_definition.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULE_DEFINITION_H_
#define TIMINGWHEEL_DURABLE_SCHEDULE_DEFINITION_H_

#include "durable/sql/schedule_definition.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_SCHEDULE_DEFINITION_H_
