#!/usr/bin/env bash
# The Python producer test (python_producer_test.py), run by Debian's
# python3, which has psycopg (python3-psycopg; bash .ci/install-deps).
set -euo pipefail
python=/usr/bin/python3
[[ -x $python ]] || python=python3
if [[ -n ${TEST_SRCDIR:-} ]]; then
  script_dir="${TEST_SRCDIR}/timingwheel/tests/durable"
else
  script_dir="$(dirname "${BASH_SOURCE[0]}")"
fi
exec "$python" "${script_dir}/python_producer_test.py" "$@"
