#!/usr/bin/env bash
# Many transfers in one download worker (issue 27): ONE worker, one slow
# host (its dump dribbles a line a second) and three fast ones (three dumps
# each, the per-host pace on). The fast dumps are all filed while the slow
# one is still downloading, and the end state (every seed's status and
# content hash) equals an undisturbed run of a worker holding one transfer
# at a time. SIGTERM while the slow transfer runs hands its job back, and a
# new worker finishes it to the same end state.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
lw_sh_require_redis
lw_sh_init manytransfers
export LODWASH_HEARTBEAT_TTL=5 LODWASH_POLL_MAX_MS=50 LODWASH_ALLOW_NET=127.0.0.0/8
export LODWASH_HOST_INTERVAL_MS=300 # a fast host's dumps 300 ms apart
SLOW_S=12

python3 "$LODWASH_SOURCE_DIR/tests/support/dribble_server.py" "$LW_SH_TMP/port" \
  127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4 --slow-seconds $SLOW_S &
LW_SH_PIDS+=($!)
lw_sh_wait_for 10 test -s "$LW_SH_TMP/port"
port=$(cat "$LW_SH_TMP/port")
slow="http://127.0.0.1:$port/slow.nt"
fast=()
for h in 2 3 4; do
  for i in 1 2 3; do fast+=("http://127.0.0.$h:$port/fast-$h-$i.nt"); done
done

add_seeds() {
  local u
  for u in "$slow" "${fast[@]}"; do "$LODWASH" seed add "$u" >/dev/null; done
}

statuses() { # "URI STATUS" of every seed
  lw_sh_redis_cli --scan --pattern "${LODWASH_PREFIX}seed:*" | while read -r k; do
    lw_sh_redis_cli HMGET "$k" uri status | paste -sd' '; done
}

# "URI STATUS MD5" of every seed, sorted: what a run leaves
end_state() {
  lw_sh_redis_cli --scan --pattern "${LODWASH_PREFIX}seed:*" | while read -r k; do
    printf '%s %s %s\n' "$(lw_sh_redis_cli HGET "$k" uri)" "$(lw_sh_redis_cli HGET "$k" status)" \
      "$(lw_sh_redis_cli HGET "$k" content | python3 -c \
        'import json,sys; t=sys.stdin.read().strip(); print(json.loads(t)["hash"] if t else "-")')"
  done | sort
}

fast_filed() { [ "$(statuses | grep -c "^http://127.0.0.[234]:.* filed$")" = 9 ]; }
slow_status_is() { [ "$(statuses | grep -c "^$slow $1$")" = 1 ]; }
count_is() { [ "$(lw_sh_count "$1" "$2")" = "$3" ]; }

wipe() {
  lw_sh_redis_cli --scan --pattern "${LODWASH_PREFIX}*" | while read -r k; do
    lw_sh_redis_cli UNLINK "$k" >/dev/null; done
}

stop_worker() { # PID: SIGTERM, at most 10 s
  kill -TERM "$1" 2>/dev/null
  local end=$((SECONDS + 10))
  while kill -0 "$1" 2>/dev/null; do
    [ $SECONDS -ge $end ] && { kill -9 "$1"; return 1; }
    sleep 0.1
  done
  wait "$1" 2>/dev/null
  return 0
}

# --- undisturbed: one transfer at a time
export LODWASH_DATA="$LW_SH_TMP/one"
add_seeds
t0=$SECONDS
lw_sh_start_worker one --stages download --download-transfers 1 --exit-when-idle
pid=$LW_SH_LAST_PID
lw_sh_wait_for 60 bash -c "! kill -0 $pid 2>/dev/null"
wait "$pid" 2>/dev/null
t1=$SECONDS
end_state >"$LW_SH_TMP/one.state"
lw_sh_check "undisturbed: ten seeds filed" \
  test "$(grep -c ' filed [0-9a-f]\{32\}$' "$LW_SH_TMP/one.state")" = 10
wipe

# --- one worker, many transfers: the fast dumps are filed while the slow one runs
export LODWASH_DATA="$LW_SH_TMP/many"
add_seeds
lw_sh_start_worker many --stages download
pid=$LW_SH_LAST_PID
lw_sh_check "many: the fast dumps are filed" lw_sh_wait_for $((SLOW_S - 2)) fast_filed
lw_sh_check "many: ... while the slow one is still downloading" slow_status_is downloading
lw_sh_check "many: ... its job in flight" count_is download inflight 1
lw_sh_check "many: then the slow one is filed" lw_sh_wait_for 30 slow_status_is filed
stop_worker "$pid"
end_state >"$LW_SH_TMP/many.state"
lw_sh_check "many: the end state equals the undisturbed run's" \
  diff "$LW_SH_TMP/one.state" "$LW_SH_TMP/many.state"
ms_of() { sed -n "s/.*stage=download seed=.*status=200 .* ms=\([0-9]*\)$/\1/p" "$LW_SH_TMP/many.log"; }
echo "one worker, many transfers: the fast dumps took $(ms_of | sort -n | head -9 | tail -1) ms" \
  "at most, the slow one $(ms_of | sort -n | tail -1) ms (undisturbed run, one at a time:" \
  "$((t1 - t0)) s in all)"
wipe

# --- SIGTERM while the slow transfer runs: its job is handed back
export LODWASH_DATA="$LW_SH_TMP/term"
add_seeds
lw_sh_start_worker term --stages download
pid=$LW_SH_LAST_PID
lw_sh_wait_for $((SLOW_S - 2)) fast_filed
lw_sh_check "term: the worker stops at once" stop_worker "$pid"
lw_sh_check "term: the slow job is queued again" count_is download queued 1
lw_sh_check "term: nothing in flight" count_is download inflight 0
lw_sh_check "term: handed back, not failed" grep -q "outcome=handed-back" "$LW_SH_TMP/term.log"
lw_sh_start_worker term2 --stages download --exit-when-idle
pid=$LW_SH_LAST_PID
lw_sh_wait_for 60 bash -c "! kill -0 $pid 2>/dev/null"
wait "$pid" 2>/dev/null
end_state >"$LW_SH_TMP/term.state"
lw_sh_check "term: a new worker ends in the undisturbed run's state" \
  diff "$LW_SH_TMP/one.state" "$LW_SH_TMP/term.state"

lw_sh_finish
