#!/usr/bin/env python3
"""Drives a headless Chromium over its remote debugging protocol (loopback
only) the way a person uses a page: load it, type into a field, click a
button, look again. The standard library only: a minimal WebSocket client
(RFC 6455, client frames masked, text messages) is all the protocol needs.

    cdp.py PORT retry BASE_URL JOB_ID TOKEN SCREENSHOT.png

opens BASE_URL/dead, checks the job's row is there, types TOKEN into the
admin token field, clicks the row's Retry button, reloads until the row is
gone (at most 20 s), saves a screenshot and prints one JSON line:
{"seen_before": bool, "gone_after": bool, "token_kept": bool}.

    cdp.py PORT phone URL SCREENSHOT.png

opens URL as a phone shows it (390 x 844 CSS pixels, mobile), saves a
screenshot and prints {"scroll_width": N, "inner_width": N, "offscreen": N}:
a page usable on a phone does not scroll sideways as a whole, and no cell or
button is out of the window (offscreen 0).
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request


class Tab:
    def __init__(self, port):
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        url = page["webSocketDebuggerUrl"]
        host_port, path = url[len("ws://"):].split("/", 1)
        host, p = host_port.split(":")
        self.sock = socket.create_connection((host, int(p)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("no WebSocket upgrade: %r" % head)
        self.next_id = 0
        self.events = []

    def _send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        header = bytes([0x81])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise RuntimeError("connection closed")
            buf += chunk
        return buf

    def _recv(self):
        message = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            message += payload
            if b0 & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            m = self._recv()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    del self.events[i]
                    return e
            self.events.append(self._recv())
        raise RuntimeError(f"no {name} within {timeout} s")

    def load(self, url):
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return r.get("result", {}).get("value")


def retry(port, base, job, token, shot):
    tab = Tab(port)
    tab.call("Page.enable")
    tab.load(base + "/dead")
    row = f'document.querySelector(\'tr[data-job="{job}"]\')'
    seen = bool(tab.js(f"!!{row}"))
    # as a person does: type the token (kept by the page), click Retry
    tab.js("var t=document.getElementById('token'); t.value=%s;"
           "t.dispatchEvent(new Event('change'));" % json.dumps(token))
    tab.events.clear()
    tab.js(f"{row}.querySelector('button').click()")
    tab.wait_event("Page.loadEventFired")
    gone = False
    end = time.time() + 20
    while time.time() < end and not gone:
        tab.load(base + "/dead")
        gone = not tab.js(f"!!{row}")
        if not gone:
            time.sleep(0.3)
    kept = tab.js("document.getElementById('token').value") == token
    screenshot(tab, shot)
    print(json.dumps({"seen_before": seen, "gone_after": gone, "token_kept": kept}))


def screenshot(tab, path):
    png = tab.call("Page.captureScreenshot", format="png")["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(png))


def phone(port, url, shot):
    tab = Tab(port)
    tab.call("Page.enable")
    tab.call("Emulation.setDeviceMetricsOverride", width=390, height=844,
             deviceScaleFactor=2, mobile=True)
    tab.load(url)
    # every cell and button within the window's width: none hidden behind
    # a sideways scroll of its table's box
    offscreen = tab.js("Array.from(document.querySelectorAll('td,button'))"
                       ".filter(function(e){var r=e.getBoundingClientRect();"
                       "return r.width>0&&(r.right>window.innerWidth+1||r.left<-1);}).length")
    sizes = {"scroll_width": tab.js("document.documentElement.scrollWidth"),
             "inner_width": tab.js("window.innerWidth"), "offscreen": offscreen}
    screenshot(tab, shot)
    print(json.dumps(sizes))


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[2] == "retry":
        retry(int(sys.argv[1]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6])
    elif len(sys.argv) == 5 and sys.argv[2] == "phone":
        phone(int(sys.argv[1]), sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
