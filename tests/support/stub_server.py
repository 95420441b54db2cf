"""A loopback HTTP server whose answers a test writes as one function of
the request's path: answer(path) -> (status, content type, body). Each
request's path is a line of the log file when one is given.

    sys.path.insert(0, SUPPORT_DIR); import stub_server
    stub_server.serve(port, lambda path: (200, "text/turtle", "..."), log)
"""
import http.server


def serve(port, answer, log=None):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if log:
                with open(log, "a") as f:
                    f.write(self.path + "\n")
            status, ctype, body = answer(self.path)
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            if ctype:
                self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
