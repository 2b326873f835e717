// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/lease_renewer.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_LEASE_RENEWER_H_
#define TIMINGWHEEL_DURABLE_LEASE_RENEWER_H_

#include "durable/engine/lease_renewer.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_LEASE_RENEWER_H_
