#!/usr/bin/env bash
# A worker frozen (SIGSTOP) past its heartbeat while it parses a file of a
# harvest (waiting for the JSON-LD context, served slowly): the reaper gives
# its job to another worker, which finishes the harvest; then the frozen
# worker thaws (SIGCONT), finishes its parse and acks late. Its ack
# must change nothing: it logs that it lost the job, the harvest's sets and
# counters, the stage counts and the graph stay those of an undisturbed run.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis
export HV_HEARTBEAT_TTL=2 # the frozen worker's heartbeat runs out within the test

prefix="lwtest:freeze:$$"
dir=$(mktemp -d)
frozen=""
cleanup() {
  [ -n "$frozen" ] && { kill -CONT "$frozen" 2>/dev/null; kill -9 "$frozen" 2>/dev/null; } || true
  hv_stop
  rm -rf "$dir"
  for p in calm frozen; do lw_test_redis_cleanup "$prefix:$p:"; done
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
mkdir -p "$dir/calm" "$dir/frozen" "$dir/www/slow"
hv_init "$dir"
cat > "$dir/www/slow/ctx.jsonld" <<'JSON'
{"@context": {"name": "http://schema.org/name",
              "knows": {"@id": "http://schema.org/knows", "@type": "@id"}}}
JSON
cat > "$dir/www/doc.jsonld" <<JSON
{"@context": "$HV_BASE/slow/ctx.jsonld", "@id": "http://example.org/j", "name": "J",
 "knows": {"name": "someone"}}
JSON
hv_provider "$dir/reg.yaml" p doc
sed -i 's|/doc.nt>|/doc.jsonld>|' "$dir/www/p-void.ttl"

# undisturbed
hv_sched "$prefix:calm:" "$dir/reg.yaml" "$dir/calm" 2>> "$dir/sched.log"
hv_workers "$prefix:calm:" "$dir/calm" 2
expect_eq "undisturbed: done" "$(hv_harvest "$prefix:calm:" p status)" done

# disturbed: the file is downloaded and guessed; one worker takes its parse
# (slow: the context), and is frozen
P="$prefix:frozen:"
hv_sched "$P" "$dir/reg.yaml" "$dir/frozen" 2>> "$dir/sched.log"
hv_workers "$P" "$dir/frozen" 1 --stages download,unpack,guess
# shellcheck disable=SC2046
"$LODWASH_BINARY_DIR/lodwash-worker" $(hv_worker_args "$P" "$dir/frozen") --stages parse \
  2> "$dir/frozen.log" &
frozen=$!
held=""
for _ in $(seq 200); do
  held=$(r --scan --pattern "${P}inflight:*" | while read -r k; do r LRANGE "$k" 0 -1; done |
         grep -c '"stage":"parse"' || true)
  [ "$held" -gt 0 ] && break
  sleep 0.02
done
expect_eq "the worker holds the parse" "$held" 1
kill -STOP "$frozen"
# its heartbeat (TTL 2 s) runs out while it is stopped
for _ in $(seq 100); do
  [ -z "$(r --scan --pattern "${P}worker:*")" ] && break
  sleep 0.1
done
expect_eq "the frozen worker's heartbeat is gone" "$(r --scan --pattern "${P}worker:*" | wc -l)" 0
# another worker reaps the job and finishes the harvest
hv_workers "$P" "$dir/frozen" 1
expect_eq "done by the other worker" "$(hv_harvest "$P" p status)" done
snapshot() {
  local id
  id=$(r HGET "${P}provider:p" harvest)
  echo "pending=$(r HGET "${P}harvest:$id" pending) failed=$(r HGET "${P}harvest:$id" failed)"
  echo "finished=$(r SMEMBERS "${P}harvest:$id:finished" | sort | tr '\n' ' ')"
  for s in download unpack guess parse import; do
    echo "$s done=$(r HGET "${P}stats:$s" done) queued=$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${P}queue:$s")"
  done
  r HGETALL "${P}seeds" | paste - - | sort
  echo "imports=$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${P}queue:import") $(r SCARD "${P}queued:import")"
  r HGET "${P}counters" triples_imported
  hv_graph "$dir/frozen" p | md5sum
}
before=$(snapshot)
# the frozen worker thaws: its download finishes, its ack comes too late
kill -CONT "$frozen"
wait "$frozen" || true
frozen=""
expect_match "it says it lost the job" "$(cat "$dir/frozen.log")" 'lost the job'
expect_eq "its late ack changed nothing" "$(snapshot)" "$before"
expect_eq "the graph of the undisturbed run" \
  "$(hv_graph "$dir/frozen" p | md5sum)" "$(hv_graph "$dir/calm" p | md5sum)"
expect_eq "the parse counted once" "$(r HGET "${P}stats:parse" done)" 1
expect_match "the blank node is there" "$(hv_graph "$dir/frozen" p)" 'genid/.*schema.org/name> "someone"' 
lw_test_done
