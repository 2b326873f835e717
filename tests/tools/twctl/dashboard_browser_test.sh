#!/usr/bin/env bash
# The dashboard's browser test (dashboard_browser_test.py), run by python3.
set -euo pipefail
if ! command -v python3 >/dev/null; then
  echo "dashboard_browser_test: python3 is missing (bash .ci/install-deps)" >&2
  exit 1
fi
exec python3 "${TEST_SRCDIR}/timingwheel/tests/tools/twctl/dashboard_browser_test.py" "$@"
