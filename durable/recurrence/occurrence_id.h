// Copyright 2026 The timingwheel Authors.
//
// occurrence_id.h
// -----------------------------------------------------------------------------
//
// The task id of one occurrence of a recurring schedule, derived from the
// schedule's name and the occurrence's instant, so that an occurrence can
// be written at most once (the id is tw_timer's primary key):
//
//   kOccurrencePrefix + decimal(name length) + ':' + name + '@' +
//   decimal(occurrence, microseconds since the Unix epoch)
//
// The length makes the encoding unambiguous for names holding any byte,
// and gives every schedule a contiguous range of ids
// (`OccurrenceRange()`). Plain task ids may not start with the prefix
// (`ToInsertRow()` refuses them). Pure functions; thread-safe.

#ifndef TIMINGWHEEL_DURABLE_RECURRENCE_OCCURRENCE_ID_H_
#define TIMINGWHEEL_DURABLE_RECURRENCE_OCCURRENCE_ID_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace timingwheel {
namespace durable_internal {

// The reserved first bytes of an occurrence's task id.
inline constexpr absl::string_view kOccurrencePrefix("\x1btw-schedule:", 13);

// OccurrenceId()
//
// The task id of the occurrence of schedule `name` at `occurrence_us`.
std::string OccurrenceId(absl::string_view name, int64_t occurrence_us);

// OccurrenceRange()
//
// [first, last) such that every occurrence id of `name`, and no other id,
// lies in it (bytewise order, as PostgreSQL compares bytea).
std::pair<std::string, std::string> OccurrenceRange(absl::string_view name);

// ParseOccurrenceId()
//
// True (filling `name` and `occurrence_us`) when `id` is an occurrence id.
bool ParseOccurrenceId(absl::string_view id, std::string* name,
                       int64_t* occurrence_us);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_RECURRENCE_OCCURRENCE_ID_H_
