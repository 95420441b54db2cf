#!/usr/bin/env bash
# Slow hosts in a whole pipeline (issue 15): 30 providers, 3 of which serve
# their dump a line a second (and their VoID a second late). The real scheduler (one cycle), two
# real workers serving every stage, loopback HTTP, the files store. With
# --download-workers 1, every quick dump downloaded gets through unpack,
# guess, parse and import into its provider's graph while a trickling
# transfer holds the one download place: the later stages are not starved.
# (With one transfer per worker, --download-transfers 1, quick dumps queued
# behind a trickle wait for that place, docs/scale.md; with many, the
# default, the one download worker holds every trickle and still downloads
# every quick dump.) The undisturbed run (no cap) is measured and printed,
# not asserted (its order depends on which worker takes which job).
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

QUICK=27
TRICKLE=3
dir=$(mktemp -d)
WPIDS=()
stop_workers() {
  local p
  for p in "${WPIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  local end=$((SECONDS + 10))
  for p in "${WPIDS[@]}"; do
    while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  WPIDS=()
}
cleanup() {
  stop_workers
  hv_stop
  rm -rf "$dir"
  lw_test_redis_cleanup "lwtest:slowpipe:$$:"
}
trap cleanup EXIT
export LODWASH_HOST_INTERVAL_MS=0 LODWASH_PER_HOST_CONCURRENCY=8 LODWASH_LOW_SPEED_TIME=120
HV_SLOW_S=1 hv_init "$dir"

# --- the trickling server (robots.txt: 404)
python3 "$(dirname "$0")/support/dribble_server.py" "$dir/tport" 127.0.0.1 \
  --slow-seconds 120 --slow-prefix / &
HV_PIDS+=($!)
for _ in $(seq 100); do [ -s "$dir/tport" ] && break; sleep 0.05; done
tbase="http://127.0.0.1:$(cat "$dir/tport")"

# --- the registry: quick providers, then the trickling ones
for i in $(seq "$QUICK"); do
  hv_dump "q$i" 12
  hv_provider "$dir/reg.yaml" "q$i" "q$i"
done
mkdir -p "$dir/www/slow"
for i in $(seq "$TRICKLE"); do
  printf '<#ds> a <http://rdfs.org/ns/void#Dataset> ; <http://rdfs.org/ns/void#dataDump> <%s/t%d.nt> .\n' \
    "$tbase" "$i" > "$dir/www/slow/t$i-void.ttl"
  printf 't%d:\n  void: %s/slow/t%d-void.ttl\n' "$i" "$HV_BASE" "$i" >> "$dir/reg.yaml"
done

quick_done() {
  local prefix=$1 n=0 i
  for i in $(seq "$QUICK"); do
    [ "$(hv_harvest "$prefix" "q$i" status)" = "done" ] && n=$((n + 1))
  done
  echo "$n"
}
seeds() { # "URI STATUS" of every seed
  local prefix=$1
  redis-cli -u "$LODWASH_TEST_REDIS" --scan --pattern "${prefix}seed:*" | while read -r k; do
    redis-cli -u "$LODWASH_TEST_REDIS" HMGET "$k" uri status | paste -sd' '
  done
}
quick_downloaded() { seeds "$1" | grep "^$HV_BASE/" | grep -vc ' added$\| downloading$' || true; }
trickling() { seeds "$1" | grep -c "^$tbase/.* downloading$" || true; }
snapshot() {
  local prefix=$1
  SNAP_DONE=$(quick_done "$prefix")
  SNAP_DOWNLOADED=$(quick_downloaded "$prefix")
  SNAP_TRICKLING=$(trickling "$prefix")
}

# run NAME MIN_S MAX_S [WORKER ARGS...]: one cycle, then two workers for
# MIN_S, and on until every quick dump downloaded is in its provider's graph
# while a trickling transfer is in flight, or MAX_S; prints where the
# pipeline stands
run() {
  local name=$1 min_s=$2 wait_s=$3; shift 3
  local prefix="lwtest:slowpipe:$$:$name:" data="$dir/$name"
  mkdir -p "$data"
  hv_sched "$prefix" "$dir/reg.yaml" "$data" 2>> "$dir/sched.log"
  local start=$SECONDS i
  for i in 1 2; do
    "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
      --data "$data" --allow-net 127.0.0.1 --heartbeat-ttl 5 "$@" 2>> "$data/workers.log" &
    WPIDS+=($!)
  done
  sleep "$min_s"
  while :; do
    snapshot "$prefix"
    if [ "$SNAP_TRICKLING" -ge 1 ] && [ "$SNAP_DOWNLOADED" -gt 0 ] &&
       [ "$SNAP_DONE" -eq "$SNAP_DOWNLOADED" ]; then break; fi
    [ $((SECONDS - start)) -ge "$wait_s" ] && break
    sleep 1
  done
  echo "$name after $((SECONDS - start)) s: $SNAP_DOWNLOADED of $QUICK quick dumps downloaded," \
    "$SNAP_DONE of their harvests imported; $SNAP_TRICKLING trickling transfers in flight"
  stop_workers
}

run nocap 20 20
run cap 20 60 --download-workers 1 --download-transfers 1
expect_eq "cap: a trickling transfer holds the one download place" "$SNAP_TRICKLING" 1
expect_match "cap: quick dumps downloaded" "$SNAP_DOWNLOADED" '^[1-9]'
expect_eq "cap: every quick dump downloaded is in its provider's graph" "$SNAP_DONE" \
  "$SNAP_DOWNLOADED"
run many 20 60 --download-workers 1
expect_eq "many: the one download worker holds every trickle" "$SNAP_TRICKLING" "$TRICKLE"
expect_eq "many: every quick dump downloaded meanwhile" "$SNAP_DOWNLOADED" "$QUICK"
expect_eq "many: every one in its provider's graph" "$SNAP_DONE" "$QUICK"
lw_test_done
