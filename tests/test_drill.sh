#!/usr/bin/env bash
# The randomized fault drill. Several providers, many dump files (one listed
# by two providers, one an archive) served over loopback HTTP, the real
# scheduler and workers on a redis-server of its own with AOF (appendonly
# yes, appendfsync always). For the drill's time, round after round of
# forced harvests run while, at random moments, workers are killed
# (SIGKILL) and frozen (SIGSTOP, then SIGCONT), redis-server is killed and
# restarted, and the script cache is flushed. After each round every
# harvest must be done, each exactly once (one import each), and at the end
# every graph must equal the one an undisturbed run produces.
#
#   tests/test_drill.sh [--seconds N] [--seed S]     (scripts/drill)
# The seed is printed: the same seed makes the same choices (the timing of
# the processes still varies). The suite's run always uses seed 23, so that
# its faults are the same on every machine (and its first four steps are one
# of each kind: SIGKILL, redis-server restart, SIGSTOP, SCRIPT FLUSH);
# scripts/drill picks a new seed for a soak unless given one.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"

seconds=${LODWASH_DRILL_SECONDS:-60}
seed=${LODWASH_DRILL_SEED:-23}
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--seed S]" >&2; exit 2 ;;
  esac
done
echo "drill: seed=$seed seconds=$seconds (again: --seed $seed)"
RANDOM=$seed
command -v redis-server > /dev/null || lw_test_skip "no redis-server"

