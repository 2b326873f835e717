// Copyright 2026 The timingwheel Authors.
//
// fake_store_internal.h
// -----------------------------------------------------------------------------
//
// For FakeStore's own files: `TW_FAKE_FAIL(method)` returns the failure a
// test queued for `method` with `FakeDatabase::FailNext()`, if any. Used in
// a FakeStore member function, after taking the database's lock.

#ifndef TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_INTERNAL_H_
#define TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_INTERNAL_H_

#include "absl/status/status.h"

#define TW_FAKE_FAIL(method)                          \
  do {                                                \
    absl::Status injected = db_->TakeFailure(method); \
    if (!injected.ok()) return injected;              \
  } while (false)

#endif  // TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_INTERNAL_H_
