// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/recurrence/occurrence_id.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_OCCURRENCE_ID_H_
#define TIMINGWHEEL_DURABLE_OCCURRENCE_ID_H_

#include "durable/recurrence/occurrence_id.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_OCCURRENCE_ID_H_
