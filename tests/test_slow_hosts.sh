#!/usr/bin/env bash
# Slow hosts do not starve the pipeline: real workers, the test Redis and a
# loopback server whose dumps trickle (a line a second). Two workers serve
# download and noop (download preferred). Without a cap both sit in
# transfers and the other jobs wait (the undisturbed run shows it); with
# --download-workers 1 one worker takes the transfers and the other does the
# rest meanwhile. Both runs are of workers holding one transfer each
# (--download-transfers 1); many transfers in one worker are
# test_many_transfers.sh. Also: a worker serving every stage prefers a
# dump's later stages (import, parse, guess, unpack) to new downloads.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
lw_sh_require_redis
lw_sh_init slowhosts
export LODWASH_HEARTBEAT_TTL=5 LODWASH_POLL_MAX_MS=50 LODWASH_ALLOW_NET=127.0.0.1
export LODWASH_HOST_INTERVAL_MS=0 LODWASH_PER_HOST_CONCURRENCY=8

# --- a server whose every GET trickles for a minute (robots.txt: 404)
python3 "$LODWASH_SOURCE_DIR/tests/support/dribble_server.py" "$LW_SH_TMP/port" 127.0.0.1 \
  --slow-seconds 60 --slow-prefix / &
LW_SH_PIDS+=($!)
lw_sh_wait_for 10 test -s "$LW_SH_TMP/port"
port=$(cat "$LW_SH_TMP/port")

count_is() { [ "$(lw_sh_count "$1" "$2")" = "$3" ]; }

# run NAME: two downloads from the slow host, then ten short jobs; two workers
run() {
  local name=$1
  shift
  "$LODWASH" seed add "http://127.0.0.1:$port/$name-1.nt" >/dev/null
  "$LODWASH" seed add "http://127.0.0.1:$port/$name-2.nt" >/dev/null
  "$LODWASH" jobs push noop --count 10 '{"sleep_ms": 20}' >/dev/null
  lw_sh_start_worker "$name-a" --stages download,noop "$@"
  a=$LW_SH_LAST_PID
  lw_sh_start_worker "$name-b" --stages download,noop "$@"
  b=$LW_SH_LAST_PID
}

stop_workers() {
  kill -TERM "$a" "$b" 2>/dev/null
  local end=$((SECONDS + 10))
  while kill -0 "$a" 2>/dev/null || kill -0 "$b" 2>/dev/null; do
    [ $SECONDS -ge $end ] && { kill -9 "$a" "$b" 2>/dev/null; break; }
    sleep 0.1
  done
  wait "$a" "$b" 2>/dev/null
  lw_sh_redis_cli --scan --pattern "${LODWASH_PREFIX}*" | while read -r k; do
    lw_sh_redis_cli UNLINK "$k" >/dev/null; done
}

# --- undisturbed: both workers end up in the trickling transfers
run nocap --download-transfers 1
lw_sh_check "no cap: both workers download" lw_sh_wait_for 20 count_is download inflight 2
lw_sh_check "no cap: the short jobs wait" count_is noop done 0
stop_workers

# --- --download-workers 1: the short jobs are done while a transfer trickles
run cap --download-workers 1 --download-transfers 1
lw_sh_check "cap: short jobs done" lw_sh_wait_for 30 count_is noop done 10
lw_sh_check "cap: meanwhile one transfer at most" count_is download inflight 1
lw_sh_check "cap: no download finished" count_is download done 0
stop_workers

# --- the default stage order: a dump's later stages first
"$WORKER" --help >"$LW_SH_TMP/help"
"$LODWASH" jobs push download '{"seed": "x"}' >/dev/null 2>&1
lw_sh_check "default order prefers later stages" \
  grep -q "default: all, a dump's later stages first" "$LW_SH_TMP/help"
lw_sh_start_worker order
pid=$LW_SH_LAST_PID
lw_sh_wait_for 10 grep -q "worker started" "$LW_SH_TMP/order.log"
kill -TERM "$pid"; wait "$pid" 2>/dev/null
lw_sh_check "worker lists import first, download after unpack" \
  grep -q "stages=import,parse,guess,unpack,download," "$LW_SH_TMP/order.log"

lw_sh_finish
