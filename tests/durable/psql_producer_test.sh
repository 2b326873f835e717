#!/usr/bin/env bash
# The SQL producer functions from psql: runs docs/durable.md's psql example
# (between its "psql example begin/end" markers) as printed, against a fresh
# database with the schema (twctl migrate) and the example's orders table,
# and checks what psql prints and what the tables hold: the order and its
# expiry were scheduled in one transaction, the debounce scheduled, the
# expiry cancelled. Needs $TIMINGWHEEL_PG (bash .ci/with-postgres).
set -euo pipefail
if [[ -z ${TIMINGWHEEL_PG:-} ]]; then
  echo "psql_producer_test: TIMINGWHEEL_PG is not set: run it as bash" \
    ".ci/with-postgres bazel test --test_env=TIMINGWHEEL_PG" \
    "//tests/durable:psql_producer_test" >&2
  exit 1
fi
if [[ -n ${TEST_SRCDIR:-} ]]; then
  root="${TEST_SRCDIR}/timingwheel"
  twctl="$root/tools/twctl/twctl"
else  # CTest: the script in the source tree, twctl in the build tree.
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  twctl="$PWD/tools/twctl/twctl"
fi
db="tw_psql_$$_$RANDOM"
psql "$TIMINGWHEEL_PG" -qAt -v ON_ERROR_STOP=1 -c "CREATE DATABASE $db"
trap 'psql "$TIMINGWHEEL_PG" -qAt -c "DROP DATABASE IF EXISTS $db" || true' EXIT
conninfo="$TIMINGWHEEL_PG dbname=$db"
"$twctl" --db "$conninfo" migrate >/dev/null
psql "$conninfo" -qAt -v ON_ERROR_STOP=1 \
  -c "CREATE TABLE orders (id text PRIMARY KEY, total int NOT NULL)"

example=$(sed -n '/<!-- psql example begin -->/,/<!-- psql example end -->/p' \
  "$root/docs/durable.md" | sed '1,2d;$d' | sed '$d')
if [[ -z $example ]]; then
  echo "psql_producer_test: no psql example in docs/durable.md" >&2
  exit 1
fi
printf '%s\n' "$example"
got=$(printf '%s\n' "$example" | psql "$conninfo" -qAt -v ON_ERROR_STOP=1)
want=$'SCHEDULED\nSCHEDULED\nCANCELLED'
status=0
if [[ $got != "$want" ]]; then
  echo "psql_producer_test: psql printed:"$'\n'"$got"$'\n'"expected:"$'\n'"$want" >&2
  status=1
fi
rows=$(psql "$conninfo" -qAt -v ON_ERROR_STOP=1 -c "
  SELECT (SELECT count(*) FROM orders) || ' ' ||
         (SELECT count(*) FROM tw_timer) || ' ' ||
         (SELECT convert_from(payload, 'UTF8') FROM tw_timer
          WHERE task_id = convert_to('digest-user-7', 'UTF8'))")
if [[ $rows != "1 1 user=7" ]]; then
  echo "psql_producer_test: orders, tasks, digest payload: '$rows'," \
    "expected '1 1 user=7'" >&2
  status=1
fi
[[ $status -eq 0 ]] && echo "psql_producer_test: passed"
exit $status
