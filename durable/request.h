// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/client/request.h; kept for code written
// against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_REQUEST_H_
#define TIMINGWHEEL_DURABLE_REQUEST_H_

#include "durable/client/request.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_REQUEST_H_
