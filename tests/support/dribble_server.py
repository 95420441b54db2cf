"""Loopback HTTP hosts for slow-host tests and benchmarks: the same small
N-Triples dumps on several loopback addresses (one host each, one port),
every answer after a latency, and the paths that start with the slow
prefix (/slow) dribbled a line a second. robots.txt: 404 (after the
latency too).

    python3 dribble_server.py PORT_FILE ADDRESSES [--latency-ms MS]
                              [--slow-seconds S] [--lines N]
                              [--slow-prefix /slow]

--slow-prefix /: every dump dribbles (a host that trickles).

ADDRESSES: comma-separated (127.0.0.1,127.0.0.2,...). The port, the same on
every address, is written to PORT_FILE once all listen. A dump's body
depends on its path only: N lines (S lines for /slow...).
"""
import argparse
import http.server
import socketserver
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("port_file")
ap.add_argument("addresses")
ap.add_argument("--latency-ms", type=int, default=0)
ap.add_argument("--slow-seconds", type=int, default=8)
ap.add_argument("--lines", type=int, default=5)
ap.add_argument("--slow-prefix", default="/slow")
args = ap.parse_args()


def lines(path, n):
    name = path.strip("/").replace("/", "-") or "root"
    return [b'<http://example.org/%s> <http://example.org/p> "%d" .\n'
            % (name.encode(), i) for i in range(n)]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        time.sleep(args.latency_ms / 1000.0)
        if self.path == "/robots.txt":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        slow = self.path.startswith(args.slow_prefix)
        body = lines(self.path, args.slow_seconds if slow else args.lines)
        self.send_response(200)
        self.send_header("Content-Type", "application/n-triples")
        self.send_header("Content-Length", str(sum(len(x) for x in body)))
        self.end_headers()
        try:
            if not slow:
                self.wfile.write(b"".join(body))
                return
            for line in body:
                self.wfile.write(line)
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass

    def log_message(self, *a):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def server_bind(self):  # without HTTPServer's reverse DNS lookup (slow)
        socketserver.TCPServer.server_bind(self)
        self.server_name = self.server_address[0]
        self.server_port = self.server_address[1]


addresses = args.addresses.split(",")
first = Server((addresses[0], 0), Handler)
port = first.server_address[1]
servers = [first] + [Server((a, port), Handler) for a in addresses[1:]]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
with open(args.port_file, "w") as f:
    f.write(str(port))
first.serve_forever()
