// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_token.h"

#include <cstddef>

namespace timingwheel {
namespace twctl {

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Every byte of the longer one is read whatever the contents; a length
  // difference is folded into the result rather than returned early.
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  volatile unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff = diff | (x ^ y);
  }
  return diff == 0;
}

bool TokenAllows(absl::string_view expected, absl::string_view given) {
  if (expected.empty()) return false;
  return ConstantTimeEquals(expected, given);
}

}  // namespace twctl
}  // namespace timingwheel
