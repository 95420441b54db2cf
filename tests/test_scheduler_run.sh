#!/usr/bin/env bash
# lodwash-scheduler as a program: --once against VoID files served over
# loopback HTTP (python3 -m http.server): the proposal's example and the real
# VoID files of the shared test data when present; a second --once queues
# nothing; two schedulers: one active, the other takes over within one
# interval after the first is killed (SIGKILL), and SIGTERM hands the lease
# back.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
lw_test_require_redis

prefix="lwtest:schedrun:$$:"
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  # (ctest waits for every process holding its output pipe)
  wait 2>/dev/null || true
  rm -rf "$dir"
  lw_test_redis_cleanup "$prefix"
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
base="http://127.0.0.1:$port"
mkdir -p "$dir/www"
cat > "$dir/www/void.ttl" <<'EOF'
@prefix void: <http://rdfs.org/ns/void#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix : <#> .

:#d1lodfull a void:Dataset ;
  dcterms:title "DataOne" ;
  void:feature <http://www.w3.org/ns/formats/Turtle> ;
  void:feature void:feature <http://schema.geolink.org/dev/voc/harvester#FullDump> ;
  dcterms:modified "2015-11-05"^^xsd:date ;
  void:dataDump <http://lod.dataone.org/datasets.ttl> ;
  void:dataDump <http://lod.dataone.org/people> ;
  void:dataDump <organizations.ttl> ;
  .
EOF
{
  echo "d1lod:"
  echo "  void: $base/void.ttl"
  echo "  modified: 2015-10-01"
} > "$dir/registry.yaml"
expected_dumps=3

testdata=${LODWASH_TESTDATA:-$LODWASH_SOURCE_DIR/../shared/testdata}
if [ -d "$testdata/void" ]; then
  # Copied into the served folder for this run only.
  cp "$testdata/void/filievski__glamazon-rdf__void.nt" "$dir/www/glamazon.nt"
  cp "$testdata/void/n-fuse__legal-form-vocab__void.rdf" "$dir/www/legal.rdf"
  cp "$testdata/void/gbv__JITA__void.ttl" "$dir/www/jita.ttl"
  cat >> "$dir/registry.yaml" <<EOF
glamazon:
  void: $base/glamazon.nt
  modified: 2015-01-01
legalform:
  void: $base/legal.rdf
  modified: 2014-01-01
jita:
  void: $base/jita.ttl
EOF
  expected_dumps=$((expected_dumps + 3))
else
  echo "real VoID files not found: only the proposal's example is served"
fi

python3 -m http.server --bind 127.0.0.1 --directory "$dir/www" "$port" > /dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  curl -s -o /dev/null "$base/void.ttl" && break
  sleep 0.05
done

bin="$LODWASH_BINARY_DIR/lodwash-scheduler"
args=(--redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --registry "$dir/registry.yaml"
      --allow-net 127.0.0.1 --data "$dir/data")
sched() { "$bin" "${args[@]}" "$@"; }

# One cycle: every provider starts a harvest.
sched --once --interval 3 2> "$dir/once.log" || { cat "$dir/once.log"; lw_fail "--once exit code"; }
expect_eq "download jobs" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:download")" "$expected_dumps"
expect_eq "d1lod state" "$(r HGET "${prefix}provider:d1lod" state)" "harvesting"
expect_eq "d1lod void_modified" "$(r HGET "${prefix}provider:d1lod" void_modified)" \
  "2015-11-05T00:00:00Z"
expect_eq "one log line per provider" \
  "$(grep -c 'outcome=started' "$dir/once.log")" "$((expected_dumps == 3 ? 1 : 4))"
harvest=$(r HGET "${prefix}provider:d1lod" harvest)
expect_match "d1lod dumps" "$(r HGET "${prefix}harvest:$harvest" dumps)" \
  "$base/organizations.ttl"
if [ -d "$testdata/void" ]; then
  expect_eq "glamazon modified" "$(r HGET "${prefix}provider:glamazon" void_modified)" \
    "2015-09-18T00:00:00Z"
  expect_eq "legal-form modified (xsd:date CURIE)" \
    "$(r HGET "${prefix}provider:legalform" void_modified)" "2014-03-18T00:00:00Z"
  expect_match "jita warning" "$(r HGET "${prefix}provider:jita" warnings)" "syntax error"
fi
expect_eq "export job" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:export")" "1"

# A second cycle queues nothing new.
sched --once --interval 3 2> "$dir/once2.log" || lw_fail "second --once exit code"
expect_eq "no new download jobs" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:download")" "$expected_dumps"
expect_eq "busy lines" "$(grep -c 'outcome=busy' "$dir/once2.log")" \
  "$((expected_dumps == 3 ? 1 : 4))"

# Two schedulers: one active; kill it, the other takes over within one
# interval (3 s here).
# (Started directly, not through a function, so that $! is the scheduler.)
"$bin" "${args[@]}" --interval 3 > /dev/null 2> "$dir/a.log" &
a=$!
pids+=($a)
# (a wait, not a time limit: the first must hold the lease before the
# second starts, however long a loaded machine takes to start it)
for _ in $(seq 300); do
  grep -q 'role=active' "$dir/a.log" 2>/dev/null && break
  sleep 0.1
done
"$bin" "${args[@]}" --interval 3 > /dev/null 2> "$dir/b.log" &
b=$!
pids+=($b)
sleep 1
expect_match "lease held by the first" "$(r GET "${prefix}scheduler:lease")" "-$a-"
expect_eq "second waits" "$(grep -c 'role=active' "$dir/b.log" || true)" "0"
kill -9 "$a"
killed_at=$(date +%s.%N)
# The take-over's time is the second's own (its log line's time stamp), not
# when this script's polling noticed it: the lease's TTL (2 s) and the
# second's poll (1 s) make one interval, and only the second's own lateness
# may add to it, not that of this loop, grep and python on a loaded machine.
took=""
for _ in $(seq 100); do
  if line=$(grep -m 1 'role=active' "$dir/b.log"); then
    took=$(python3 -c "import datetime, sys
at = datetime.datetime.fromisoformat(sys.argv[1].replace('Z', '+00:00')).timestamp()
print('%.3f' % (at - $killed_at))" "${line%% *}")
    break
  fi
  sleep 0.1
done
echo "the second took over ${took:-never} s after the first was killed"
expect_match "second took over" "$(r GET "${prefix}scheduler:lease")" "-$b-"
expect_eq "within one interval" "$(python3 -c "print(1 if '$took' and float('$took') <= 3.5 else 0)")" "1"
# SIGTERM: the lease is handed back at once.
kill -TERM "$b"
wait "$b" && rc=0 || rc=$?
expect_eq "SIGTERM exit code" "$rc" "0"
expect_eq "lease released" "$(r EXISTS "${prefix}scheduler:lease")" "0"

# --help and bad usage.
expect_status "--help" 0 "$LODWASH_BINARY_DIR/lodwash-scheduler" --help
expect_status "bad argument" 2 "$LODWASH_BINARY_DIR/lodwash-scheduler" extra

lw_test_done