dir=$(mktemp -d)
redis_pid=""
workers=()
# SIGTERM, a bounded wait, then SIGKILL.
stop() {
  local p
  for p in "$@"; do kill -CONT "$p" 2>/dev/null || true; kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for p in "$@"; do kill -9 "$p" 2>/dev/null || true; done
}
cleanup() {
  stop "${workers[@]}" ${redis_pid:+"$redis_pid"}
  hv_stop
  wait 2>/dev/null || true
  if [ "${LW_FAILED:-0}" -gt 0 ]; then
    echo "drill: seed=$seed; worker log tail:" >&2
    tail -20 "$dir/chaos/workers.log" >&2 || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

# --- the servers ---------------------------------------------------------
port=$(hv_port)
mkdir -p "$dir/redis"
start_redis() {
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir/redis" --save '' \
    --appendonly yes --appendfsync always --daemonize no --hash-max-listpack-value 1024 \
    --logfile "$dir/redis/redis.log" &
  redis_pid=$!
  for _ in $(seq 200); do
    redis-cli -p "$port" ping > /dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "redis-server did not start" >&2
  cat "$dir/redis/redis.log" >&2
  return 1
}
start_redis
export LODWASH_TEST_REDIS="redis://127.0.0.1:$port/0"
r() { redis-cli -p "$port" "$@"; }

hv_init "$dir"
providers=(p1 p2 p3)
hv_dump shared 300
mkdir -p "$dir/arch"
for i in 1 2 3; do
  hv_dump "part$i" 200 "part$i"
  mv "$dir/www/part$i.nt" "$dir/arch/part$i.nt"
done
tar -czf "$dir/www/bundle.tar.gz" -C "$dir/arch" part1.nt part2.nt part3.nt
for p in "${providers[@]}"; do
  dumps=()
  for i in 1 2 3 4 5; do
    hv_dump "$p-d$i" $(( 100 + 50 * i ))
    dumps+=("$p-d$i")
  done
  [ "$p" != p3 ] && dumps+=(shared)
  hv_provider "$dir/reg.yaml" "$p" "${dumps[@]}"
done
# p1 also lists the archive
sed -i "s|  \\.\$|  ; void:dataDump <$HV_BASE/bundle.tar.gz>\\n  .|" "$dir/www/p1-void.ttl"

args_common=(--allow-net 127.0.0.1 --heartbeat-ttl 2 --max-attempts 1000
             --retry-base-ms 20 --retry-max-ms 300 --poll-max-ms 50
             --harvest-timeout 600)
sched() {
  "$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$1" \
    --registry "$dir/reg.yaml" --data "$2" --once "${args_common[@]}" 2>> "$2/sched.log"
}
force_all() {
  local p
  for p in "${providers[@]}"; do r HSET "$1provider:$p" force 1 > /dev/null; done
}
start_worker() {
  "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$1" \
    --data "$2" "${args_common[@]}" 2>> "$2/workers.log" &
  workers+=($!)
}
# All providers idle and their harvests done (settles them on the way).
all_done() {
  sched "$1" "$2" || return 1
  local p id
  for p in "${providers[@]}"; do
    id=$(r HGET "$1provider:$p" harvest) || return 1
    [ "$(r HGET "$1harvest:$id" status)" == done ] || return 1
    [ "$(r HGET "$1provider:$p" state)" == idle ] || return 1
  done
}

# --- the undisturbed run ---------------------------------------------------
calm="lwdrill:calm:"
mkdir -p "$dir/calm" "$dir/chaos"
sched "$calm" "$dir/calm"
hv_workers "$calm" "$dir/calm" 2
all_done "$calm" "$dir/calm" || lw_fail "the undisturbed run did not finish"

# --- the drill ---------------------------------------------------------------
P="lwdrill:chaos:"
for _ in 1 2 3; do start_worker "$P" "$dir/chaos"; done
deadline=$(( $(date +%s) + seconds ))
rounds=0
faults=0
imports_before=0
round_start() {
  force_all "$P"
  sched "$P" "$dir/chaos" || true
}
round_start
chaos_step() {
  local n=${#workers[@]} i action
  i=$(( RANDOM % n ))
  action=$(( RANDOM % 10 ))
  case $action in
    0|1) # SIGKILL a worker, start another
      kill -9 "${workers[$i]}" 2>/dev/null || true
      wait "${workers[$i]}" 2>/dev/null || true
      workers=("${workers[@]:0:$i}" "${workers[@]:$((i + 1))}")
      start_worker "$P" "$dir/chaos"
      echo "fault: SIGKILL worker" >> "$dir/faults.log" ;;
    2|3) # freeze a worker, past its heartbeat or not
      kill -STOP "${workers[$i]}" 2>/dev/null || true
      sleep "$(( RANDOM % 4 )).$(( RANDOM % 10 ))"
      kill -CONT "${workers[$i]}" 2>/dev/null || true
      echo "fault: SIGSTOP/SIGCONT worker" >> "$dir/faults.log" ;;
    4) # kill redis-server, restart it from its AOF
      kill -9 "$redis_pid" 2>/dev/null || true
      wait "$redis_pid" 2>/dev/null || true
      sleep "0.$(( RANDOM % 10 ))"
      start_redis
      echo "fault: redis-server killed and restarted" >> "$dir/faults.log" ;;
    5) r SCRIPT FLUSH > /dev/null 2>&1 || true
      echo "fault: SCRIPT FLUSH" >> "$dir/faults.log" ;;
    *) sleep "0.$(( RANDOM % 10 ))" ;;
  esac
  faults=$(( faults + (action < 6 ? 1 : 0) ))
}
while [ "$(date +%s)" -lt "$deadline" ]; do
  chaos_step
  if all_done "$P" "$dir/chaos" 2> /dev/null; then
    rounds=$(( rounds + 1 ))
    imports=$(r HGET "${P}stats:import" done)
    expect_eq "round $rounds: each harvest imported exactly once" \
      "$(( imports - imports_before ))" "${#providers[@]}"
    imports_before=$imports
    for p in "${providers[@]}"; do
      expect_eq "round $rounds: $p's graph" "$(hv_graph "$dir/chaos" "$p" | md5sum)" \
        "$(hv_graph "$dir/calm" "$p" | md5sum)"
    done
    round_start
  fi
done
# the end: no more faults; the last round must finish
for _ in $(seq 600); do
  all_done "$P" "$dir/chaos" 2> /dev/null && break
  sleep 0.2
done
if all_done "$P" "$dir/chaos"; then
  rounds=$(( rounds + 1 ))
  imports=$(r HGET "${P}stats:import" done)
  expect_eq "last round: each harvest imported exactly once" \
    "$(( imports - imports_before ))" "${#providers[@]}"
else
  lw_fail "the last round did not finish"
fi
for p in "${providers[@]}"; do
  expect_eq "$p's graph after the drill" "$(hv_graph "$dir/chaos" "$p" | md5sum)" \
    "$(hv_graph "$dir/calm" "$p" | md5sum)"
  expect_match "$p's graph is not empty" "$(hv_graph "$dir/calm" "$p" | wc -l)" '^[1-9]'
done
expect_eq "no dead job" "$(r --scan --pattern "${P}dead:*" | while read -r k; do r LLEN "$k"; done |
  awk '{s += $1} END {print s + 0}')" 0
echo "drill: seed=$seed rounds=$rounds faults=$faults ($(sort "$dir/faults.log" 2>/dev/null | uniq -c | tr -s ' ' | tr '\n' ';'))"
lw_test_done
