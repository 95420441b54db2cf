"""Loopback hosts that record every request, for the politeness tests.

    python3 host_log_server.py ROOT LOG PORT_FILE ADDRESS...

Listens on one port on each ADDRESS (127.0.0.x: a host each), serving the
files of ROOT/ADDRESS/ (robots.txt included). A file ROOT/ADDRESS/.delay
holds seconds to wait before each answer but robots.txt's (a slow host).
Each request is a line of LOG once answered:

    ADDRESS PATH START END STATUS      (START, END: time.time())

The port goes to PORT_FILE when every address listens.
"""
import functools
import http.server
import os
import sys
import threading
import time

ROOT, LOG, PORT_FILE = sys.argv[1:4]
ADDRESSES = sys.argv[4:]
LOCK = threading.Lock()


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        start = time.time()
        address = self.server.server_address[0]
        delay = os.path.join(ROOT, address, ".delay")
        if self.path != "/robots.txt" and os.path.exists(delay):
            with open(delay) as f:
                time.sleep(float(f.read()))
        self.status = 0
        super().do_GET()
        with LOCK, open(LOG, "a") as f:
            f.write("%s %s %.3f %.3f %d\n" % (address, self.path, start, time.time(),
                                              self.status))

    def send_response(self, code, message=None):
        self.status = code
        super().send_response(code, message)

    def log_message(self, *args):
        pass


servers = []
port = 0
for address in ADDRESSES:
    handler = functools.partial(Handler, directory=os.path.join(ROOT, address))
    server = http.server.ThreadingHTTPServer((address, port), handler)
    server.daemon_threads = True
    port = server.server_address[1]
    servers.append(server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(port))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
threading.Event().wait()
