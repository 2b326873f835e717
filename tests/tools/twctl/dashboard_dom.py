#!/usr/bin/env python3
# Copyright 2026 The timingwheel Authors.
"""What a dashboard page shows, read back from its HTML (dashboard_browser_test).

The pages mark what a test reads: task rows `<tr data-idx="HEX">`, count
rows `data-state`, slot rows `data-slot`, attempt rows `data-attempt`,
schedule rows `data-schedule`, owner rows `data-owner`, with cells named
by class (serve_pages.h). Python 3 standard library only.
"""

import html.parser


class Dom(html.parser.HTMLParser):
    """What a page shows: task rows (hex id -> state), counts, slot owners,
    error cells, every element name, and the text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.rows = {}         # hex id -> state text
        self.errors = {}       # hex id -> error text
        self.counts = {}       # state -> count text
        self.owners = {}       # slot -> owner text
        self.kinds = {}        # hex id -> kind text
        self.attempts = {}     # attempt number -> {cell class: text}
        self.schedules = {}    # hex name -> {cell class: text}
        self.owner_rows = {}   # hex owner -> {cell class: text}
        self.tags = set()
        self.text = []
        self._row = None       # ("task", hex) / ("count", state) / ("slot", n)
        self._cell = None
        self._cell_tag = None
        self._buffer = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "tr":
            if "data-idx" in a:
                self._row = ("task", a["data-idx"])
            elif "data-state" in a:
                self._row = ("count", a["data-state"])
            elif "data-slot" in a:
                self._row = ("slot", a["data-slot"])
            elif "data-attempt" in a:
                self._row = ("attempt", a["data-attempt"])
            elif "data-schedule" in a:
                self._row = ("schedule", a["data-schedule"])
            elif "data-owner" in a:
                self._row = ("owner", a["data-owner"])
            else:
                self._row = None
        if tag in ("td", "span", "pre") and "class" in a and not self._cell:
            self._cell = a["class"]
            self._cell_tag = tag
            self._buffer = []

    def handle_endtag(self, tag):
        if self._cell and tag == self._cell_tag and not self._row:
            self._cell = None
        if self._cell and tag == self._cell_tag and self._row:
            value = "".join(self._buffer).strip()
            kind, key = self._row
            if kind == "task" and self._cell == "state":
                self.rows[key] = value
            elif kind == "task" and self._cell == "error":
                self.errors[key] = value
            elif kind == "count" and self._cell == "count":
                self.counts[key] = value
            elif kind == "slot" and self._cell == "owner":
                self.owners[key] = value
            elif kind == "task" and self._cell == "kind":
                self.kinds[key] = value
            elif kind == "attempt":
                self.attempts.setdefault(key, {})[self._cell] = value
            elif kind == "schedule":
                self.schedules.setdefault(key, {})[self._cell] = value
            elif kind == "owner":
                self.owner_rows.setdefault(key, {})[self._cell] = value
            self._cell = None
        if tag == "tr":
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._buffer.append(data)
