"""Durable tasks scheduled from Python (Debian's psycopg 3) through the SQL
producer functions, run by a C++ scheduler (sql_producer_worker).

Checks, against a fresh database the worker creates:
  * a task scheduled in the caller's transaction, beside the caller's own
    row, runs once with its payload and kind; a rolled-back one never runs
    and is never stored;
  * a retry of the same call is idempotent ('EXISTS'), and a different
    task under the same id is refused (psycopg.errors.UniqueViolation);
  * bad input raises psycopg.errors.InvalidParameterValue naming the field;
  * a debounce (KEEP_LATER) from Python keeps the last event's due time;
  * cancel answers as the C++ client.
Every wait is bounded. Standard library and psycopg only.
"""

import datetime
import os
import select
import subprocess
import sys
import time

try:
    import psycopg
    import psycopg.errors
except ImportError:
    print("python_producer_test: psycopg is missing (Debian's "
          "python3-psycopg; bash .ci/install-deps installs it)",
          file=sys.stderr)
    sys.exit(1)

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def runfile(path):
    """A data dependency's path in the runfiles tree (Bazel), else relative
    to the working directory (CTest runs it in the build tree)."""
    base = os.environ.get("TEST_SRCDIR")
    if base:
        return os.path.join(base, "timingwheel", path)
    return path


class Worker:
    """The scheduler process; collects its "RAN" lines."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [runfile("tests/durable/sql_producer_worker")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buffer = b""
        self.ran = []
        self.pending = []
        self.conninfo = self.line("CONNINFO ", 60)[len("CONNINFO "):]
        self.line("READY", 60)

    def _read(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if ready:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError("the worker exited")
            self.buffer += chunk
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            text = line.decode("utf-8", "replace")
            if text.startswith("RAN "):
                self.ran.append(tuple(text.split(" ", 3)[1:]))
            else:
                self.pending.append(text)

    def line(self, prefix, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, text in enumerate(self.pending):
                if text.startswith(prefix):
                    del self.pending[: i + 1]
                    return text
            self._read(0.2)
        raise RuntimeError("no line %r from the worker" % prefix)

    def wait_ran(self, task_id, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if any(r[1] == task_id for r in self.ran):
                return True
            self._read(0.2)
        return False

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    if not os.environ.get("TIMINGWHEEL_PG"):
        print("python_producer_test: TIMINGWHEEL_PG is not set: run it as "
              "bash .ci/with-postgres bazel test --test_env=TIMINGWHEEL_PG "
              "//tests/durable:python_producer_test", file=sys.stderr)
        return 1
    worker = Worker()
    try:
        with psycopg.connect(worker.conninfo) as conn:
            conn.execute("CREATE TABLE reminders (id text PRIMARY KEY, "
                          "note text NOT NULL)")
            conn.commit()

            # In the caller's transaction, beside its own row.
            with conn.transaction():
                conn.execute("INSERT INTO reminders VALUES (%s, %s)",
                             ("r-1", "call Ada"))
                outcome = conn.execute(
                    "SELECT tw_schedule_task_after(%s, %s, %s, kind => %s)",
                    ("remind-r-1", datetime.timedelta(seconds=0),
                     b"call Ada", "reminder")).fetchone()[0]
            check(outcome == "SCHEDULED", "scheduled from Python: %s" % outcome)

            # Rolled back: neither the row nor the task.
            try:
                with conn.transaction():
                    conn.execute(
                        "SELECT tw_schedule_task_after(%s, %s, %s)",
                        ("rolled-back", datetime.timedelta(seconds=0), b"x"))
                    raise RuntimeError("roll back")
            except RuntimeError:
                pass

            # Idempotent by id; a different task under the id is refused.
            due = datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)
            call = "SELECT tw_schedule_task(%s, %s, %s)"
            first = conn.execute(call, ("later", due, b"p")).fetchone()[0]
            again = conn.execute(call, ("later", due, b"p")).fetchone()[0]
            conn.commit()
            check((first, again) == ("SCHEDULED", "EXISTS"),
                  "a retried call is idempotent: %s, %s" % (first, again))
            try:
                conn.execute(call, ("later", due, b"other"))
                check(False, "a different task under an existing id is "
                             "refused")
            except psycopg.errors.UniqueViolation:
                check(True, "a different task under an existing id raises "
                            "UniqueViolation")
            conn.rollback()

            # Bad input names its field.
            for args, field in [(("", due, b"p"), "task_id"),
                                (("a", due, b""), "payload"),
                                (("a", None, b"p"), "due")]:
                try:
                    conn.execute(call, args)
                    check(False, "bad %s refused" % field)
                except psycopg.errors.InvalidParameterValue as e:
                    message = e.diag.message_primary
                    check(message.startswith("timingwheel: " + field),
                          "bad %s refused: %s" % (field, message))
                conn.rollback()
            try:
                conn.execute("SELECT tw_schedule_task(%s, %s, %s, %s)",
                             ("a", due, b"p", "no-such-kind"))
                check(False, "an unknown kind is refused")
            except psycopg.errors.InvalidParameterValue as e:
                check("no-such-kind" in e.diag.message_primary,
                      "unknown kind refused: %s" % e.diag.message_primary)
            conn.rollback()

            # Debounce: three events; the last one's due time is kept.
            debounce = "SELECT tw_schedule_or_replace_after(%s, %s, %s, %s)"
            outcomes = [conn.execute(debounce, (
                "debounce-1", datetime.timedelta(hours=h), b"e%d" % h,
                "KEEP_LATER")).fetchone()[0] for h in (1, 3, 2)]
            conn.commit()
            check(outcomes == ["SCHEDULED", "REPLACED", "KEPT"],
                  "debounce outcomes %r" % outcomes)
            hours = conn.execute(
                "SELECT round((due_us - tw_now_us()) / 3.6e9) FROM tw_timer "
                "WHERE task_id = 'debounce-1'::bytea").fetchone()[0]
            check(int(hours) == 3, "debounce keeps the latest due time: %s h"
                  % hours)
            cancel = conn.execute("SELECT tw_cancel_task(%s)",
                                  ("debounce-1",)).fetchone()[0]
            gone = conn.execute("SELECT tw_cancel_task(%s)",
                                ("debounce-1",)).fetchone()[0]
            conn.commit()
            check((cancel, gone) == ("CANCELLED", "NOT_FOUND"),
                  "cancel answers %s, then %s" % (cancel, gone))

            # A sentinel due now, after the rolled-back call: once it has
            # run, the rolled-back task would have run too.
            conn.execute("SELECT tw_schedule_task_after(%s, %s, %s)",
                         ("sentinel", datetime.timedelta(0), b"s"))
            conn.commit()
            check(worker.wait_ran("remind-r-1"), "the reminder ran")
            check(worker.wait_ran("sentinel"), "the sentinel ran")
            stored = conn.execute(
                "SELECT count(*) FROM tw_timer WHERE task_id = "
                "'rolled-back'::bytea").fetchone()[0]
            check(stored == 0, "the rolled-back task was never stored")
        check(sorted(worker.ran) == sorted([
            ("reminder", "remind-r-1", "call Ada"), ("-", "sentinel", "s")]),
            "what ran: %r" % worker.ran)
    finally:
        worker.close()
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("python_producer_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
