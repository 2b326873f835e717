// Copyright 2026 The timingwheel Authors.
//
// Forwarding header: include durable/engine/mirror_task.h; kept for code
// written against the flat layout, removed in a later release.

#ifndef TIMINGWHEEL_DURABLE_MIRROR_TASK_H_
#define TIMINGWHEEL_DURABLE_MIRROR_TASK_H_

#include "durable/engine/mirror_task.h"  // IWYU pragma: export

#endif  // TIMINGWHEEL_DURABLE_MIRROR_TASK_H_
