#!/usr/bin/env bash
# lodwash-worker against the test Redis: a worker killed with SIGKILL loses
# no job (another one finishes it after the heartbeat expires), SIGTERM hands
# a running job back, failures retry with backoff then go dead, `jobs retry`
# brings them back, --exit-when-idle, bad arguments.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
lw_sh_require_redis
lw_sh_init worker
export LODWASH_HEARTBEAT_TTL=1 LODWASH_RETRY_BASE_MS=100 LODWASH_POLL_MAX_MS=50

count_is() { [ "$(lw_sh_count "$1" "$2")" = "$3" ]; }

# --- bad arguments and help
"$WORKER" --stages nosuchstage >/dev/null 2>"$LW_SH_TMP/err"
lw_sh_check "unknown stage exits 2" [ $? -eq 2 ]
lw_sh_check "unknown stage message" grep -q "unknown stage 'nosuchstage'" "$LW_SH_TMP/err"
"$WORKER" --bogus >/dev/null 2>&1
lw_sh_check "unknown flag exits 2" [ $? -eq 2 ]
"$WORKER" --help >"$LW_SH_TMP/help"
lw_sh_check "--help exits 0" [ $? -eq 0 ]
lw_sh_check "--help lists noop and flags" grep -q "noop" "$LW_SH_TMP/help"
lw_sh_check "--help lists --exit-when-idle" grep -q -- "--exit-when-idle" "$LW_SH_TMP/help"

# --- idle at once
start=$SECONDS
timeout 20 "$WORKER" --stages noop --exit-when-idle 2>/dev/null
lw_sh_check "idle worker exits 0" [ $? -eq 0 ]
lw_sh_check "idle worker exits quickly" [ $((SECONDS - start)) -le 3 ]

# --- SIGKILL: no job lost, none left in flight
# one long job (the victim holds it for seconds, however slow this machine
# is when we look), then three short ones queued behind it
"$LODWASH" jobs push noop '{"sleep_ms": 3000, "seed": "victim"}' >/dev/null
lw_sh_start_worker killed --stages noop
victim=$LW_SH_LAST_PID
lw_sh_check "first worker takes the job" lw_sh_wait_for 10 count_is noop inflight 1
kill -9 "$victim"
wait "$victim" 2>/dev/null
"$LODWASH" jobs push noop --count 3 '{"sleep_ms": 100}' >/dev/null
lw_sh_check "killed worker's job still in flight" count_is noop inflight 1
lw_sh_check "killed worker did not finish it" [ "$(grep -c 'outcome=done' "$LW_SH_TMP/killed.log")" -eq 0 ]
timeout 60 "$WORKER" --stages noop --exit-when-idle 2>"$LW_SH_TMP/rescuer.log"
lw_sh_check "rescuer exits 0" [ $? -eq 0 ]
lw_sh_check "rescuer reaped the job" grep -q "gave back jobs of dead workers" "$LW_SH_TMP/rescuer.log"
lw_sh_check "rescuer finished the victim's job" grep -q "seed=victim .*outcome=done" "$LW_SH_TMP/rescuer.log"
lw_sh_check "all 4 jobs done" count_is noop done 4
lw_sh_check "none in flight" count_is noop inflight 0
lw_sh_check "none queued" count_is noop queued 0
lw_sh_check "none dead" count_is noop dead 0
lw_sh_check "no in-flight list left" [ "$(lw_sh_redis_cli --scan --pattern "${LODWASH_PREFIX}inflight:*" | wc -l)" -eq 0 ]
# the killed worker may have finished a job or two before the kill (a loaded
# machine): together the two logs say each job once
lw_sh_check "one log line per job" [ "$(cat "$LW_SH_TMP/killed.log" "$LW_SH_TMP/rescuer.log" | grep -c 'stage=noop .*outcome=done ms=')" -eq 4 ]

# --- SIGTERM hands the running job back
"$LODWASH" jobs push noop '{"sleep_ms": 20000, "seed": "longjob"}' >/dev/null
lw_sh_start_worker term --stages noop
pid=$LW_SH_LAST_PID
lw_sh_check "worker takes the long job" lw_sh_wait_for 10 count_is noop inflight 1
lw_sh_check "status shows the worker's job" lw_sh_wait_for 5 \
  bash -c "'$LODWASH' status --json | grep -q '\"seed\": \"longjob\"'"
