"""Where a completion's time goes: EXPLAIN ANALYZE of the completion
statement (kCompleteSql, read from durable/sql/store_attempts.cc as built)
on 1,000 of 20,000 RUNNING rows, rolled back and repeated, on a fresh
database of the server in $TIMINGWHEEL_PG.

Usage (from the repository root):
  bazel build -c opt //tools/twctl:twctl
  bash .ci/with-postgres python3 benchmarks/profile_completion.py \\
      bazel-bin/tools/twctl/twctl [ROUNDS] [--drop-history-fk]

--drop-history-fk measures the same statement once tw_attempt's foreign key
to tw_timer is dropped (what that check costs).

Prints the load average, each round's execution time, and the last
round's plan with the time of each node and of the triggers (the foreign
key of tw_attempt among them).
"""
import os
import re
import subprocess
import sys

SOURCE = "durable/sql/store_attempts.cc"
SIGNATURE = ("(bytea[], int8[], int2[], int8[], bytea[], int8, int4[], text, "
             "bool, int8[])")
ARGUMENTS = ("(:'ids'::bytea[], :'versions'::int8[], :'outcomes'::int2[], "
             ":'backoffs'::int8[], :'errors'::bytea[], 3600000000, "
             ":'attempts'::int4[], 'node', true, :'started'::int8[])")
SETUP = """
INSERT INTO tw_timer (task_id, slot, due_us, state, epoch, attempt, payload)
SELECT convert_to('task-' || lpad(i::text, 6, '0'), 'UTF8'), i % 1024,
       tw_now_us(), 2, 1, 0, 'payload-xxxxxxxx'::bytea
FROM generate_series(1, 20000) i;
VACUUM ANALYZE tw_timer;
"""
BATCH = r"""
CREATE TEMP TABLE batch AS
  SELECT task_id, version FROM tw_timer ORDER BY task_id LIMIT 1000;
SELECT array_agg(task_id ORDER BY task_id)::text AS ids,
       array_agg(version ORDER BY task_id)::text AS versions,
       array_agg(0::int2)::text AS outcomes,
       array_agg(0::int8)::text AS backoffs,
       array_agg(''::bytea)::text AS errors,
       array_agg(1)::text AS attempts,
       array_agg(1::int8)::text AS started FROM batch \gset
"""


def completion_sql():
    text = open(SOURCE).read()
    found = re.search(r'constexpr char kCompleteSql\[\] = R"sql\((.*?)\)sql";',
                      text, re.S)
    if not found:
        sys.exit("kCompleteSql not found in " + SOURCE)
    return found.group(1)


def psql(conninfo, script):
    return subprocess.run(["psql", "-X", "-q", conninfo], input=script,
                          text=True, capture_output=True, check=True).stdout


def main():
    if len(sys.argv) < 2 or "TIMINGWHEEL_PG" not in os.environ:
        sys.exit(__doc__)
    drop_fk = "--drop-history-fk" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--drop-history-fk"]
    twctl, rounds = args[0], int(args[1]) if len(args) > 1 else 5
    admin = os.environ["TIMINGWHEEL_PG"]
    psql(admin, "DROP DATABASE IF EXISTS tw_profile; CREATE DATABASE tw_profile;")
    db = admin + " dbname=tw_profile"
    subprocess.run([twctl, "--db", db, "migrate"], check=True,
                   capture_output=True)
    psql(db, SETUP)
    if drop_fk:
        psql(db, "ALTER TABLE tw_attempt DROP CONSTRAINT tw_attempt_task_id_fkey;")
    script = [BATCH, "PREPARE complete%s AS %s;" % (SIGNATURE, completion_sql())]
    for i in range(rounds):
        options = "ANALYZE, BUFFERS" if i == rounds - 1 else (
            "ANALYZE, TIMING OFF, SUMMARY ON")
        script += ["BEGIN;",
                   "EXPLAIN (%s) EXECUTE complete%s;" % (options, ARGUMENTS),
                   "ROLLBACK;"]
    print(subprocess.run(["uptime"], text=True,
                         capture_output=True).stdout.strip())
    out = psql(db, "\n".join(script) + "\n")
    times = re.findall(r"Execution Time: ([0-9.]+) ms", out)
    print("execution (ms per 1,000 rows):", ", ".join(times))
    print(out[out.rfind("QUERY PLAN"):])


if __name__ == "__main__":
    main()
