#!/usr/bin/env python3
"""Checks lodwash's metadata graph against the records (tests/test_meta.sh).

meta_check.py META.nq PREFIX QUERIES_DIR GRAPH_DIR GRAPH_BASE -- LODWASH ARGS...

META.nq is the graph (plain N-Quads); the queries are docs/metadata.md's,
run with roqet; the records are read with the lodwash tool (LODWASH ARGS:
the binary and its settings) and redis-cli. Prints one line per check:
"ok WHAT" or "FAILED WHAT: ...", then exits 1 when a check failed.
"""
import csv
import gzip
import io
import json
import os
import subprocess
import sys

meta, prefix, qdir, gdir, gbase = sys.argv[1:6]
tool = sys.argv[sys.argv.index("--") + 1:]
redis_url = os.environ["LODWASH_TEST_REDIS"]
failed = 0


def check(what, got, want):
    global failed
    if got == want:
        print("ok", what)
    else:
        failed += 1
        print(f"FAILED {what}: got {got!r}, expected {want!r}")


def roqet(name):
    # roqet exits 2 after a query that went well when it warned (reading
    # N-Quads into its one graph): the answer is what counts
    run = subprocess.run(["roqet", "-r", "csv", "-D", "file://" + os.path.abspath(meta),
                          "-i", "sparql", os.path.join(qdir, name)], capture_output=True,
                         text=True)
    if not run.stdout:
        raise SystemExit(f"roqet {name}: {run.stderr}")
    return list(csv.DictReader(io.StringIO(run.stdout)))


def lodwash(*args):
    return subprocess.run(tool + list(args), check=True, capture_output=True,
                          text=True).stdout


def redis(*args):
    return subprocess.run(["redis-cli", "-u", redis_url] + list(args), check=True,
                          capture_output=True, text=True).stdout


def num(v):
    return int(v) if v not in (None, "") else None


providers = json.loads(lodwash("providers", "--json"))

# ---- query 1: triples per provider = the records and the graph files
rows = {r["provider"]: r for r in roqet("q1.rq")}
for p in providers:
    name = p["name"]
    path = os.path.join(gdir, name + ".nq.gz")
    lines = gzip.open(path, "rt").read().splitlines() if os.path.exists(path) else []
    r = rows.get(name, {})
    check(f"{name}: void:triples = the harvest's triples (providers --json)",
          num(r.get("triples")), p["harvest"]["triples"])
    check(f"{name}: void:triples = the graph file's lines", num(r.get("triples")), len(lines))
    check(f"{name}: void:distinctSubjects = the graph file's subjects",
          num(r.get("subjects")), len({l.split(" ", 1)[0] for l in lines}))
    check(f"{name}: void:properties = the graph file's predicates",
          num(r.get("properties")), len({l.split(" ", 2)[1] for l in lines}))
    check(f"{name}: dct:modified = the version harvested", r.get("version") or None,
          p["harvested"])

# ---- every document: its seed record (lodwash seed show HASH --json)
docs = {}
for r in roqet("documents.rq"):
    docs[r["id"]] = r
seeds = {}
for key in redis("--scan", "--pattern", prefix + "seed:*").split():
    h = key.rsplit(":", 1)[1]
    rec = json.loads(lodwash("seed", "show", h, "--json"))
    if rec.get("provider") and rec.get("status") != "cleaned":
        seeds[h] = rec
check("the documents are the providers' seeds", sorted(docs), sorted(seeds))


def seed_content(rec):
    c = rec.get("content")
    return json.loads(c) if isinstance(c, str) else (c or {})


def last_hop(rec):
    h = rec.get("http")
    h = json.loads(h) if isinstance(h, str) else (h or [])
    return h[-1] if h else {}


for h, rec in sorted(seeds.items()):
    d = docs.get(h, {})
    c = seed_content(rec)
    what = f"document {rec.get('uri') or rec.get('parent', '') + '/' + h}"
    check(f"{what}: status", d.get("status"), rec.get("status"))
    check(f"{what}: dcat:byteSize", num(d.get("bytes")), c.get("number_of_bytes"))
    check(f"{what}: MD5", d.get("md5") or None, c.get("hash"))
    check(f"{what}: SHA-256", d.get("sha256") or None, c.get("sha256"))
    for field, col in [("triples", "triples"), ("duplicates", "duplicates"),
                       ("syntax_errors", "syntax"), ("literal_errors", "literal")]:
        check(f"{what}: {field}", num(d.get(col)), num(rec.get(field)))
    check(f"{what}: format", d.get("format") or None, rec.get("format"))
    check(f"{what}: encoding", d.get("encoding") or None, rec.get("encoding"))
    check(f"{what}: HTTP status", num(d.get("http")), last_hop(rec).get("status"))
    check(f"{what}: error", d.get("error") or None, rec.get("error") or None)
    check(f"{what}: download URL", d.get("url") or None,
          None if rec.get("parent") else rec.get("uri"))
    parent = rec.get("parent")
    check(f"{what}: part of its archive", d.get("archive") or None,
          f"{gbase}/lodwash-meta/document/{parent}" if parent else None)
    check(f"{what}: clean file", d.get("clean") or None,
          f"{gbase}/lodwash-meta/clean/{rec['clean']}" if rec.get("clean") else None)

# ---- query 2: documents with errors
want = sorted(h for h, r in seeds.items()
              if num(r.get("syntax_errors")) or num(r.get("literal_errors")) or r.get("error"))
check("documents with errors (the documented query)", sorted(r["id"] for r in roqet("q2.rq")),
      want)

# ---- query 3: the first errors with line and column
got = sorted((r["id"], r["kind"], num(r["line"]), num(r["column"]), r["message"])
             for r in roqet("q3.rq"))
want = []
for h, rec in seeds.items():
    errs = rec.get("errors")
    errs = json.loads(errs) if isinstance(errs, str) else (errs or [])
    want += [(h, e["kind"], e.get("line") or None, e.get("column") or None, e["message"])
             for e in errs]
check("first errors (the documented query)", got, sorted(want))

# ---- query 4: each harvest = its record
acts = {r["id"]: r for r in roqet("q4.rq")}
ids = [k.split("harvest:", 1)[1] for k in redis("--scan", "--pattern", prefix + "harvest:*").split()
       if redis("TYPE", k).strip() == "hash"]
check("one activity per harvest record", sorted(acts), sorted(ids))
for hid in ids:
    fields = redis("HGETALL", prefix + "harvest:" + hid).splitlines()
    rec = dict(zip(fields[0::2], fields[1::2]))
    a = acts.get(hid, {})
    kind = "reclean" if rec.get("reclean") == "1" else rec.get("kind")
    check(f"harvest {hid}: kind", a.get("kind"), kind)
    check(f"harvest {hid}: outcome", a.get("outcome"), rec.get("status"))
    check(f"harvest {hid}: graph triples", num(a.get("graphTriples")), num(rec.get("triples")))
    check(f"harvest {hid}: added", num(a.get("added")), num(rec.get("added")))
    check(f"harvest {hid}: removed", num(a.get("removed")), num(rec.get("removed")))
for p in providers:
    a = acts.get(p["harvest"]["id"], {})
    check(f"{p['name']}: its harvest's outcome = providers --json", a.get("outcome"),
          p["harvest"]["status"])
    check(f"{p['name']}: its harvest's added = providers --json", num(a.get("added")),
          p["harvest"]["added"])

print(f"{failed} checks failed")
sys.exit(1 if failed else 0)
