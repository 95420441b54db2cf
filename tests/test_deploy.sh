#!/usr/bin/env bash
# Deployment without a Docker engine: the compose files validate (with and
# without the Virtuoso profile; workers.yml); every command and LODWASH_*
# variable they use exists in the programs' --help, and every setting the
# README documents is passed to the programs; and
# scripts/run-local (the same topology as plain processes: redis, Virtuoso,
# scheduler, workers) harvests the example providers for real, into a real
# Virtuoso, ending with the same graphs in the store as in the files store.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
src="$LODWASH_SOURCE_DIR"
bin="$LODWASH_BINARY_DIR"
source "$src/scripts/lib/servers.sh"
source "$src/scripts/lib/examples.sh"
dir=$(mktemp -d)
runner=""
# run-local stops what it started on SIGTERM (30 s for its workers)
trap '[ -n "$runner" ] && lw_stop_pid "$runner" 60; lw_servers_stop; rm -rf "$dir"' EXIT

# --- the compose files
compose="$src/docker/docker-compose.yml"
common="$src/docker/lodwash-common.yml"
if command -v docker-compose > /dev/null; then
  expect_status "docker-compose config validates" 0 docker-compose -f "$compose" config -q
  expect_status "docker-compose config validates with the virtuoso profile" 0 \
    docker-compose -f "$compose" --profile virtuoso config -q
  expect_status "workers.yml validates" 0 env LODWASH_REDIS=redis://main:6379/0 \
    LODWASH_DATA_VOLUME=lodwash-data docker-compose -f "$src/docker/workers.yml" config -q
  expect_status "workers.yml with workers-join.yml validates" 0 env LODWASH_REDIS=redis://redis:6379/0 \
    LODWASH_DATA_VOLUME=lodwash-data LODWASH_JOIN_NETWORK=docker_default docker-compose \
    -f "$src/docker/workers.yml" -f "$src/docker/workers-join.yml" config -q
  expect_match "workers-join.yml says what is missing" \
    "$(env LODWASH_REDIS=r LODWASH_DATA_VOLUME=v docker-compose -f "$src/docker/workers.yml" \
       -f "$src/docker/workers-join.yml" config -q 2>&1 || true)" 'set LODWASH_JOIN_NETWORK'
  expect_match "workers.yml says what is missing" \
    "$(docker-compose -f "$src/docker/workers.yml" config -q 2>&1 || true)" 'set LODWASH_REDIS'
  expect_eq "Virtuoso only with its profile, and nothing depends on it" \
    "$(docker-compose -f "$compose" config | python3 -c '
import sys, yaml
services = yaml.safe_load(sys.stdin)["services"]
print(services["virtuoso"].get("profiles"),
      sorted(n for n, s in services.items() if "virtuoso" in (s.get("depends_on") or {})))')" "['virtuoso'] []"
else
  echo "note: docker-compose not installed; compose validation not run"
fi
help="$dir/help"
{ "$bin/lodwash-scheduler" --help; "$bin/lodwash-worker" --help; "$bin/lodwash" --help; } > "$help"
for var in $(cat "$compose" "$common" | grep -oE 'LODWASH_[A-Z_]+' | grep -v '^LODWASH_DATA_VOLUME$' | sort -u); do
  expect_status "compose variable $var is in a program's --help" 0 grep -qF "[$var" "$help"
done
# Every setting the README documents reaches the programs from docker/.env
# (the scheduler's pages are set by its command: the port is published).
for var in $(grep -E '^\| `LODWASH_' "$src/README.md" | grep -oE 'LODWASH_[A-Z_]+' | grep -v '^LODWASH_METRICS_' | sort -u); do
  expect_match "README setting $var is passed by the compose file" "$(cat "$common")" "      $var:"
done
# Every setting of the programs too (the ones a new option adds without a
# README row), except the pages' port and bind (the command sets them) and
# the scheduler's --once (a container runs for good).
for var in $(grep -oE '\[LODWASH_[A-Z_]+' "$help" | tr -d '[' | grep -vE '^LODWASH_(METRICS_|ONCE$)' | sort -u); do
  expect_match "program setting $var is passed by the compose file" "$(cat "$common")" "      $var:"
