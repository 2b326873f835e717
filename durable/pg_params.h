// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/pg_params.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_PG_PARAMS_H_
#define TIMINGWHEEL_DURABLE_PG_PARAMS_H_

#include "durable/sql/pg_params.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_PG_PARAMS_H_
