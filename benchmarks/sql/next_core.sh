#!/usr/bin/env bash
# Usage: bash benchmarks/sql/next_core.sh   (NEXT_CORE_ROWS=N: N timers,
#        default 10^6; benchmark-smoke runs it at 10^4 so that it keeps
#        working)
#
# Times, on a throwaway PostgreSQL 15 (.ci/with-postgres) holding 10^6
# timers, what a takeover and a fire cost today against what the planned
# core (docs/durable-core-plan.md) would run: the horizon load that claims
# every row of the taken slots, against a read of each slot's next due
# time; the fire by ids of rows claimed first, against a fire of each
# slot's due rows fenced by its lease. Runs the statements twice (the
# second pass has a warm cache) and prints the load average beside them.
set -euo pipefail
rows=${NEXT_CORE_ROWS:-1000000}
cd "$(dirname "$0")/../.."
here=benchmarks/sql
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
bash .ci/with-postgres bash -c '
  set -euo pipefail
  psql -q "$TIMINGWHEEL_PG" -c "CREATE DATABASE next_core"
  db="${TIMINGWHEEL_PG/dbname=postgres/dbname=next_core}"
  psql -q -X -v ON_ERROR_STOP=1 -v rows='"$rows"' "$db" -f '"$here"'/next_core_setup.sql
  for pass in 1 2; do
    echo "== pass $pass"
    psql -X -v ON_ERROR_STOP=1 "$db" -f '"$here"'/next_core_bench.sql
  done'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
