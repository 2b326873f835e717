// Copyright 2026 The timingwheel Authors.
//
// redact.h
// -----------------------------------------------------------------------------
//
// Keeping a connection string's password out of every error message. libpq
// quotes a connection string it cannot parse whole (password included), and
// a server's messages could echo one; every message the durable tier builds
// from libpq's passes through `ScrubSecrets()` first.
//
// Tested by tests/durable/redact_test.cc (the scrubbing rules) and by the
// password tests in store_test.cc, durable_scheduler_test.cc and
// durable_client_test.cc (every public entry point).

#ifndef TIMINGWHEEL_DURABLE_SQL_REDACT_H_
#define TIMINGWHEEL_DURABLE_SQL_REDACT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace timingwheel {
namespace durable_internal {

// PasswordCandidates()
//
// Every string in `conninfo` that may be a password: the one libpq parses
// from it (if it parses) and, parsable or not, anything that looks like the
// `pass` of `scheme://user:pass@host` or the value of `password=...`
// (keyword form, quoted or not, and URI query form), raw and unescaped.
std::vector<std::string> PasswordCandidates(absl::string_view conninfo);

// ScrubSecrets()
//
// `message` with every occurrence of each of `secrets` replaced by "***",
// and then every `password=VALUE` and every `://user:VALUE@` it still
// contains with VALUE replaced by "***". Empty secrets are ignored.
std::string ScrubSecrets(absl::string_view message,
                         const std::vector<std::string>& secrets);

// ConnInfoParses()
//
// Whether libpq can parse `conninfo` (keyword/value or URI form).
bool ConnInfoParses(const std::string& conninfo, std::string* error);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_REDACT_H_