done
for flag in $(cat "$compose" "$common" | grep 'command: \["lodwash' | grep -oE '"--[a-z-]+"' | tr -d '"' | sort -u); do
  expect_status "compose flag $flag is a program flag" 0 grep -qE "^  $flag( |$)" "$help"
done
expect_match "compose runs the scheduler" "$(cat "$compose")" 'command: \["lodwash-scheduler"'
expect_match "compose runs workers" "$(cat "$common")" 'command: \["lodwash-worker"\]'
for prog in lodwash lodwash-worker lodwash-scheduler; do
  expect_match "the image installs $prog" "$(cat "$src/docker/Dockerfile")" "/build/$prog"
done
# every library folder of the build is copied into the image's build stage
# (a new folder missed there breaks only the docker build, found late)
for folder in $(grep -oE '^ *lw_layer\([a-z_]+' "$src/CMakeLists.txt" | sed 's/.*(//'); do
  expect_match "the image's build copies $folder/" "$(cat "$src/docker/Dockerfile")" \
    "COPY $folder $folder"
done
expect_match ".dockerignore keeps build trees and .git out" "$(cat "$src/.dockerignore")" $'\.git\n.*build\*/'

# --- scripts/run-local through a real harvest into Virtuoso
port=$(lw_free_port)
lw_publish_examples "$dir/web"
lw_start_http "$port" "$dir/web"
lw_example_registry "$dir/registry.yaml" "http://127.0.0.1:$port"
LODWASH_BIN="$bin" timeout 600 bash "$src/scripts/run-local" --workers 2 --interval 2 \
  --registry "$dir/registry.yaml" --data "$dir/data" --allow-net "127.0.0.1:$port" \
  --report-idle > "$dir/run-local.log" 2>&1 &
runner=$!
# Once idle, ask its Virtuoso what it holds, then stop it all with SIGTERM.
for _ in $(seq 1200); do
  if grep -q 'run-local: idle' "$dir/run-local.log" 2>/dev/null || ! kill -0 "$runner" 2>/dev/null; then
    break
  fi
  sleep 0.5
done
sparql=$(grep -oE 'http://127.0.0.1:[0-9]+/sparql ' "$dir/run-local.log" | head -1 | tr -d ' ' || true)
count() {
  curl -s --max-time 60 "$sparql" -H 'Accept: text/csv' --data-urlencode \
    "query=SELECT (COUNT(*) AS ?n) WHERE { GRAPH <http://lodwash.example.org/graph/$1> { ?s ?p ?o } }" \
    | tail -1 | tr -d '"\r'
}
declare -A in_store
for g in library museum city; do in_store[$g]=$(count "$g" || true); done
expect_match "run-local got idle" "$(cat "$dir/run-local.log")" 'run-local: idle'
kill -TERM "$runner" 2>/dev/null || true
code=0
wait "$runner" || code=$?
runner=""
expect_eq "run-local stops on SIGTERM with 0" "$code" 0
[ "$code" -eq 0 ] || cat "$dir/run-local.log"
for g in library museum city; do
  file="$dir/data/graphs/$g.nq.gz"
  expect_eq "graph $g: Virtuoso holds the files store's triples" "${in_store[$g]}" "$(zcat "$file" 2>/dev/null | wc -l)"
done
expect_eq "library" "$(zcat "$dir/data/graphs/library.nq.gz" | wc -l)" 27
expect_eq "museum (an archive of RDF/XML and JSON-LD)" "$(zcat "$dir/data/graphs/museum.nq.gz" | wc -l)" 18
expect_eq "city (a broken statement skipped)" "$(zcat "$dir/data/graphs/city.nq.gz" | wc -l)" 10
expect_eq "no quad of city outside its graph" "$(zcat "$dir/data/graphs/city.nq.gz" | grep -vc '<http://lodwash.example.org/graph/city> .$' || true)" 0
expect_match "status.json written" "$(cat "$dir/data/status.json" 2>/dev/null)" '"providers"'
lw_test_done
