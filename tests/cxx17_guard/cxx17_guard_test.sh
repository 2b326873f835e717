#!/bin/bash
# Compiles a file that includes timer/timer.h with -std=c++14 and checks
# that the compiler's first error line says -std=c++17 is needed, and that
# compilation stopped there (no wall of template errors after it); then
# that it compiles as C++17, also under strict warnings.
set -u
source_file="$1"
root="$(pwd)"  # The runfiles tree: timer/... lives under it.
compiler="${CXX_FOR_GUARD_TEST:-g++}"
command -v "$compiler" >/dev/null || { echo "FAILED: no $compiler"; exit 1; }
output="$("$compiler" -std=c++14 -fsyntax-only -I "$root" "$source_file" 2>&1)"
status=$?
echo "$output"
fail() { echo "FAILED: $1"; exit 1; }
[ "$status" -ne 0 ] || fail "compiled below C++17"
first_error="$(grep -m1 -E "error" <<<"$output")"
grep -q -- "-std=c++17" <<<"$first_error" ||
  fail "first error line does not name -std=c++17: $first_error"
errors="$(grep -c -E "(error|fatal error):" <<<"$output")"
[ "$errors" -le 2 ] || fail "$errors error lines: the guard did not stop it"
# The same file compiles as C++17 (the guard is not in the way).
"$compiler" -std=c++17 -fsyntax-only -I "$root" "$source_file" ||
  fail "does not compile as C++17"
# And with a user's strict warnings as errors through a plain -I (the
# pkg-config route; CMake's imported targets use -isystem).
"$compiler" -std=c++17 -fsyntax-only -Wall -Wextra -Wshadow -Wpedantic \
  -Werror -I "$root" "$source_file" ||
  fail "the public headers warn under -Wall -Wextra -Wshadow -Wpedantic"
echo "PASSED"
