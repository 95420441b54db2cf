#!/usr/bin/env bash
# A Redis restart with AOF on loses no queued job, and workers reconnect by
# themselves. Runs its own redis-server (appendfsync always) on a free port,
# kills it with SIGKILL while two workers are busy, starts it again from the
# same directory, and checks that every job was done exactly once. Then
# pushes jobs while the script cache is flushed over and over.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
command -v redis-server >/dev/null || { echo "SKIP: no redis-server"; exit 77; }
LW_SH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-restart-XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export LODWASH_REDIS="redis://127.0.0.1:$port/0" LODWASH_PREFIX="lodwash:"
export LODWASH_POLL_MAX_MS=50 LODWASH_HEARTBEAT_TTL=30
REDIS_PID=
start_redis() {
  redis-server --bind 127.0.0.1 --port "$port" --dir "$LW_SH_TMP" --save '' \
    --appendonly yes --appendfsync always --logfile "$LW_SH_TMP/redis.log" &
  REDIS_PID=$!
  LW_SH_PIDS+=("$REDIS_PID")
  lw_sh_wait_for 10 redis-cli -p "$port" ping >/dev/null 2>&1
}
trap lw_sh_cleanup EXIT
start_redis
lw_sh_check "private redis-server up" redis-cli -p "$port" ping

jobs=300
"$LODWASH" jobs push noop --count $jobs '{"sleep_ms": 10}' >/dev/null
lw_sh_start_worker w1 --stages noop
w1=$LW_SH_LAST_PID
lw_sh_start_worker w2 --stages noop
w2=$LW_SH_LAST_PID
done_at_least() { [ "$(lw_sh_count noop done 2>/dev/null || echo 0)" -ge "$1" ]; }
lw_sh_check "workers make progress" lw_sh_wait_for 20 done_at_least 20

kill -9 "$REDIS_PID" 2>/dev/null
wait "$REDIS_PID" 2>/dev/null
sleep 1
lw_sh_check "workers survive Redis going away" kill -0 "$w1" "$w2"
start_redis
lw_sh_check "redis-server back from its AOF" redis-cli -p "$port" ping

# the script cache empties with a restart; flushing it again mid-run makes
# acks meet NOSCRIPT inside their MULTI (they reload and run again)
lw_sh_check "progress after the restart" lw_sh_wait_for 20 done_at_least 150
redis-cli -p "$port" SCRIPT FLUSH >/dev/null
all_done() { [ "$(lw_sh_count noop done)" -ge $jobs ] && [ "$(lw_sh_count noop inflight)" = 0 ]; }
lw_sh_check "workers reconnect and finish every job" lw_sh_wait_for 60 all_done
lw_sh_check "done exactly $jobs" [ "$(lw_sh_count noop done)" = $jobs ]
lw_sh_check "none queued" [ "$(lw_sh_count noop queued)" = 0 ]
lw_sh_check "none dead" [ "$(lw_sh_count noop dead)" = 0 ]
lw_sh_check "jobs logged by both workers after the restart" \
  grep -q "reconnected to Redis" "$LW_SH_TMP/w1.log"
kill -TERM "$w1" "$w2"
wait "$w1"
lw_sh_check "worker 1 exits 0 on SIGTERM" [ $? -eq 0 ]
wait "$w2"
lw_sh_check "worker 2 exits 0 on SIGTERM" [ $? -eq 0 ]
# Jobs pushed while the script cache is flushed again and again (a
# failover in the middle of a push): the pipelined enqueues that meet
# NOSCRIPT go again, so every job is queued once.
( while :; do redis-cli -p "$port" SCRIPT FLUSH >/dev/null 2>&1; done ) &
flusher=$!
LW_SH_PIDS+=("$flusher")
out=$("$LODWASH" jobs push noop --count 20000 '{}' 2>&1)
kill "$flusher" 2>/dev/null
wait "$flusher" 2>/dev/null
lw_sh_check "push under SCRIPT FLUSH: $out" [ "$out" = "queued 20000 noop jobs" ]
lw_sh_check "push under SCRIPT FLUSH: all 20000 in the queue" \
  [ "$(lw_sh_count noop queued)" = 20000 ]
unset LODWASH_PREFIX # the private server goes away whole
lw_sh_finish
