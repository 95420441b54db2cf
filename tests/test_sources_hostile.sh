#!/usr/bin/env bash
# Hostile or broken publishers behind the new source kinds, in one
# scheduler cycle with a good provider beside them: Hydra pages without end,
# a catalogue of too many datasets, a dataset of too many distributions,
# too many bytes of pages, a CKAN site that claims a million packages, a
# next page on an address the guard refuses, an endpoint that answers
# nonsense, a catalogue that is not RDF. Each is an error on its provider
# that names the bound or the fault, nothing of it is started, and the good
# provider is harvested as if alone. The real scheduler and workers over
# loopback HTTP.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

hv_setup srchostile
data="$dir/data"
www="$dir/www"
mkdir -p "$data"
hv_init "$dir"
redis() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
port=${HV_BASE##*:}
gen_port=$(hv_port)
GEN="http://127.0.0.1:$gen_port"

# A generator of pages without end and of answers without sense.
python3 - "$gen_port" > /dev/null 2>&1 <<'PY' &
import json, os, sys
sys.path.insert(0, os.environ["LODWASH_SOURCE_DIR"] + "/tests/support")
import stub_server
def answer(p):
    if p.startswith("/endless/"):
        n = int(p.split("/")[2].split(".")[0])
        return 200, "text/turtle", (
            "@prefix dcat: <http://www.w3.org/ns/dcat#> . "
            "@prefix hydra: <http://www.w3.org/ns/hydra/core#> .\n"
            f"<d{n}> a dcat:Dataset ; dcat:distribution [ dcat:downloadURL <d{n}.nt> ] .\n"
            f"<{n}.ttl> hydra:next <{n + 1}.ttl> .\n")
    if p.startswith("/api/3/action/package_search"):
        return 200, "application/json", json.dumps({"success": True, "result": {
            "count": 1000000, "results": [{"name": "one", "resources": [
                {"url": "http://127.0.0.1/x.ttl", "format": "Turtle"}]}]}})
    if p.startswith("/sparql"):
        return 200, "text/html", "<html>I am not an endpoint</html>"
    return 404, None, ""
stub_server.serve(int(sys.argv[1]), answer)
PY
HV_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "$GEN/endless/0.ttl" && break; sleep 0.05; done

prefixes="@prefix dcat: <http://www.w3.org/ns/dcat#> . @prefix dct: <http://purl.org/dc/terms/> . @prefix hydra: <http://www.w3.org/ns/hydra/core#> ."
# too many datasets (30, over 20)
{ echo "$prefixes"; for i in $(seq 30); do echo "<ds$i> a dcat:Dataset ; dcat:distribution [ dcat:downloadURL <ds$i.nt> ] ."; done; } > "$www/wide.ttl"
# too many distributions (30 dumps, over 25)
{ echo "$prefixes"; echo "<one> a dcat:Dataset"; for i in $(seq 30); do echo "  ; dcat:distribution [ dcat:downloadURL <f$i.nt> ]"; done; echo " ."; } > "$www/deep.ttl"
# too many bytes: three pages of some 4 KB each (over 10 KB in all)
for n in 1 2 3; do
  { echo "$prefixes"; echo "<heavy$n> a dcat:Dataset ; dct:description \"$(head -c 4000 /dev/zero | tr '\0' x)\" ;"
    echo "  dcat:distribution [ dcat:downloadURL <h$n.nt> ] ."
    [ "$n" -lt 3 ] && echo "<heavy-$n.ttl> hydra:next <heavy-$((n + 1)).ttl> ."; } > "$www/heavy-$n.ttl"
done
# a next page on an address the guard refuses (127.0.0.2 is loopback, but
# only 127.0.0.1's two test ports are allowed)
{ echo "$prefixes"; echo "<a> a dcat:Dataset ; dcat:distribution [ dcat:downloadURL <a.nt> ] ."
  echo "<guarded.ttl> hydra:next <http://127.0.0.2:$port/wide.ttl> ."; } > "$www/guarded.ttl"
echo "<html><body>not a catalogue</body></html>" > "$www/notrdf.html"
# the good one
{ echo "$prefixes"; echo "<good> a dcat:Dataset ; dct:modified \"2024-01-01\" ; dcat:distribution [ dcat:downloadURL <good.nt> ; dcat:mediaType \"application/n-triples\" ] ."; } > "$www/good.ttl"
hv_dump good 12

cat > "$dir/registry.yaml" <<EOF2
endless:
  dcat: $GEN/endless/0.ttl
wide:
  dcat: $HV_BASE/wide.ttl
deep:
  dcat: $HV_BASE/deep.ttl
heavy:
  dcat: $HV_BASE/heavy-1.ttl
guarded:
  dcat: $HV_BASE/guarded.ttl
million:
  ckan: $GEN/
nonsense:
  sparql: $GEN/sparql
notrdf:
  dcat: $HV_BASE/notrdf.html
good:
  dcat: $HV_BASE/good.ttl
EOF2

"$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --registry "$dir/registry.yaml" --data "$data" --once \
  --allow-net "127.0.0.1:$port,127.0.0.1:$gen_port" --host-interval-ms 0 --robots-ttl 0 \
  --source-max-pages 20 --source-max-datasets 20 --source-max-dumps 25 \
  --source-max-bytes 10000 2>> "$dir/sched.log" || lw_fail "the cycle failed"
hv_workers "$prefix" "$data" 2 --host-interval-ms 0 --robots-ttl 0

error_of() { redis HGET "${prefix}provider:$1" error; }
expect_match "endless: stopped at the page cap" "$(error_of endless)" \
  'more than 20 documents to read \(source-max-pages\)'
expect_match "wide: stopped at the dataset cap" "$(error_of wide)" \
  'more than 20 datasets \(source-max-datasets\)'
expect_match "deep: stopped at the dump cap" "$(error_of deep)" \
  'more than 25 dumps \(source-max-dumps\)'
expect_match "heavy: stopped at the byte cap" "$(error_of heavy)" \
  'more than 10000 bytes of documents \(source-max-bytes\)'
expect_match "guarded: the refused address named" "$(error_of guarded)" '127\.0\.0\.2'
expect_match "million: the claimed count refused before reading on" "$(error_of million)" \
  'more than 20 datasets'
expect_match "nonsense: the endpoint's answer is not SPARQL results" "$(error_of nonsense)" \
  'not SPARQL JSON results'
expect_match "notrdf: a catalogue that is not RDF" "$(error_of notrdf)" 'notrdf\.html'
for p in endless wide deep heavy guarded million nonsense notrdf; do
  expect_eq "$p: no harvest" "$(redis HGET "${prefix}provider:$p" harvest)" ""
  expect_eq "$p: state error" "$(redis HGET "${prefix}provider:$p" state)" error
done
expect_eq "good: harvested" "$(hv_harvest "$prefix" good status)" done
expect_eq "good: its graph, every triple" "$(hv_graph "$data" good | wc -l)" \
  "$(LC_ALL=C sort -u "$www/good.nt" | wc -l)"
expect_eq "eight providers in error, the good one not" \
  "$(grep -c 'outcome=error' "$dir/sched.log")" 8
lw_test_done
