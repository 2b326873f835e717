// Copyright 2026 The timingwheel Authors.
//
// report_error.h
// -----------------------------------------------------------------------------
//
// `ReportUnhandledError()`: what the timer and the purgatory do with an
// exception thrown by a user's callback when the user set no error hook:
// report it on stderr, once per distinct exception type and source, rather
// than swallow it (as Netty logs an exception thrown by a timer task).
//
// Not a public API: used by timer.cc and purgatory/.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_REPORT_ERROR_H_
#define TIMINGWHEEL_TIMER_INTERNAL_REPORT_ERROR_H_

#include <exception>

namespace timingwheel {
namespace internal {

// ReportUnhandledError()
//
// Writes one line to stderr naming `source` (what threw, e.g. "a timer
// callback"), the exception's type (demangled where the ABI allows:
// "std::runtime_error", "int"), its `what()` (for a `std::exception`) and
// `hook` (the option that would handle it), the first time an exception
// of that type comes from that `source` in this process; later ones of the
// same type and source are not printed. Never throws. Thread-safe.
void ReportUnhandledError(std::exception_ptr error, const char* source,
                          const char* hook);

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_REPORT_ERROR_H_
