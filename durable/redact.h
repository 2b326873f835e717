// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/sql/redact.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_REDACT_H_
#define TIMINGWHEEL_DURABLE_REDACT_H_

#include "durable/sql/redact.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_REDACT_H_
