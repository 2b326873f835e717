// Copyright 2026 The timingwheel Authors.
//
// serve_token.h
// -----------------------------------------------------------------------------
//
// The check that guards every mutating action of `twctl serve`: a POST
// carries the token given on the command line (form field `token`, or
// header `X-Twctl-Token`), compared in constant time. Without a token on
// the command line the dashboard is read-only: every action is refused.
//
// Tests: tests/tools/twctl/serve_html_test.cc (ServeTokenTest.*).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_TOKEN_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_TOKEN_H_

#include "absl/strings/string_view.h"

namespace timingwheel {
namespace twctl {

// ConstantTimeEquals()
//
// Whether `a == b`, in time that depends on their lengths only, not on
// where they differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

// TokenAllows()
//
// Whether `given` unlocks actions guarded by `expected`: false whenever
// `expected` is empty (no token configured: read-only), else
// `ConstantTimeEquals(expected, given)`.
bool TokenAllows(absl::string_view expected, absl::string_view given);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_TOKEN_H_
