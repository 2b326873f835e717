// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/client/client_core.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_CLIENT_CORE_H_
#define TIMINGWHEEL_DURABLE_CLIENT_CORE_H_

#include "durable/client/client_core.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_CLIENT_CORE_H_
