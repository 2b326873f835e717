#!/usr/bin/env python3
# Copyright 2026 The timingwheel Authors.
"""The dashboard (`twctl serve`) in a real browser: headless Chromium.

Starts the dashboard fixture (a scheduler with tasks in every state, on a
fresh database of $TIMINGWHEEL_PG), then `twctl --db ... serve` on a free
port, and:

  * loads every page with `chromium --dump-dom` and checks what it shows
    against the tables (read with psql): the counts by state, every task
    row and its state, the slots and their owners, the failed tasks and
    their errors; that a `<script>` in an id or an error is text, never an
    element;
  * checks the kind column of the tasks page and the kind filter (a kind
    with HTML in it, shown as text), and that the task page of a failed
    task shows its attempt history as tw_attempt holds it (the fixture
    writes those rows while the schedulers do not);
  * checks the overview's problems (the failing kind, no stale node) and
    its slots per owner against the lease table, its auto-refresh and the
    way to stop it; the schedules page against tw_schedule; that the task
    lists leave recurring occurrences out unless asked and show them as
    "NAME @ UTC time";
  * saves a screenshot of every page into $TEST_UNDECLARED_OUTPUTS_DIR;
  * through Chromium's remote debugging protocol (cdp.py, with a tiny
    websocket client: python3's standard library has none), types the token
    into the Retry form of a failed task (the one whose id is
    `<script>...`), clicks Retry with a real mouse event, and waits until
    the task's row shows SUCCESS (the scheduler ran it again), and the
    table says so too;
  * checks that a POST without the token is refused (403).

Python 3 standard library only. Without chromium it fails, saying that
`bash .ci/install-deps` installs it.
"""

import base64
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402  (beside this file, in the runfiles)
from dashboard_dom import Dom  # noqa: E402  (likewise)

TOKEN = "dash-token-0123456789"
HOSTILE_ID = "<script>alert('id')</script>"
SCHEDULE_NAME = "nightly <i>report</i>"
# The hex of every occurrence id's first bytes (durable/recurrence/occurrence_id.h).
OCCURRENCE_HEX = b"\x1btw-schedule:".hex()
STATES = ["PENDING", "SCHEDULED", "RUNNING", "SUCCESS", "FAILED"]
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,1400",
]

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)
    return condition


def runfile(path):
    """A data dependency's path in the runfiles tree (or the workspace)."""
    for root in (os.environ.get("TEST_SRCDIR"), os.environ.get("RUNFILES_DIR")):
        if root:
            candidate = os.path.join(root, "timingwheel", path)
            if os.path.exists(candidate):
                return candidate
    return path


_line_buffers = {}


def read_line(proc, prefix, timeout):
    """Reads proc's stdout until a line starting with prefix (bounded).

    Reads the pipe's descriptor directly (select() and a buffered reader do
    not mix), keeping what follows the line for the next call.
    """
    deadline = time.time() + timeout
    fd = proc.stdout.fileno()
    buffer = _line_buffers.setdefault(fd, bytearray())
    seen = []
    while True:
        while b"\n" in buffer:
            line, _, rest = bytes(buffer).partition(b"\n")
            buffer[:] = rest
            line = line.decode("utf-8", "replace")
            seen.append(line)
            if line.startswith(prefix):
                return line
        remaining = deadline - time.time()
        if remaining <= 0:
            break
        ready, _, _ = select.select([fd], [], [], min(remaining, 0.2))
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
        elif proc.poll() is not None:
            break
    raise RuntimeError("no line %r from %s (saw %r)" % (prefix, proc.args[0], seen))


def psql(conninfo, sql):
    out = subprocess.run(["psql", conninfo, "-At", "-F", "\t", "-c", sql],
                         check=True, capture_output=True, timeout=30).stdout
    return [line.split("\t") for line in out.decode().splitlines() if line]


