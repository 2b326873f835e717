// Copyright 2026 The timingwheel Authors.
//
// handler_outcome.h
// -----------------------------------------------------------------------------
//
// What a durable handler may return besides OK (done) and an error (a failed
// attempt, retried by the `RetryPolicy` until its attempts are used up):
//
//   * `Snooze(d)`: run the task again `d` from now; this attempt does not
//     count (the next one has the same number). For "not yet" (a resource
//     busy, a rate limit), without spending the retry budget.
//   * `Discard(reason)`: a permanent failure: the task is FAILED at once
//     with `reason`, no more attempts (bad input that no retry will fix).
//   * `RetryAfter(d, reason)`: a failed attempt retried `d` from now
//     instead of after the policy's backoff (a server said "retry after");
//     FAILED if it was the last allowed attempt.
//
// Each is an `absl::Status` that is not OK (the code is for logs: `Snooze`
// is Unavailable, `Discard` FailedPrecondition, `RetryAfter` Unavailable)
// and carries a payload that says what
// to do; any other error is an ordinary failure. Tests: HandlerOutcomeTest.*.
//
// Limits. A handler's verdict reaches no caller that could be told
// InvalidArgument, so what is out of range is brought into range, never
// refused:
//   * A delay is at least zero and at most `kMaxVerdictDelay` (100 years,
//     the longest duration an option may hold): a negative delay is now,
//     a longer one (`absl::InfiniteDuration()` included: "park it") is
//     100 years. A parked task waits as PENDING until then, or until an
//     admin retry or a `Reschedule()` moves it.
//   * The text an attempt's outcome records (the status a handler
//     returned, a `Discard()` or `RetryAfter()` reason, an exception's
//     message) keeps its first `kMaxOutcomeErrorBytes` (16 KiB, cut at a
//     UTF-8 character boundary) and says how many bytes were cut.
// Tests: HandlerVerdictTest.OutOfRangeDelaysAreClamped,
// HandlerVerdictTest.LongErrorsAreCut,
// HandlerOutcomeTest.InfiniteDelaysParkTheTaskAndEveryOutcomeIsWritten.
//
// Example:
//   options.handler = [](const timingwheel::DurableTask& task) {
//     if (!Parse(task.payload)) return timingwheel::Discard("bad payload");
//     if (RateLimited()) return timingwheel::Snooze(absl::Seconds(30));
//     return Send(task.payload);
//   };

#ifndef TIMINGWHEEL_DURABLE_HANDLER_OUTCOME_H_
#define TIMINGWHEEL_DURABLE_HANDLER_OUTCOME_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace timingwheel {

// The longest delay a verdict keeps (longer ones are cut to it).
inline constexpr absl::Duration kMaxVerdictDelay = absl::Hours(24 * 36525);

// The most bytes of error text an outcome records (the rest is cut).
inline constexpr size_t kMaxOutcomeErrorBytes = 16 * 1024;

absl::Status Snooze(absl::Duration delay);
absl::Status Discard(absl::string_view reason);
absl::Status RetryAfter(absl::Duration delay, absl::string_view reason);

namespace durable_internal {

// What a handler's status asks for.
struct HandlerVerdict {
  enum Kind { kOk, kFailure, kSnooze, kDiscard, kRetryAfter } kind = kOk;
  // kSnooze, kRetryAfter; in [0, kMaxVerdictDelay].
  absl::Duration delay;
};

// ClampVerdictDelay()
//
// `delay` brought into [0, kMaxVerdictDelay].
absl::Duration ClampVerdictDelay(absl::Duration delay);

// OutcomeErrorText()
//
// `text` cut to at most kMaxOutcomeErrorBytes (at a UTF-8 character
// boundary), followed by a note of how many bytes were cut when it was.
std::string OutcomeErrorText(std::string text);

// HandlerErrorText()
//
// What an attempt records as its error for the handler's `status`: a
// `Discard()` reason exactly as the handler gave it; any other status as
// `Status::ToString()` without the verdict this file attaches ("UNAVAILABLE:
// busy" for `RetryAfter(d, "busy")`); cut by `OutcomeErrorText()`.
std::string HandlerErrorText(const absl::Status& status);

// ReadVerdict()
//
// The verdict `status` carries (kOk for OK, kFailure for an error without
// one of the payloads above).
HandlerVerdict ReadVerdict(const absl::Status& status);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_HANDLER_OUTCOME_H_
