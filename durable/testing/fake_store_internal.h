// Copyright 2026 The timingwheel Authors.
//
// fake_store_internal.h
// -----------------------------------------------------------------------------
//
// For FakeStore's own files: `TW_FAKE_FAIL(method)` returns the failure a
// test queued for `method` with `FakeDatabase::FailNext()`, if any. Used in
// a FakeStore member function, after taking the database's lock. And
// `StartedOf()`, the attempt a fire returns for a row it wrote RUNNING.

#ifndef TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_INTERNAL_H_
#define TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_INTERNAL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/sql/store_types.h"
#include "durable/testing/fake_database.h"

#define TW_FAKE_FAIL(method)                          \
  do {                                                \
    absl::Status injected = db_->TakeFailure(method); \
    if (!injected.ok()) return injected;              \
  } while (false)

namespace timingwheel {
namespace durable_testing {

// The attempt the fire of `task` (stored as `id`, just written RUNNING at
// `now_us`) starts: the next attempt, and the schedule and instant of a
// recurring occurrence, as the real store's fires return it.
inline durable_internal::Started StartedOf(const std::string& id,
                                           const FakeDatabase::Task& task,
                                           int64_t now_us) {
  durable_internal::Started started;
  started.task.id = id;
  started.task.payload = task.payload;
  started.task.attempt = task.attempt + 1;
  started.task.due = absl::FromUnixMicros(task.due_us);
  int64_t occurrence_us = 0;
  if (durable_internal::ParseOccurrenceId(id, &started.task.schedule,
                                          &occurrence_us)) {
    started.task.occurrence = absl::FromUnixMicros(occurrence_us);
  }
  started.task.kind = task.kind;
  started.task.priority = task.priority;
  started.slot = task.slot;
  started.epoch = task.epoch;
  started.version = task.version;
  started.started_us = now_us;
  return started;
}

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_INTERNAL_H_
