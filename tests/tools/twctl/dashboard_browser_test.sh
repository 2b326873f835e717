#!/usr/bin/env bash
# The dashboard's browser test (dashboard_browser_test.py), run by python3.
set -euo pipefail
if ! command -v python3 >/dev/null; then
  echo "dashboard_browser_test: python3 is missing (bash .ci/install-deps)" >&2
  exit 1
fi
# Under Bazel the script sits in the runfiles tree (TEST_SRCDIR); under CTest
# (tests/tools/twctl/CMakeLists.txt) it runs from the source tree, beside it.
if [[ -n ${TEST_SRCDIR:-} ]]; then
  script_dir="${TEST_SRCDIR}/timingwheel/tests/tools/twctl"
else
  script_dir="$(dirname "${BASH_SOURCE[0]}")"
fi
exec python3 "${script_dir}/dashboard_browser_test.py" "$@"
