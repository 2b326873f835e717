#!/usr/bin/env bash
# Usage: bash benchmarks/sql/slot_walk.sh
#
# Why the fire by slot (DurableOptions::fire_by_slot) burns down 20,000
# tasks due at one instant slower than today's engine: on a throwaway
# PostgreSQL 15 (.ci/with-postgres), 20,000 rows of one due instant over
# 1024 slots, the first row of each slot in the fire's order (due time,
# priority, id) read over today's index (slot, due_us): each slot's 20 due
# rows are read and sorted to take one. Then over an index (slot, due_us,
# priority DESC) without the id tie-break: one row read per slot.
# EXPLAIN ANALYZE prints the rows read; the load average is printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build //tools/twctl >/dev/null 2>&1
uptime
bash .ci/with-postgres bash -c '
set -euo pipefail
TIMINGWHEEL_DB="$TIMINGWHEEL_PG" bazel-bin/tools/twctl/twctl migrate >/dev/null
psql "$TIMINGWHEEL_PG" -q -v ON_ERROR_STOP=1 -f benchmarks/sql/slot_walk.sql'
uptime
