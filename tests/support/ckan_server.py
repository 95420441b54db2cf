"""A stand-in for a CKAN site's Action API, enough for lodwash's ckan:
sources: package_search (rows and start, at most ROWS_MAX a page as a real
CKAN caps ckan.search.rows_max) and package_show?id=NAME, from a JSON file
holding a list of package dictionaries (re-read at every request, so a
test can change a package between cycles). Every request is a line
"PATH" of the log file.

    python3 ckan_server.py PORT PACKAGES.json LOG [ROWS_MAX]
"""
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stub_server  # noqa: E402

port, packages_file, log_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rows_max = int(sys.argv[4]) if len(sys.argv) > 4 else 2


def ok(result):
    return 200, "application/json;charset=utf-8", json.dumps(
        {"help": "lodwash test stand-in", "success": True, "result": result})


def error(message):
    return 404, "application/json;charset=utf-8", json.dumps(
        {"success": False, "error": {"message": message}})


def answer(path):
    url = urllib.parse.urlparse(path)
    query = urllib.parse.parse_qs(url.query)
    with open(packages_file) as f:
        packages = json.load(f)
    if url.path == "/api/3/action/package_search":
        rows = min(int(query.get("rows", ["10"])[0]), rows_max)
        start = int(query.get("start", ["0"])[0])
        return ok({"count": len(packages), "results": packages[start:start + rows]})
    if url.path == "/api/3/action/package_show":
        name = query.get("id", [""])[0]
        found = [p for p in packages if p.get("name") == name or p.get("id") == name]
        return ok(found[0]) if found else error("Not found")
    return error("no such action")


stub_server.serve(port, answer, log_file)
