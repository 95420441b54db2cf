#!/usr/bin/env python3
"""Holds idle TCP connections to a loopback port, as a stranger would.

    idle_sockets.py PORT COUNT SECONDS READY_FILE [SOURCES]

Opens COUNT connections (at most 5000) to 127.0.0.1:PORT from the loopback
source addresses 127.0.0.2 .. 127.0.0.(SOURCES+1) in turn (default 8), sends
nothing, writes the number opened to READY_FILE once all were tried and
holds them for SECONDS (at most 120), then closes them and exits. Loopback
only: nothing leaves the machine.
"""
import os
import resource
import socket
import sys
import time

port, count, seconds, ready = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
sources = int(sys.argv[5]) if len(sys.argv) > 5 else 8
count, seconds = min(count, 5000), min(seconds, 120.0)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = count + 64
if soft < want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))

held = []
for i in range(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.%d" % (2 + i % sources), 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass  # the handshake completes (or not) on its own; nothing is sent
    except OSError:
        s.close()
        continue
    held.append(s)
with open(ready + ".tmp", "w") as f:
    f.write("%d\n" % len(held))
os.rename(ready + ".tmp", ready)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    time.sleep(0.2)
for s in held:
    s.close()
