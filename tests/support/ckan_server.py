"""A stand-in for a CKAN site's Action API, enough for lodwash's ckan:
sources: package_search (rows and start, at most ROWS_MAX a page as a real
CKAN caps ckan.search.rows_max) and package_show?id=NAME, from a JSON file
holding a list of package dictionaries (re-read at every request, so a
test can change a package between cycles). Every request is a line
"PATH" of the log file.

    python3 ckan_server.py PORT PACKAGES.json LOG [ROWS_MAX]
"""
import http.server
import json
import sys
import urllib.parse

port, packages_file, log_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rows_max = int(sys.argv[4]) if len(sys.argv) > 4 else 2


def answer(result):
    return {"help": "lodwash test stand-in", "success": True, "result": result}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log_file, "a") as f:
            f.write(self.path + "\n")
        url = urllib.parse.urlparse(self.path)
        query = urllib.parse.parse_qs(url.query)
        with open(packages_file) as f:
            packages = json.load(f)
        if url.path == "/api/3/action/package_search":
            rows = min(int(query.get("rows", ["10"])[0]), rows_max)
            start = int(query.get("start", ["0"])[0])
            body = answer({"count": len(packages), "results": packages[start:start + rows]})
        elif url.path == "/api/3/action/package_show":
            name = query.get("id", [""])[0]
            found = [p for p in packages if p.get("name") == name or p.get("id") == name]
            if not found:
                self.send_json(404, {"success": False, "error": {"message": "Not found"}})
                return
            body = answer(found[0])
        else:
            self.send_json(404, {"success": False, "error": {"message": "no such action"}})
            return
        self.send_json(200, body)

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
