"""A loopback HTTP server whose every GET trickles: SECONDS bytes, one a
second (robots.txt: 404). Writes its port to PORT_FILE.

    python3 trickle_server.py PORT_FILE [SECONDS]
"""
import http.server
import socketserver
import sys
import time

SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 60


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/robots.txt":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/n-triples")
        self.send_header("Content-Length", str(SECONDS))
        self.end_headers()
        try:
            for _ in range(SECONDS):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
