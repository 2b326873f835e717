#!/usr/bin/env bash
# Builds the timer model fuzzer with clang and libFuzzer (ASan + UBSan):
#   tests/fuzz/build.sh OUT_DIR   -> OUT_DIR/timer_model_fuzz
# Bazel here is configured for gcc, so this compiles the timer's sources,
# the manual clock, the model and the fuzz entry directly, linking Debian's
# Abseil shared libraries (the -labsl_* names of third_party/debian/absl.bzl).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: tests/fuzz/build.sh OUT_DIR}
mkdir -p "$out"
CXX=${CXX:-clang++-14}
command -v "$CXX" >/dev/null || CXX=clang++

# Every source of the timer library and its testing doubles (listed by git,
# so a new file of the timer is never left out of the link), then the model
# and the fuzz entry.
mapfile -t sources < <(git ls-files 'timer/*.cc')
sources+=(tests/timer/model/timer_model.cc tests/fuzz/timer_model_fuzz.cc)
absl_libs=(
  absl_statusor absl_status absl_strerror absl_cord absl_cordz_info
  absl_cord_internal absl_cordz_functions absl_exponential_biased
  absl_cordz_handle absl_synchronization absl_graphcycles_internal
  absl_stacktrace absl_symbolize absl_debugging_internal
  absl_demangle_internal absl_malloc_internal absl_str_format_internal
  absl_time absl_civil_time absl_time_zone absl_strings absl_strings_internal
  absl_int128 absl_throw_delegate absl_bad_variant_access
  absl_bad_optional_access absl_base absl_raw_logging_internal
  absl_log_severity absl_spinlock_wait
)
"$CXX" -std=c++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I. "${sources[@]}" -o "$out/timer_model_fuzz" \
  "${absl_libs[@]/#/-l}" -pthread
echo "built $out/timer_model_fuzz"
