#!/usr/bin/env bash
# The sparql store against two real SPARQL 1.1 stores, through a real
# lodwash-worker: Virtuoso (Graph Store endpoint derived from --store, and
# the update-only mode) and Oxigraph (its npm engine behind
# tests/support/oxigraph_server.js: --store-gsp, and the update-only mode).
# After a full harvest and then a partial one, each store holds exactly the
# triples of the files store's graph.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/support/lib.sh"
source "$here/../scripts/lib/servers.sh"
source "$here/support/oxigraph.sh"
lw_test_require_redis

work=$(mktemp -d)
prefixes=()
cleanup() {
  lw_servers_stop
  [ -n "${KEEP:-}" ] || rm -rf "$work"
  local p
  for p in "${prefixes[@]}"; do lw_test_redis_cleanup "$p"; done
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
graph_base=http://lodwash.test/graph

# The full harvest: 40 subjects; the partial one changes 3 of them, drops a
# triple of one, and adds 2 new subjects. Terms of every kind.
full() {
  for s in $(seq -w 1 40); do
    printf '<http://x/s%s> <http://p/label> "s\xc3\xa9 %s"@fr .\n' "$s" "$s"
    printf '<http://x/s%s> <http://p/n> "%d"^^<http://www.w3.org/2001/XMLSchema#integer> .\n' "$s" "$((10#$s))"
    printf '<http://x/s%s> <http://p/next> <http://x/s%s> .\n' "$s" "$s"
    printf '<http://x/s%s> <http://p/note> "tab\\there \\"quoted\\"" .\n' "$s"
  done
}
partial() {
  for s in 05 17; do
    printf '<http://x/s%s> <http://p/label> "changed %s" .\n' "$s" "$s"
    printf '<http://x/s%s> <http://p/next> <http://x/s%s> .\n' "$s" "$s"
  done
  printf '<http://x/s33> <http://p/label> "s\xc3\xa9 33"@fr .\n'
  for s in 50 51; do
    printf '<http://x/s%s> <http://p/label> "new %s"@en-GB .\n' "$s" "$s"
  done
}
mkdir -p "$work/clean"
full | LC_ALL=C sort | gzip > "$work/clean/full.nq.gz"
partial | LC_ALL=C sort | gzip > "$work/clean/partial.nq.gz"

# N-Triples in one spelling: serdi's escapes, language tags in lower case
# (they compare case-insensitively, and stores may lower them).
canon() { serdi -i ntriples -o ntriples - | sed -E 's/"@([A-Za-z0-9-]+) \.$/"@\L\1 ./' | LC_ALL=C sort; }

# The files store's graph as N-Triples.
files_graph() {
  "$LODWASH_BINARY_DIR/lodwash" --data "$1" graph geo | sed -E 's/ <[^>]*> \.$/ ./' | canon
}

# store_graph QUERY_URL: the store's provider graph as N-Triples.
store_graph() {
  curl -sf "$1" -H 'Accept: application/n-triples' --data-urlencode \
    "query=CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <$graph_base/geo> { ?s ?p ?o } }" | canon
}

# import NAME HARVEST CLEAN_FILE STORE_ARGS...: one harvest of one clean file.
import() {
  local name=$1 harvest=$2 clean=$3; shift 3
  local prefix="lwtest:stores:$$:$name:" data="$work/$name"
  prefixes+=("$prefix")
  mkdir -p "$data/clean"
  cp "$work/clean/$clean" "$data/clean/"
  r HSET "${prefix}seed:d$harvest" status parsed clean "k$harvest" > /dev/null
  r HSET "${prefix}seed:k$harvest" status cleaned file "clean/$clean" > /dev/null
  r HSET "${prefix}harvest:$harvest" provider geo status running pending 0 \
    seeds "[\"d$harvest\"]" > /dev/null
  lw "$prefix" jobs push import "{\"seed\":\"$harvest\",\"harvest\":\"$harvest\"}" > /dev/null
  "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --data "$data" --graph-base "$graph_base" --exit-when-idle --stages import "$@" \
    2> "$data/worker-$harvest.log" || { cat "$data/worker-$harvest.log"; return 1; }
  expect_eq "$name: harvest $harvest imported" "$(r HGET "${prefix}harvest:$harvest" status)" done
}

# check_store NAME QUERY_URL STORE_ARGS...: full, then partial harvest.
check_store() {
  local name=$1 query=$2; shift 2
  import "$name" h1 full.nq.gz "$@"
  expect_eq "$name: full harvest, 160 triples" "$(files_graph "$work/$name" | wc -l)" 160
  expect_eq "$name: store = files store after the full harvest" \
    "$(store_graph "$query" | md5sum)" "$(files_graph "$work/$name" | md5sum)"
  import "$name" h2 partial.nq.gz "$@"
  expect_eq "$name: partial harvest, 160 - 12 + 7 triples" "$(files_graph "$work/$name" | wc -l)" 155
  expect_eq "$name: store = files store after the partial harvest" \
    "$(store_graph "$query" | md5sum)" "$(files_graph "$work/$name" | md5sum)"
  expect_match "$name: store has the change" "$(store_graph "$query")" '<http://x/s05> <http://p/label> "changed 05" \.'
}

stores=0
if [ -n "${LODWASH_TEST_SPARQL:-}" ]; then
  stores=$((stores + 1))
  auth=(--store-user "$LODWASH_TEST_SPARQL_USER" --store-password "$LODWASH_TEST_SPARQL_PASSWORD")
  vquery="${LODWASH_TEST_SPARQL%/*}/sparql"
  # One Virtuoso for every test, and for both builds' runs: graphs of their
  # own, named after this run's temporary folder (not the PID: with 32768
  # PIDs a suite's processes wrap around, and the sanitizer run's test could
  # get the plain run's PID and find its graphs, which nothing clears).
  graph_base=http://lodwash.test/${work##*/}/virtuoso-gsp
  check_store virtuoso-gsp "$vquery" --store "$LODWASH_TEST_SPARQL" "${auth[@]}" --store-connections 3
  graph_base=http://lodwash.test/${work##*/}/virtuoso-update
  check_store virtuoso-update "$vquery" --store "$LODWASH_TEST_SPARQL" "${auth[@]}" --store-mode update
else
  echo "no Virtuoso (LODWASH_TEST_SPARQL unset; run scripts/test): skipping it"
fi

if modules=$(lw_oxigraph_install); then
  for mode in gsp update; do
    stores=$((stores + 1))
    port=$(lw_free_port)
    lw_start_oxigraph "$port" "$modules"
    graph_base=http://lodwash.test/graph
    check_store "oxigraph-$mode" "http://127.0.0.1:$port/query" \
      --store "http://127.0.0.1:$port/update" --store-gsp "http://127.0.0.1:$port/store" \
      --store-mode "$mode"
  done
else
  echo "oxigraph could not be installed from the npm registry: skipping it"
fi
[ "$stores" -gt 0 ] || lw_test_skip "neither Virtuoso nor Oxigraph available"
lw_test_done