class Browser:
    """One headless Chromium, driven over its debugging protocol, for every
    page read and screenshot (one browser start, not one per page)."""

    def __init__(self, chromium, outputs):
        self.devtools = cdp.DevTools(chromium, CHROMIUM_FLAGS)
        self.outputs = outputs

    def dom(self, url):
        self.devtools.navigate(url)
        text = self.devtools.evaluate("document.documentElement.outerHTML")
        if not text:
            raise RuntimeError("no DOM for %s" % url)
        return text

    def screenshot(self, url, name):
        self.devtools.navigate(url)
        data = self.devtools.call("Page.captureScreenshot", format="png")
        path = os.path.join(self.outputs, name + ".png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(data.get("data", "")))
        check(os.path.getsize(path) > 0,
              "screenshot of %s saved as %s" % (url, path))

    def close(self):
        self.devtools.close()


def table_states(conninfo, occurrences=False):
    """Every task's state by hex id; recurring occurrences only if asked
    (the task lists leave them out by default)."""
    return {row[0]: STATES[int(row[1])] for row in psql(
        conninfo, "SELECT encode(task_id, 'hex'), state FROM tw_timer")
        if occurrences or not row[0].startswith(OCCURRENCE_HEX)}


def main():
    chromium = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if not chromium:
        print("dashboard_browser_test: chromium is not installed; "
              "`bash .ci/install-deps` installs it (Debian's chromium and "
              "chromium-driver)", file=sys.stderr)
        return 1
    if not shutil.which("psql"):
        print("dashboard_browser_test: psql is missing (postgresql-client; "
              "bash .ci/install-deps)", file=sys.stderr)
        return 1
    if not os.environ.get("TIMINGWHEEL_PG"):
        print("dashboard_browser_test: TIMINGWHEEL_PG is not set: run it as "
              "bash .ci/with-postgres bazel test --test_env=TIMINGWHEEL_PG "
              "//tests/tools/twctl:dashboard_browser_test", file=sys.stderr)
        return 1
    outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or tempfile.mkdtemp()
    os.environ.setdefault("HOME", tempfile.mkdtemp())

    fixture = subprocess.Popen([runfile("tests/tools/twctl/dashboard_fixture")],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    serve = None
    browser = None
    try:
        conninfo = read_line(fixture, "CONNINFO ", 60)[len("CONNINFO "):]
        read_line(fixture, "READY", 60)
        serve = subprocess.Popen(
            [runfile("tools/twctl/twctl"), "--db", conninfo, "serve",
             "--listen", "127.0.0.1:0", "--token", TOKEN],
            stdout=subprocess.PIPE)
        line = read_line(serve, "twctl serve: listening on ", 30)
        base = line.split("listening on ", 1)[1].split(" ", 1)[0].rstrip("/")
        print("dashboard at " + base, flush=True)
        browser = Browser(chromium, outputs)
        hostile_hex = HOSTILE_ID.encode().hex()

        # Overview: the counts are the table's (occurrences included).
        states = table_states(conninfo, occurrences=True)
        dom = Dom(browser.dom(base + "/"))
        for state in STATES:
            want = sum(1 for s in states.values() if s == state)
            check(dom.counts.get(state) == str(want),
                  "overview count of %s: page %r, table %d" %
                  (state, dom.counts.get(state), want))
        check("svg" in dom.tags, "overview has its SVG charts")
        # The due chart's bars add up to the unstarted tasks due within the
        # hour (the fixture's are minutes away from either end).
        page = browser.dom(base + "/")
        chart = page.split('id="due-chart"', 1)[1].split("</svg>", 1)[0]
        bars = [int(v) for v in re.findall(r'data-value="(\d+)"', chart)]
        due_soon = int(psql(conninfo,
                            "SELECT count(*) FROM tw_timer WHERE state < 2"
                            " AND due_us >= tw_now_us()"
                            " AND due_us < tw_now_us() + 3600000000")[0][0])
        check(len(bars) == 60 and sum(bars) == due_soon,
              "due chart: 60 bars summing to %d, got %r" % (due_soon, bars))
        check(TOKEN not in page, "the token is never written into a page")
        check("script" not in dom.tags, "overview has no script element")
        # What is wrong first: the FAILED tasks make their kind a failing
        # one; the fixture's node heartbeats, so none is stale.
        check('data-healthy="no"' in page and
              page.find('id="problems"') < page.find('id="counts"'),
              "the overview's problems come before the counts")
        check('id="failing-kinds"' in page, "the failing kind is named")
        check('id="stale-nodes"' not in page, "no stale node is named")
        # Slots per owner: one row per owner, its valid leases the table's.
        held = {row[0]: row[1] for row in psql(
            conninfo, "SELECT encode(convert_to(owner, 'UTF8'), 'hex'),"
            " count(*) FILTER (WHERE lease_until_us > tw_now_us())"
            " FROM tw_slot_lease WHERE owner IS NOT NULL GROUP BY owner")}
        shown = {k: v.get("held") for k, v in dom.owner_rows.items()
                 if "held" in v}
        check(held and shown == held, "owners on the overview %r == table %r"
              % (shown, held))
        check('http-equiv="refresh"' in page, "the overview reloads itself")
        quiet = browser.dom(base + "/?refresh=off")
        check('http-equiv="refresh"' not in quiet and 'id="refresh-on"' in quiet,
              "refresh=off stops the reload and offers to start it")
        browser.screenshot(base + "/", "overview")

        # Schedules: every row of tw_schedule, its name as text; a link to
        # its occurrences.
        names = {row[0] for row in psql(
            conninfo, "SELECT encode(name, 'hex') FROM tw_schedule")}
        dom = Dom(browser.dom(base + "/schedules"))
        check(set(dom.schedules) == names and names,
              "schedules page %r == table %r" % (sorted(dom.schedules), names))
        row = dom.schedules.get(SCHEDULE_NAME.encode().hex(), {})
        check(row.get("name") == SCHEDULE_NAME and "i" not in dom.tags,
              "the schedule's name is text: %r" % row.get("name"))
        check('"0 3 1 1 *"' in row.get("recurrence", ""),
              "the schedule's recurrence: %r" % row.get("recurrence"))
        check(row.get("next-run", "").startswith("20"),
              "the schedule's next run: %r" % row.get("next-run"))
        browser.screenshot(base + "/schedules", "schedules")

        # Occurrences: left out of the lists unless asked; readable.
        every = table_states(conninfo, occurrences=True)
        occurrences = {k: v for k, v in every.items()
                       if k.startswith(OCCURRENCE_HEX)}
        # The two the fixture wrote, and any the schedule wrote ahead.
        check(len(occurrences) >= 2, "occurrences in the table: %r" %
              sorted(occurrences))
        url = base + "/tasks?schedulex=" + SCHEDULE_NAME.encode().hex()
        dom = Dom(browser.dom(url))
        check(dom.rows == occurrences, "one schedule's occurrences %r == %r" %
              (dom.rows, occurrences))
        text = "".join(dom.text)
        check(SCHEDULE_NAME + " @ 2025-12-02 00:00:03.25 UTC" in text,
              "an occurrence shows as NAME @ UTC time")
        browser.screenshot(url, "tasks-occurrences")
        dom = Dom(browser.dom(base + "/tasks?occurrences=include"))
        check(dom.rows == every, "occurrences=include lists every task")

        # Every task but the occurrences, and each state's list, row by row.
        states = table_states(conninfo)
        dom = Dom(browser.dom(base + "/tasks"))
        check(dom.rows == states, "tasks page %r == table %r" %
              (dom.rows, states))
        check("script" not in dom.tags, "tasks page has no script element")
        check(HOSTILE_ID in "".join(dom.text),
              "the hostile id is shown as text")
        kinds = {row[0]: row[1] or "default" for row in psql(
            conninfo, "SELECT encode(task_id, 'hex'), kind FROM tw_timer")
            if not row[0].startswith(OCCURRENCE_HEX)}
        check(dom.kinds == kinds, "tasks page kinds %r == table %r" %
              (dom.kinds, kinds))
        check("<b>mail</b>" in dom.kinds.values(),
              "the kind <b>mail</b> is shown as text")
        browser.screenshot(base + "/tasks", "tasks")
        # The kind filter (the links' hex form): that kind's tasks only.
        mail_url = base + "/tasks?kindx=" + "<b>mail</b>".encode().hex()
        dom = Dom(browser.dom(mail_url))
        want = {k: v for k, v in states.items() if kinds[k] == "<b>mail</b>"}
        check(want and dom.rows == want, "kind filter page %r == table %r" %
              (dom.rows, want))
        browser.screenshot(mail_url, "tasks-kind")
        for state in STATES:
            url = base + "/tasks?state=" + state
            dom = Dom(browser.dom(url))
            want = {k: v for k, v in states.items() if v == state}
            check(dom.rows == want, "%s page %r == table %r" %
                  (state, dom.rows, want))
            browser.screenshot(url, "tasks-" + state.lower())
        # Paging: one row per page, followed to the end.
        seen = {}
        url = base + "/tasks?limit=1"
        for _ in range(len(states) + 1):
            page = browser.dom(url)
            dom = Dom(page)
            seen.update(dom.rows)
            marker = 'id="next" href="'
            if marker not in page:
                break
            href = page.split(marker, 1)[1].split('"', 1)[0]
            url = base + href.replace("&amp;", "&")
        check(seen == states, "paging one row at a time shows every task")

        # Slots and owners.
        owners = {row[0]: row[1] for row in psql(
            conninfo, "SELECT slot, coalesce(owner, '') FROM tw_slot_lease")}
        dom = Dom(browser.dom(base + "/slots"))
        check({k: v for k, v in dom.owners.items()} ==
              {k: (v or "none") for k, v in owners.items()},
              "slots page owners %r == table %r" % (dom.owners, owners))
        browser.screenshot(base + "/slots", "slots")

        # Failed tasks: their errors, escaped; one task's page.
        errors = {row[0]: row[1] for row in psql(
            conninfo, "SELECT encode(task_id, 'hex'), convert_from(last_error, 'UTF8')"
            " FROM tw_timer"
            " WHERE state = 4")}
        dom = Dom(browser.dom(base + "/failed"))
        check(dom.errors == errors, "failed page errors %r == table %r" %
              (dom.errors, errors))
        check("script" not in dom.tags, "failed page has no script element")
        check("<script>alert('error')</script>" in "".join(dom.text),
              "the hostile error is shown as text")
        browser.screenshot(base + "/failed", "failed")
        task_url = base + "/task?idx=" + hostile_hex
        dom = Dom(browser.dom(task_url))
        check(HOSTILE_ID in "".join(dom.text) and "script" not in dom.tags,
              "the task page shows the hostile id as text")
        browser.screenshot(task_url, "task")
        # Each failed task's page shows its attempt history, as the table
        # holds it (outcome and error per attempt, the error as text).
        outcomes = ["SUCCEEDED", "RETRIED", "FAILED", "SNOOZED"]
        for task_hex in sorted(errors):
            history = {row[0]: {"outcome": outcomes[int(row[1])],
                                "error": row[2], "node": row[3]}
                       for row in psql(conninfo,
                           "SELECT attempt, outcome,"
                           " coalesce(convert_from(error, 'UTF8'), ''),"
                           " node_id FROM tw_attempt WHERE task_id ="
                           " decode('%s', 'hex')" % task_hex)}
            url = base + "/task?idx=" + task_hex
            dom = Dom(browser.dom(url))
            shown = {n: {k: cells.get(k) for k in ("outcome", "error", "node")}
                     for n, cells in dom.attempts.items()}
            check(history and shown == history,
                  "task %s attempts %r == table %r" %
                  (task_hex, shown, history))
            check("script" not in dom.tags,
                  "task %s page has no script element" % task_hex)
        check(any("<script>alert('error')</script>" in cells.get("error", "")
                  for cells in Dom(browser.dom(task_url)).attempts.values()),
              "the hostile attempt error is shown as text")
        browser.screenshot(base + "/task?idx=" + "failed-1".encode().hex(),
                           "task-failed-attempts")

        # A POST without the token is refused, and changes nothing.
        request = urllib.request.Request(
            base + "/retry", data=("idx=" + hostile_hex).encode(),
            method="POST")
        try:
            urllib.request.urlopen(request, timeout=10)
            check(False, "retry without the token is refused")
        except urllib.error.HTTPError as e:
            check(e.code == 403, "retry without the token: 403, got %d" % e.code)
        check(table_states(conninfo)[hostile_hex] == "FAILED",
              "a refused retry changes nothing")

        # Retry in the browser: type the token, click, see it run.
        devtools = browser.devtools
        devtools.navigate(base + "/failed")
        row = 'tr[data-idx="%s"]' % hostile_hex
        devtools.type_into(row + ' input[name="token"]', TOKEN)
        devtools.events.clear()
        devtools.click(row + " button")
        devtools.wait_event("Page.loadEventFired")
        outcome = devtools.evaluate(
            "document.querySelector('#outcome') &&"
            " document.querySelector('#outcome').dataset.outcome")
        check(outcome == "done", "the Retry click answered 'done', got %r" %
              outcome)
        deadline = time.time() + 30
        shown = None
        while time.time() < deadline:
            devtools.navigate(base + "/tasks?state=SUCCESS")
            shown = devtools.evaluate(
                "(() => { const r = document.querySelector('%s td.state');"
                " return r && r.textContent; })()" % row)
            if shown == "SUCCESS":
                break
            time.sleep(0.2)
        check(shown == "SUCCESS",
              "after Retry the task's row shows SUCCESS, got %r" % shown)
        check(table_states(conninfo).get(hostile_hex) == "SUCCESS",
              "after Retry the table says SUCCESS")
        browser.screenshot(base + "/tasks", "tasks-after-retry")
    finally:
        if browser:
            browser.close()
        if serve:
            serve.terminate()
            try:
                serve.wait(timeout=10)
            except subprocess.TimeoutExpired:
                serve.kill()
        fixture.stdin.close()
        try:
            fixture.wait(timeout=30)
        except subprocess.TimeoutExpired:
            fixture.kill()
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("dashboard_browser_test: all checks passed; screenshots in " + outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
