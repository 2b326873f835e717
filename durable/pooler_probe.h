// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/pooler_probe.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_POOLER_PROBE_H_
#define TIMINGWHEEL_DURABLE_POOLER_PROBE_H_

#include "durable/sql/pooler_probe.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_POOLER_PROBE_H_
