// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/schedule_store_api.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_SCHEDULE_STORE_API_H_
#define TIMINGWHEEL_DURABLE_SCHEDULE_STORE_API_H_

#include "durable/sql/schedule_store_api.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_SCHEDULE_STORE_API_H_