lw_sh_check "status shows the stage's progress" lw_sh_wait_for 5 \
  bash -c "'$LODWASH' status | grep -q 'progress=\"sleeping, '"
start=$SECONDS
kill -TERM "$pid"
wait "$pid"
rc=$?
lw_sh_check "SIGTERM exits 0" [ $rc -eq 0 ]
lw_sh_check "SIGTERM is quick" [ $((SECONDS - start)) -le 3 ]
lw_sh_check "job handed back" grep -q "outcome=handed-back" "$LW_SH_TMP/term.log"
lw_sh_check "handed-back job is queued" count_is noop queued 1
lw_sh_check "nothing in flight after SIGTERM" count_is noop inflight 0
lw_sh_check "hand-back is no failure" count_is noop failed 0
lw_sh_check "duplicate push suppressed" bash -c \
  "'$LODWASH' jobs push noop '{\"seed\": \"longjob\"}' | grep -q suppressed"
lw_sh_check "worker left the registry" [ "$(lw_sh_json 'len(d["workers"])')" = 0 ]
lw_sh_redis_cli EVAL "$LW_QUEUE_CLEAR_LUA" 1 "${LODWASH_PREFIX}queue:noop" >/dev/null
lw_sh_redis_cli DEL "${LODWASH_PREFIX}queued:noop" >/dev/null

# --- failure: retries with backoff, then dead; jobs retry brings it back
"$LODWASH" jobs push noop '{"fail": "retryable", "seed": "flaky"}' >/dev/null
start=$(date +%s%N)
LODWASH_MAX_ATTEMPTS=3 timeout 30 "$WORKER" --stages noop --exit-when-idle 2>"$LW_SH_TMP/fail.log"
lw_sh_check "failing worker exits 0" [ $? -eq 0 ]
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
lw_sh_check "backoff waited 100 + 200 ms" [ "$elapsed_ms" -ge 300 ]
lw_sh_check "two retries logged" [ "$(grep -c 'outcome=retry' "$LW_SH_TMP/fail.log")" -eq 2 ]
lw_sh_check "backoff doubles" grep -q "retry_ms=200" "$LW_SH_TMP/fail.log"
lw_sh_check "then dead" [ "$(grep -c 'outcome=dead' "$LW_SH_TMP/fail.log")" -eq 1 ]
lw_sh_check "dead count 1" count_is noop dead 1
lw_sh_check "failed count 3" count_is noop failed 3
"$LODWASH" jobs dead >"$LW_SH_TMP/dead"
lw_sh_check "jobs dead shows the error" grep -q 'seed=flaky attempt=3 error="noop: asked to fail (retryable)"' "$LW_SH_TMP/dead"
id=$(cut -d' ' -f1 "$LW_SH_TMP/dead")
"$LODWASH" jobs retry 0123456789abcdef >/dev/null 2>&1
lw_sh_check "retry of an unknown id exits 3 (no such job, docs/cli.md)" [ $? -eq 3 ]
lw_sh_check "jobs retry ID" bash -c "'$LODWASH' jobs retry '$id' | grep -q '1 job queued again'"
lw_sh_check "retried job is queued" count_is noop queued 1
lw_sh_check "dead list empty" count_is noop dead 0

# permanent failure: dead at once, no retries
lw_sh_redis_cli EVAL "$LW_QUEUE_CLEAR_LUA" 1 "${LODWASH_PREFIX}queue:noop" >/dev/null
lw_sh_redis_cli DEL "${LODWASH_PREFIX}queued:noop" >/dev/null
"$LODWASH" jobs push noop '{"fail": "permanent"}' >/dev/null
timeout 30 "$WORKER" --stages noop --exit-when-idle 2>"$LW_SH_TMP/perm.log"
lw_sh_check "permanent: no retry" [ "$(grep -c 'outcome=retry' "$LW_SH_TMP/perm.log")" -eq 0 ]
lw_sh_check "permanent: dead" grep -q "outcome=dead" "$LW_SH_TMP/perm.log"
lw_sh_check "jobs retry --all" bash -c "'$LODWASH' jobs retry --all | grep -q '1 job queued again'"

lw_sh_finish
