#!/usr/bin/env bash
# The job time limit (--job-time-limit): a job that runs too long (here a
# download from a loopback server that dribbles a line a second, above the
# low-speed limit) is failed with a clear error on its seed, goes to the
# dead list without retries, and its worker exits with code 3 (its thread
# cannot be stopped; a supervisor starts a fresh worker). The rest of the
# work goes on: a worker started after it does the other jobs.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
lw_sh_require_redis
lw_sh_init jobtimelimit
export LODWASH_HEARTBEAT_TTL=3 LODWASH_POLL_MAX_MS=50 LODWASH_ALLOW_NET=127.0.0.1
export LODWASH_HOST_INTERVAL_MS=0 LODWASH_LOW_SPEED_LIMIT=1 LODWASH_ROBOTS_TTL=0

python3 "$LODWASH_SOURCE_DIR/tests/support/dribble_server.py" "$LW_SH_TMP/port" 127.0.0.1 \
  --slow-seconds 120 &
LW_SH_PIDS+=($!)
lw_sh_wait_for 10 test -s "$LW_SH_TMP/port"
port=$(cat "$LW_SH_TMP/port")
url="http://127.0.0.1:$port/slow.nt"

count_is() { [ "$(lw_sh_count "$1" "$2")" = "$3" ]; }
seed_field() { "$LODWASH" seed show "$url" --json | python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', ''))"; }

"$LODWASH" seed add "$url" >/dev/null
lw_sh_start_worker slow --stages download --job-time-limit 2
pid=$LW_SH_LAST_PID
lw_sh_check "the download started" lw_sh_wait_for 10 count_is download inflight 1

# the worker gives up within the limit plus a heartbeat period (1 s here)
exited() { ! kill -0 "$pid" 2>/dev/null; }
lw_sh_check "the worker exited" lw_sh_wait_for 15 exited
exited || kill -9 "$pid"
wait "$pid"
code=$?
lw_sh_check "with exit code 3 (got $code)" test "$code" = 3
lw_sh_check "its log says why" grep -q 'job time limit reached' "$LW_SH_TMP/slow.log"
lw_sh_check "the seed failed" test "$(seed_field status)" = failed
lw_sh_check "with the limit as its error ($(seed_field error))" \
  bash -c "'$LODWASH' seed show '$url' --json | grep -q 'longer than the job time limit (2 s)'"
lw_sh_check "the job is dead, not retried" count_is download dead 1
lw_sh_check "nothing in flight" count_is download inflight 0
lw_sh_check "the worker unregistered" \
  test "$(lw_sh_json "len(d['workers'])")" = 0

# the rest of the work goes on
"$LODWASH" jobs push noop --count 3 '{"sleep_ms": 10}' >/dev/null
lw_sh_start_worker next --stages noop --job-time-limit 2 --exit-when-idle
lw_sh_check "the next worker does the other jobs" lw_sh_wait_for 20 count_is noop done 3
wait "$LW_SH_LAST_PID"
lw_sh_check "and exits 0 when idle" test $? = 0

lw_sh_finish
