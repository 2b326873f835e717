# Copyright 2026 The timingwheel Authors.
"""Chromium's remote debugging protocol (CDP) from Python's standard library.

`WebSocket` is a minimal RFC 6455 client (python3's standard library has
none): masked text frames out, text frames in. `DevTools` starts a headless
Chromium with `--remote-debugging-port=0`, reads the port it chose from
`DevToolsActivePort` in its profile, and drives its page: navigate and wait
for the load, evaluate an expression, type text into a field, click an
element with real mouse events. Used by dashboard_browser_test.py.
"""

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request


class WebSocket:
    """A minimal RFC 6455 client: text frames, masked, as CDP needs."""

    def __init__(self, url):
        parsed = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parsed.hostname, parsed.port),
                                             timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        request = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n" %
                   (parsed.path, parsed.hostname, parsed.port, key))
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("websocket handshake: connection closed")
            response += chunk
        head, self.pending = response.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("websocket handshake refused: %r" % head)

    def _recv_exact(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("websocket closed")
            self.pending += chunk
        data, self.pending = self.pending[:n], self.pending[n:]
        return data

    def send(self, text):
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._recv_exact(8))[0]
            if b1 & 0x80:
                mask = self._recv_exact(4)
                data = bytes(b ^ mask[i % 4]
                             for i, b in enumerate(self._recv_exact(n)))
            else:
                data = self._recv_exact(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise RuntimeError("websocket closed by the browser")
            if opcode in (0x9, 0xA):  # Ping / pong: not used by CDP.
                continue
            message += data
            if b0 & 0x80:
                return message.decode("utf-8", "replace")


class DevTools:
    """A page driven over Chromium's remote debugging protocol."""

    def __init__(self, chromium, flags):
        self.profile = tempfile.mkdtemp(prefix="twctl-cdp-")
        self.proc = subprocess.Popen(
            [chromium] + flags +
            ["--user-data-dir=" + self.profile, "--remote-debugging-port=0",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not open its debugging port")
            time.sleep(0.05)
        port = int(open(port_file).read().split()[0])
        pages = []
        while not pages:
            targets = json.load(urllib.request.urlopen(
                "http://127.0.0.1:%d/json/list" % port, timeout=10))
            pages = [t for t in targets if t.get("type") == "page"]
            if time.time() > deadline:
                raise RuntimeError("chromium has no page target")
        self.ws = WebSocket(pages[0]["webSocketDebuggerUrl"])
        self.next_id = 0
        self.events = []
        self.call("Page.enable")
        self.call("Runtime.enable")

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method,
                                 "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            self.events.append(message)

    def wait_event(self, method, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[: i + 1]
                    return event
            self.ws.sock.settimeout(max(0.1, deadline - time.time()))
            try:
                self.events.append(json.loads(self.ws.recv()))
            except socket.timeout:
                break
        raise RuntimeError("no %s within %ss" % (method, timeout))

    def navigate(self, url):
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression,
                           returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError("evaluate %s: %s" %
                               (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def click(self, selector):
        """A real mouse click at the centre of the element."""
        box = self.evaluate(
            "(() => { const e = document.querySelector(%s);"
            " e.scrollIntoView(); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()" %
            json.dumps(selector))
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0],
                      y=box[1], button="left", clickCount=1)

    def type_into(self, selector, text):
        self.evaluate("document.querySelector(%s).focus()" %
                      json.dumps(selector))
        self.call("Input.insertText", text=text)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
