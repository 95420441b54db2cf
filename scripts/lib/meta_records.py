#!/usr/bin/env python3
"""The records of one provider's harvest of DOCS dumps (provider "bench"),
as the stages write them, as Redis commands for `redis-cli --pipe`:

    meta_records.py DOCS PREFIX | redis-cli --pipe

For the metadata graph's benchmark (scripts/bench-import) and memory test
(tests/test_meta.sh)."""
import hashlib, json, sys
def cmd(*args):
    out = f"*{len(args)}\r\n"
    for a in args:
        b = str(a).encode()
        out += f"${len(b)}\r\n{b.decode()}\r\n"
    sys.stdout.write(out)
docs, prefix = int(sys.argv[1]), sys.argv[2]
hid = "bench:2026-11-27T10:00:00.000Z"
seeds = []
for i in range(docs):
    url = f"http://data.example.org/dumps/part-{i}.nt.gz"
    h = hashlib.md5(f"bench {url}".encode()).hexdigest()
    clean = hashlib.md5(f"clean {i}".encode()).hexdigest()
    seeds.append(h)
    content = {"hash": hashlib.md5(url.encode()).hexdigest(),
               "sha256": hashlib.sha256(url.encode()).hexdigest(), "newline": "LF",
               "number_of_bytes": 1000000 + i, "number_of_chars": 1000000 + i,
               "number_of_lines": 2000}
    http = [{"headers": {"content-type": "application/n-triples"}, "status": 200, "uri": url,
             "version": {"major": 1, "minor": 1}, "walltime": 0.5}]
    errors = [{"kind": "syntax", "line": 7, "column": 3, "message": "unexpected end"}] if i % 10 == 0 else []
    cmd("HSET", f"{prefix}seed:{h}", "status", "parsed", "uri", url, "provider", "bench",
        "harvest", hid, "http", json.dumps(http), "content", json.dumps(content),
        "encoding", "UTF-8", "format", "N-Triples", "content_type", "application/n-triples",
        "triples", 2000, "duplicates", 3, "syntax_errors", 1 if errors else 0,
        "literal_errors", 0, "clean", clean, "errors", json.dumps(errors),
        "processed", 1795770000000 + i, "updated", 1795770000000 + i)
cmd("HSET", f"{prefix}provider:bench", "void", "http://data.example.org/void.ttl", "kind", "void",
    "state", "idle", "harvest", hid, "harvested", "2026-11-01T00:00:00Z",
    "void_dumps", json.dumps([f"http://data.example.org/dumps/part-{i}.nt.gz" for i in range(docs)]))
cmd("HSET", f"{prefix}harvest:{hid}", "id", hid, "provider", "bench", "status", "done",
    "kind", "full", "started", 1795770000000, "finished", 1795770100000,
    "seeds", json.dumps(seeds), "files", docs, "failed", 0, "triples", 2000 * docs,
    "added", 2000 * docs, "removed", 0)
